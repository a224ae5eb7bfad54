//! The calibration report assembled from hand-made samples and curves: both distributions over
//! shared bins, the warnings, the measured verdict beside the paper's rule, and JSON round trips.

use seamscope::calibrate::{
    Benefit, CalibrationReport, CalibrationSetup, HeadStart, MarginCurve, Measured, SampleKind,
    SampleRecord, WarningKind,
};
use seamscope::chunk::ChunkId;

fn setup() -> CalibrationSetup {
    CalibrationSetup {
        corpus: "c".into(),
        embedder: None,
        chunker: "fixed-1024".into(),
        k: 150,
        depth: 150,
        rrf_c: 60.0,
        budget: 5,
        objective_source: "test".into(),
        samples_per_kind: 60,
        seed: 0,
        min_words: 6,
        generator: "test".into(),
        generator_description: "test".into(),
    }
}

fn no_curve() -> Measured {
    Measured {
        curve: MarginCurve {
            budget: 5,
            questions: 0,
            crossing: 0,
            points: Vec::new(),
            off: None,
            recommended_m: None,
            indistinguishable: Vec::new(),
            benefit: Benefit::Unknown,
            selection: None,
            answered: Vec::new(),
        },
        passages: None,
        passage_samples: Vec::new(),
    }
}

fn record(kind: SampleKind, value: i64, chunk_absent: bool) -> SampleRecord {
    SampleRecord {
        kind,
        doc: "d.md".into(),
        start: 0,
        end: 1,
        seam: 0,
        seam_chunks: (0, 1),
        holder: None,
        sentence: "s".into(),
        question: Some("q".into()),
        head_start: Some(HeadStart {
            value,
            seam_position: 1,
            seam_absent: false,
            chunk: ChunkId(0),
            chunk_position: 1,
            chunk_absent,
            fused_len: 10,
        }),
        skipped: None,
    }
}

#[test]
fn report_shows_both_distributions_over_shared_bins() {
    let mut samples: Vec<SampleRecord> = (-10..30)
        .map(|v| record(SampleKind::Unsplit, v % 7 - 3, false))
        .collect();
    samples.extend((0..25).map(|v| record(SampleKind::Crossing, 4 + v, false)));
    let r = CalibrationReport::build(setup(), (100, 30), samples, no_curve());
    assert_eq!((r.unsplit.measured, r.crossing.measured), (40, 25));
    let total: usize = r.histogram.iter().map(|b| b.unsplit + b.crossing).sum();
    assert_eq!(total, 65);
    assert_eq!(
        r.paper_rule.recommended_m,
        Some(r.unsplit.spread.unwrap().p90 as u32 + 1)
    );
    assert!(r.paper_rule.working_range.is_some());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Plain data: the report goes to JSON and back (floats aside, which JSON may round).
    let json = serde_json::to_string(&r).unwrap();
    let back: CalibrationReport = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (
            &back.histogram,
            &back.samples,
            back.bins,
            back.paper_rule.working_range
        ),
        (&r.histogram, &r.samples, r.bins, r.paper_rule.working_range)
    );
}

#[test]
fn report_warns_on_overlap_few_samples_and_absent_chunks() {
    let mut samples: Vec<SampleRecord> = (0..10)
        .map(|v| record(SampleKind::Unsplit, v, v < 5))
        .collect();
    samples.extend((0..5).map(|v| record(SampleKind::Crossing, v - 2, false)));
    let mut skipped = record(SampleKind::Crossing, 0, false);
    skipped.head_start = None;
    skipped.skipped = Some("no content words".into());
    samples.push(skipped);
    let r = CalibrationReport::build(setup(), (10, 6), samples, no_curve());
    let kinds: Vec<WarningKind> = r.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(
        kinds,
        vec![
            WarningKind::HeavyOverlap,
            WarningKind::FewSamples,
            WarningKind::AbsentChunks,
            WarningKind::FewSamples,
            WarningKind::SkippedQuestions,
        ]
    );
    // Overlap is a diagnostic: it never claims the corpus lies outside Seams' setting.
    assert!(r.warnings[0].text.contains("diagnostic"));
    assert!(!r.warnings[0].text.contains("lies outside"));
    assert_eq!((r.crossing.drawn, r.crossing.skipped), (6, 1));
}

#[test]
fn the_rule_note_says_why_the_paper_rule_differs_in_one_sentence() {
    let mut m = no_curve();
    let point = |m: u32, failures: usize| seamscope::calibrate::CurvePoint {
        m: Some(m),
        questions: 10,
        failures,
        failure_rate: failures as f64 / 10.0,
        interval: seamscope::calibrate::interval::wilson(failures, 10),
        mean_tokens: 0.0,
        fires_per_question: 0.0,
        false_fires_per_question: 0.0,
        wasted_fires_per_question: 0.0,
        vs_best: None,
    };
    m.curve.points = vec![point(1, 2), point(4, 5)];
    m.curve.recommended_m = Some(1);
    // Unsplit p90 = 3, so the rule says m = 4.
    let samples: Vec<SampleRecord> = [-2, 0, 1, 2, 3]
        .into_iter()
        .map(|v| record(SampleKind::Unsplit, v, false))
        .collect();
    let r = CalibrationReport::build(setup(), (5, 0), samples, m);
    assert_eq!(r.paper_rule.recommended_m, Some(4));
    let note = r.verdict.rule_note.unwrap();
    assert_eq!(
        note,
        "The white paper's rule gives m = 4 because it keeps 90% of unsplit facts from firing, \
         but a fire over an unsplit fact still brings the chunk that holds it (it costs a slot, \
         not a miss): measured at budget 5, m = 4 fails 50.0% of questions and m = 1 20.0%."
    );
}

#[test]
fn empty_samples_say_why_there_is_no_recommendation() {
    let r = CalibrationReport::build(setup(), (0, 0), Vec::new(), no_curve());
    assert_eq!(r.paper_rule.recommended_m, None);
    assert!(r.histogram.is_empty() && r.bins.is_none());
    let kinds: Vec<WarningKind> = r.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, vec![WarningKind::NoUnsplit, WarningKind::NoCrossing]);
}
