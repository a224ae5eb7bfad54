//! Calibration end to end with the real model on the sample corpus (cache shared with the other
//! sample-corpus tests): the report's shape, and every sampled sentence really is unsplit or
//! crossing as claimed, in its seam's window, with the head start the ranking gives.

mod common;

use std::path::{Path, PathBuf};

use seamscope::calibrate::sample::is_prose;
use seamscope::calibrate::{
    CalibrateOptions, CalibrationReport, KeywordQuestions, SampleKind, SampleOptions, calibrate,
    sample_sentences,
};
use seamscope::corpus::Span;
use seamscope::eval::metrics::{SpanClass, span_class};
use seamscope::retrieve::{EntryRef, absent_position, position_of};
use seamscope::seam::SeamId;
use seamscope::session::{Engine, OpenCorpus};

fn open_sample() -> (Engine, OpenCorpus) {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let mut engine = common::engine(&cache);
    let open = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    (engine, open)
}

fn options(engine: &Engine, per_kind: usize, seed: u64) -> CalibrateOptions {
    CalibrateOptions {
        sample: SampleOptions {
            per_kind,
            seed,
            ..SampleOptions::default()
        },
        passages: seamscope::calibrate::PassageOptions {
            count: 60,
            seed,
            ..Default::default()
        },
        query: engine.settings.query_settings(),
        ..CalibrateOptions::default()
    }
}

fn run(engine: &mut Engine, open: &OpenCorpus, per_kind: usize) -> CalibrationReport {
    let opts = options(engine, per_kind, 7);
    let mut calls = 0;
    let report = calibrate(engine, open, &mut KeywordQuestions, &opts, &mut |p| {
        calls += 1;
        assert_eq!(p.done, calls);
        true
    })
    .unwrap();
    assert_eq!(
        calls,
        report.samples.len() + report.passage_samples.len(),
        "progress after every passage and sentence"
    );
    report
}

