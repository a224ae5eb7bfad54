//! End to end with the real model on the sample corpus: a question whose evidence straddles a cut
//! fires that seam and brings both chunks; a question answered inside one chunk fires nothing.

mod common;

use std::path::{Path, PathBuf};

use seamscope::eval::evidence::judge;
use seamscope::eval::metrics::answered;
use seamscope::eval::questions::{Question, load_questions};
use seamscope::retrieve::{BudgetAction, EntryRef};
use seamscope::session::{Engine, OpenCorpus};

fn open_sample() -> (Engine, OpenCorpus, Vec<Question>) {
    // A cache shared by test runs, so the sample corpus is embedded once per build folder.
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let mut engine = common::engine(&cache);
    let open = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    let questions =
        load_questions(Path::new("sample-corpus/questions.jsonl"), &open.corpus).unwrap();
    (engine, open, questions)
}

fn question<'a>(qs: &'a [Question], id: &str) -> &'a Question {
    qs.iter().find(|q| q.id == id).unwrap()
}

#[test]
fn the_worked_example_fires_its_seam_and_both_chunks_arrive() {
    let (mut engine, open, qs) = open_sample();
    let q = question(&qs, "A01");
    assert!(q.has_tag("boundary"));
    let seam = open
        .layout
        .seams
        .iter()
        .find(|s| s.doc == q.doc && q.spans.iter().any(|sp| sp.start < s.cut && s.cut < sp.end))
        .expect("a cut falls inside the worked example's argument");
    let settings = engine.settings.query_settings();
    let (trace, _) = engine.ask(&open, &q.question, &settings).unwrap();

    let step = trace
        .fill
        .steps
        .iter()
        .find(|s| s.entry == EntryRef::Seam(seam.id))
        .expect("the budget fill reaches the seam");
    assert!(
        matches!(&step.action, BudgetAction::AddedPair { added } if !added.is_empty()),
        "seam {}|{} fires: {:?}",
        seam.left.0,
        seam.right.0,
        step.action
    );
    assert!(trace.fill.chunks.contains(&seam.left) && trace.fill.chunks.contains(&seam.right));
    assert!(
        answered(q, &trace.fill.chunks, &open.layout),
        "Seams holds the whole argument"
    );
    let without = &trace.without_seams.retrieval.as_ref().unwrap().fill.chunks;
    assert!(
        !answered(q, without, &open.layout),
        "chunks alone miss part of it"
    );
    // The context is original chunk text only: no seam ever reaches it.
    assert!(
        trace
            .context
            .iter()
            .all(|c| open.layout.chunks.iter().any(|k| k.id == c.chunk))
    );
    assert!(trace.fill.chunks.len() <= settings.budget);

    // The verdict the screen shows for it: answered with Seams, not without, because this cut
    // splits the evidence and its seam fired.
    let verdict = judge(q, &trace, &open.layout);
    assert!(verdict.with_seams && !verdict.without_seams, "{verdict:?}");
    assert_eq!(verdict.splitting_seams, vec![seam.id]);
    assert_eq!(verdict.fired_splitting, vec![seam.id]);
    assert_eq!(verdict.evidence_chunks, vec![seam.left, seam.right]);
    assert!(verdict.missing_with.is_empty());
    assert_eq!(verdict.missing_without, vec![seam.left]);
    let reason = verdict.short_reason(&|s| open.seam_label(s));
    assert_eq!(
        reason,
        format!(
            "cut {}|{} splits it; its seam fired",
            seam.left.0, seam.right.0
        )
    );
}

#[test]
fn a_question_answered_inside_one_chunk_fires_no_seam() {
    let (mut engine, open, qs) = open_sample();
    let q = question(&qs, "B22");
    assert!(q.has_tag("inside"));
    let (trace, _) = engine
        .ask(&open, &q.question, &engine.settings.query_settings())
        .unwrap();
    let fired: Vec<_> = trace
        .fill
        .steps
        .iter()
        .filter(|s| matches!(&s.action, BudgetAction::AddedPair { added } if !added.is_empty()))
        .collect();
    assert!(fired.is_empty(), "{fired:?}");
    assert!(answered(q, &trace.fill.chunks, &open.layout));
}

#[test]
fn moving_m_replans_without_touching_the_index() {
    let (mut engine, open, qs) = open_sample();
    let q = question(&qs, "A01");
    let settings = engine.settings.query_settings();
    let (trace, _) = engine.ask(&open, &q.question, &settings).unwrap();
    let strict = seamscope::retrieve::QuerySettings { m: 50, ..settings };
    let replanned = open.replan(&trace, &strict).unwrap();
    assert!(
        replanned
            .decisions
            .iter()
            .all(|d| !d.fires || d.fired_on_absence)
    );
    assert_eq!(
        replanned.fused, trace.fused,
        "the same searches, a new fire test"
    );
    let back = open.replan(&replanned, &settings).unwrap();
    assert_eq!(back.fill, trace.fill);
}

#[test]
fn side_drop_scores_both_halves_and_brings_only_the_matching_chunk() {
    let (mut engine, open, qs) = open_sample();
    // A high threshold, so some fired seam on the first questions has a half below it.
    let threshold = 0.45;
    let settings = seamscope::retrieve::QuerySettings {
        side_drop: Some(threshold),
        ..engine.settings.query_settings()
    };
    let (mut drops_seen, mut reached) = (0, 0);
    for q in qs.iter().take(30) {
        let (trace, _) = engine.ask(&open, &q.question, &settings).unwrap();
        assert!(
            !trace.input.side_scores.is_empty(),
            "halves are scored when side drop is on"
        );
        for s in &trace.input.side_scores {
            assert!((-1.0..=1.0).contains(&s.left) && (-1.0..=1.0).contains(&s.right));
        }
        for d in &trace.side_drops {
            drops_seen += 1;
            assert!(
                d.dropped_score < threshold && d.kept_score >= threshold,
                "{d:?}"
            );
            // Where the fill reached that seam, it added only the kept chunk.
            let step = trace
                .fill
                .steps
                .iter()
                .find(|st| st.entry == EntryRef::Seam(d.seam));
            if let Some(BudgetAction::AddedPair { added }) = step.map(|st| &st.action) {
                assert!(!added.contains(&d.dropped_chunk), "{added:?} {d:?}");
                reached += 1;
            }
        }
        // Off again: the same searches replan with both chunks.
        let off = open
            .replan(
                &trace,
                &seamscope::retrieve::QuerySettings {
                    side_drop: None,
                    ..settings
                },
            )
            .unwrap();
        assert!(off.side_drops.is_empty());
    }
    assert!(
        drops_seen > 0,
        "no side was dropped at {threshold} on 30 questions"
    );
    assert!(reached > 0, "no dropped side was reached by a budget fill");
    engine.save_half_vectors().unwrap();
}