#[test]
fn calibration_report_has_both_distributions_and_a_recommendation() {
    let (mut engine, open) = open_sample();
    let r = run(&mut engine, &open, 25);

    assert_eq!(r.setup.generator, "offline-keywords");
    assert!(r.setup.generator_description.contains("cannot paraphrase"));
    assert_eq!(
        r.unsplit.drawn, 25,
        "the sample corpus has hundreds of candidates"
    );
    assert!(
        r.crossing.drawn >= 20,
        "most cuts fall inside a prose sentence"
    );
    for d in [&r.unsplit, &r.crossing] {
        assert_eq!(d.measured + d.skipped, d.drawn);
        assert!(d.drawn <= d.candidates);
        assert_eq!(d.head_starts.len(), d.measured);
        let s = d.spread.expect("something was measured");
        assert!(s.min <= s.p10 && s.p10 <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.max);
    }
    // The histogram holds every head start once, in bins that share edges.
    let unsplit: usize = r.histogram.iter().map(|b| b.unsplit).sum();
    let crossing: usize = r.histogram.iter().map(|b| b.crossing).sum();
    assert_eq!(
        (unsplit, crossing),
        (r.unsplit.measured, r.crossing.measured)
    );
    for v in r.unsplit.head_starts.iter().chain(&r.crossing.head_starts) {
        assert_eq!(r.histogram.iter().filter(|b| b.holds(*v)).count(), 1);
    }
    // The paper's rule (a diagnostic) follows its rule, and the overlap warning agrees.
    let p90 = r.unsplit.spread.unwrap().p90;
    assert_eq!(r.paper_rule.recommended_m, Some((p90 + 1).max(1) as u32));
    assert!(r.paper_rule.unsplit_firing.unwrap() <= 0.1);
    assert_eq!(
        r.paper_rule.heavy_overlap,
        r.paper_rule.working_range.is_none()
    );
    let warned = r
        .warnings
        .iter()
        .any(|w| w.kind == seamscope::calibrate::WarningKind::HeavyOverlap);
    assert_eq!(warned, r.paper_rule.heavy_overlap);

    // The measured recommendation: the margin with the fewest failures on the passages.
    let c = &r.objective;
    assert_eq!(c.points.len(), 31, "m = 0 to 30");
    assert_eq!(c.questions, r.passages.as_ref().unwrap().measured);
    assert!(c.questions >= 50, "{} passages scored", c.questions);
    assert!(c.crossing > 0 && c.crossing < c.questions, "{}", c.crossing);
    let best = c.best().unwrap();
    assert_eq!(r.verdict.recommended_m, best.m);
    assert!(c.points.iter().all(|p| p.failures >= best.failures));
    assert!(c.off.is_some(), "chunks-only is scored beside the margins");
    // A passage the cuts leave whole is answered by any margin that brings its chunk; only
    // split passages can tell margins apart.
    for p in &c.points {
        assert!(p.interval.low <= p.failure_rate && p.failure_rate <= p.interval.high);
    }

    let json = serde_json::to_value(&r).unwrap();
    for key in [
        "setup",
        "unsplit",
        "crossing",
        "bins",
        "histogram",
        "verdict",
        "paper_rule",
        "objective",
        "passages",
        "warnings",
        "rules",
        "samples",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn every_sampled_sentence_is_unsplit_or_crossing_as_claimed() {
    let (mut engine, open) = open_sample();
    let r = run(&mut engine, &open, 25);
    let qs = engine.settings.query_settings();
    for (i, rec) in r.samples.iter().enumerate() {
        let doc = open
            .corpus
            .documents
            .iter()
            .find(|d| d.path == rec.doc)
            .unwrap();
        let span = Span::new(rec.start, rec.end);
        let text = doc.slice(span);
        assert_eq!(
            text.split_whitespace().collect::<Vec<_>>().join(" "),
            rec.sentence
        );
        assert!(is_prose(text, 6), "not prose: {text:?}");
        let seam = open.layout.seam(SeamId(rec.seam));
        assert_eq!(seam.doc, doc.id);
        assert_eq!((seam.left.0, seam.right.0), rec.seam_chunks);
        assert!(
            seam.span.contains(&span),
            "outside the seam window: {text:?}"
        );
        let chunks: Vec<Span> = open
            .layout
            .chunks
            .iter()
            .filter(|c| c.doc == doc.id)
            .map(|c| c.span)
            .collect();
        match rec.kind {
            SampleKind::Unsplit => {
                assert_eq!(span_class(span, &chunks), SpanClass::Whole, "{text:?}");
                let holder = rec.holder.expect("an unsplit sentence names its chunk");
                assert!(holder == seam.left.0 || holder == seam.right.0);
                assert!(
                    open.layout
                        .chunk(seamscope::chunk::ChunkId(holder))
                        .span
                        .contains(&span)
                );
                assert!(span.end <= seam.cut || span.start >= seam.cut);
            }
            SampleKind::Crossing => {
                assert_eq!(span_class(span, &chunks), SpanClass::Split, "{text:?}");
                assert!(span.start < seam.cut && seam.cut < span.end);
                assert_eq!(rec.holder, None);
            }
        }
        // Re-ask a few questions: the head start is the positions' difference in that ranking.
        if i % 10 == 0 {
            let h = rec.head_start.unwrap();
            let (trace, _) = engine
                .ask(&open, rec.question.as_deref().unwrap(), &qs)
                .unwrap();
            let pos = |e: EntryRef| {
                position_of(&trace.fused, e).unwrap_or(absent_position(trace.fused.len()))
            };
            let seam_pos = pos(EntryRef::Seam(seam.id));
            let chunk_pos = match rec.kind {
                SampleKind::Unsplit => pos(EntryRef::Chunk(h.chunk)),
                SampleKind::Crossing => {
                    pos(EntryRef::Chunk(seam.left)).min(pos(EntryRef::Chunk(seam.right)))
                }
            };
            assert_eq!(h.value, chunk_pos as i64 - seam_pos as i64);
        }
    }
}

#[test]
fn the_draw_is_deterministic_per_seed() {
    let (engine, open) = open_sample();
    let draw = |seed| {
        sample_sentences(
            &open.corpus,
            &open.layout,
            &options(&engine, 10, seed).sample,
        )
    };
    let (a, b, c) = (draw(1), draw(1), draw(2));
    assert_eq!(a, b);
    assert_ne!(a.unsplit, c.unsplit);
    assert_eq!(a.unsplit_candidates, c.unsplit_candidates);
    // A larger draw with the same seed keeps every sentence of the smaller one.
    let more = sample_sentences(&open.corpus, &open.layout, &options(&engine, 30, 1).sample);
    assert!(a.unsplit.iter().all(|s| more.unsplit.contains(s)));
}

#[test]
fn the_question_set_calibrates_from_gold_evidence() {
    let (mut engine, open) = open_sample();
    let questions = seamscope::eval::questions::load_questions(
        Path::new("sample-corpus/questions.jsonl"),
        &open.corpus,
    )
    .unwrap();
    let query = engine.settings.query_settings();
    let mut search = |q: &str| Ok(engine.ask(&open, q, &query)?.0);
    let report = seamscope::calibrate::calibrate_from_questions(
        &open.corpus,
        &open.layout,
        &questions,
        "questions.jsonl",
        &query,
        30,
        &mut search,
        &mut |_| true,
    )
    .unwrap();
    let boundary = questions.iter().filter(|q| q.has_tag("boundary")).count();
    assert_eq!(report.crossing.measured, boundary);
    assert!(report.unsplit.measured >= 60);
    for s in &report.samples {
        let seam = open.layout.seam(SeamId(s.seam));
        let evidence = Span::new(s.start, s.end);
        match s.kind {
            // The seam's cut really splits a boundary question's evidence.
            SampleKind::Crossing => assert!(evidence.start < seam.cut && seam.cut < evidence.end),
            // An unsplit question's seam sits at a cut of the chunk holding its evidence.
            SampleKind::Unsplit => {
                let holder = s.holder.unwrap();
                assert!(seam.left.0 == holder || seam.right.0 == holder);
                assert!(open.layout.chunks[holder as usize].span.contains(&evidence));
            }
        }
    }
    assert!(report.setup.generator.starts_with("question set"));
    assert!(report.verdict.recommended_m.is_some());
}
