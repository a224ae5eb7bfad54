//! The measured objective behind the recommended m, on hand-built rankings: what a fire does to
//! the context decides, not whether it fired.

use proptest::prelude::*;

use seamscope::calibrate::objective::{Benefit, Evidence, SearchedQuestion, margin_curve};
use seamscope::chunk::ChunkId;
use seamscope::chunk::fixed::FixedTokens;
use seamscope::corpus::{Corpus, DocId, Span};
use seamscope::layout::Layout;
use seamscope::retrieve::{
    EntryRef, FusedEntry, QueryInput, QuerySettings, RankingInput, RerankInput, replan,
};
use seamscope::seam::SeamId;
use seamscope::tokens::TokenOffsets;

/// One document of 40 words cut into ten chunks of four words; seam i joins chunks i and i + 1.
fn layout() -> (Corpus, Layout) {
    let text: String = (0..40).map(|i| format!("w{i:02} ")).collect();
    let corpus = Corpus::from_texts([("d.md", text.clone())]);
    let offsets = vec![TokenOffsets::of_words(&text)];
    let chunks = seamscope::chunk::chunk_corpus(&corpus, &offsets, &FixedTokens { tokens: 4 });
    let seams = seamscope::seam::build_seams(&corpus, &offsets, &chunks, 2);
    let layout = Layout {
        offsets,
        chunks,
        seams,
        chunker: "fixed-4".into(),
        k: 2,
        search: Default::default(),
        timings: Default::default(),
        given: None,
        store: Default::default(),
    };
    (corpus, layout)
}

fn c(i: u32) -> FusedEntry {
    FusedEntry::given(EntryRef::Chunk(ChunkId(i)))
}

fn s(i: u32) -> FusedEntry {
    FusedEntry::given(EntryRef::Seam(SeamId(i)))
}

/// A span inside chunk `i` (its second word), or across the cut after chunk `i`.
fn inside(layout: &Layout, i: usize) -> Span {
    let span = layout.chunks[i].span;
    Span::new(span.start + 4, span.start + 7)
}

fn across(layout: &Layout, i: usize) -> Span {
    let cut = layout.chunks[i + 1].span.start;
    Span::new(cut - 3, cut + 3)
}

fn question(ranking: Vec<FusedEntry>, chunks_only: Vec<u32>, span: Span) -> SearchedQuestion {
    SearchedQuestion {
        input: QueryInput {
            question: "q".into(),
            ranking: RankingInput::Fused(ranking),
            chunks_only: Some(RankingInput::Fused(
                chunks_only.into_iter().map(c).collect(),
            )),
            rerank: RerankInput::NotConfigured,
            side_scores: Vec::new(),
        },
        evidence: Evidence {
            doc: DocId(0),
            spans: vec![span],
        },
    }
}

fn settings(budget: usize) -> QuerySettings {
    QuerySettings {
        budget,
        ..QuerySettings::default()
    }
}

#[test]
fn a_fire_that_adds_the_answering_chunk_is_not_a_miss() {
    let (_, lay) = layout();
    // The evidence lies inside chunk 1: a "false fire" by the paper's count. Seam 0|1 leads,
    // chunk 1 ranks below the budget on its own.
    let q = question(
        vec![s(0), c(5), c(6), c(1), c(0)],
        vec![5, 6, 1],
        inside(&lay, 1),
    );
    let curve = margin_curve(&[q], &lay, &settings(2), &[1, 2, 3, 4]).unwrap();
    let at = |m| curve.at(m).unwrap();
    // m = 1..3: the seam fires (1 + 3 ≤ 4 and ≤ 5) and brings chunks 0 and 1: answered.
    assert_eq!(at(1).failures, 0);
    assert_eq!(at(3).failures, 0);
    assert_eq!(at(3).false_fires_per_question, 1.0, "it is a false fire…");
    assert_eq!(
        at(3).wasted_fires_per_question,
        1.0,
        "…and chunk 0 is waste…"
    );
    // …but without it chunks 5 and 6 fill the budget and the answer is lost.
    assert_eq!(at(4).failures, 1);
    assert_eq!(curve.off.as_ref().unwrap().failures, 1);
    assert_eq!(curve.recommended_m, Some(3), "ties go to the larger m");
}

#[test]
fn a_fire_that_pushes_the_only_answering_chunk_out_of_the_budget_is_a_miss() {
    let (_, lay) = layout();
    // Evidence in chunk 3. Seam 0|1 first, then chunk 3, then chunks 0 and 1.
    let q = question(vec![s(0), c(3), c(0), c(1)], vec![3, 0, 1], inside(&lay, 3));
    let curve = margin_curve(&[q], &lay, &settings(2), &[0, 1, 2, 3]).unwrap();
    // m ≤ 2: 1 + m ≤ 3 and ≤ 4, the pair takes both slots and chunk 3 is out.
    assert_eq!(curve.at(1).unwrap().failures, 1);
    assert_eq!(curve.at(2).unwrap().failures, 1);
    // m = 3: 4 > 3, no fire; chunk 3 is in.
    assert_eq!(curve.at(3).unwrap().failures, 0);
    assert_eq!(curve.recommended_m, Some(3));
    assert_eq!(
        curve.at(0).unwrap().mean_tokens,
        8.0,
        "two chunks of four words"
    );
}

#[test]
fn split_evidence_needs_the_fire_and_the_curve_counts_tokens_and_crossing() {
    let (_, lay) = layout();
    // Evidence across cut 4|5; seam 4 leads, the chunks trail behind unrelated ones.
    let q = question(
        vec![c(9), s(4), c(8), c(4), c(2), c(5)],
        vec![9, 8, 4, 2, 5],
        across(&lay, 4),
    );
    let curve = margin_curve(&[q], &lay, &settings(3), &[1, 2, 3, 4, 5]).unwrap();
    assert_eq!(curve.crossing, 1);
    // Seam at 2, chunks at 4 and 6: fires up to m = 2.
    assert_eq!(curve.at(2).unwrap().failures, 0);
    assert_eq!(curve.at(2).unwrap().false_fires_per_question, 0.0);
    assert_eq!(curve.at(3).unwrap().failures, 1);
    assert_eq!(curve.recommended_m, Some(2));
    assert_eq!(curve.off.as_ref().unwrap().failures, 1);
}

/// At budget 3: `gained` copies of a question Seams answers at m ≤ 2 (and chunks-only misses),
/// plus `lost` copies of one whose answer a fire pushes out at m ≤ 3 (chunks-only answers it).
fn mixed(lay: &Layout, gained: usize, lost: usize) -> Vec<SearchedQuestion> {
    let win = question(
        vec![c(9), s(4), c(8), c(4), c(2), c(5)],
        vec![9, 8, 4, 2, 5],
        across(lay, 4),
    );
    let loss = question(
        vec![s(0), c(7), c(3), c(0), c(1)],
        vec![7, 3, 0, 1],
        inside(lay, 3),
    );
    let mut out = vec![win; gained];
    out.extend(vec![loss; lost]);
    out
}

#[test]
fn the_verdict_says_helps_noise_or_outside_only_from_measured_failures() {
    let (_, lay) = layout();
    let budget = settings(3);
    // Ten questions gained, none lost at m = 2: beyond noise (p = 2/1024).
    let curve = margin_curve(&mixed(&lay, 10, 0), &lay, &budget, &[1, 2, 3, 4]).unwrap();
    let Benefit::Helps { diff } = &curve.benefit else {
        panic!("{:?}", curve.benefit)
    };
    assert_eq!((diff.gained, diff.lost), (10, 0));
    assert!(curve.benefit_sentence().contains("Seams helps"));
    // Two gained: fewer failures, but a sign test on two disagreements cannot tell.
    let curve = margin_curve(&mixed(&lay, 2, 0), &lay, &budget, &[1, 2, 3, 4]).unwrap();
    assert!(matches!(curve.benefit, Benefit::WithinNoise { .. }));
    assert!(curve.benefit_sentence().contains("within noise"));
    // Fires only lose: the best m is one where the seam does not fire, which ties chunks-only,
    // so the corpus is outside Seams' setting — said from failures, not from any histogram.
    let curve = margin_curve(&mixed(&lay, 0, 5), &lay, &budget, &[1, 2, 3, 4]).unwrap();
    assert_eq!(curve.recommended_m, Some(4));
    assert!(matches!(
        curve.benefit,
        Benefit::OutsideSetting {
            seams_failures: 0,
            off_failures: 0,
            ..
        }
    ));
    // No chunks-only run: nothing to compare with, so no verdict either way.
    let mut q = mixed(&lay, 3, 0);
    q[0].input.chunks_only = None;
    let curve = margin_curve(&q, &lay, &budget, &[1, 2]).unwrap();
    assert_eq!(curve.benefit, Benefit::Unknown);
    assert!(curve.off.is_none());
}

#[test]
fn margins_whose_difference_is_noise_are_marked_as_such() {
    let (_, lay) = layout();
    // m ≤ 2: 1 failure; m = 3: 11 (neither question answered); m = 4: 10.
    let qs = mixed(&lay, 10, 1);
    let curve = margin_curve(&qs, &lay, &settings(3), &[1, 2, 3, 4]).unwrap();
    let f: Vec<usize> = curve.points.iter().map(|p| p.failures).collect();
    assert_eq!(f, vec![1, 1, 11, 10]);
    assert_eq!(curve.recommended_m, Some(2));
    assert!(
        curve.indistinguishable.contains(&1),
        "m = 1 gives the same answers"
    );
    assert!(!curve.indistinguishable.contains(&3) && !curve.indistinguishable.contains(&4));
    let p3 = curve.at(3).unwrap().vs_best.unwrap();
    assert_eq!((p3.gained, p3.lost), (0, 10));
    let p4 = curve.at(4).unwrap().vs_best.unwrap();
    assert_eq!((p4.gained, p4.lost), (1, 10));
    assert!(!p4.noise);
    assert!(curve.best().unwrap().vs_best.is_none());
}

fn arbitrary_question(lay: &Layout) -> impl Strategy<Value = SearchedQuestion> + use<> {
    let chunks = lay.chunks.len() as u32;
    let seams = lay.seams.len() as u32;
    let end = lay.chunks.last().unwrap().span.end;
    let entries: Vec<FusedEntry> = (0..chunks).map(c).chain((0..seams).map(s)).collect();
    (
        Just(entries).prop_shuffle(),
        1usize..=(chunks + seams) as usize,
        0usize..end - 1,
        1usize..30,
    )
        .prop_map(move |(entries, keep, start, len)| {
            let ranking: Vec<FusedEntry> = entries.into_iter().take(keep).collect();
            let chunks_only: Vec<u32> = ranking
                .iter()
                .filter_map(|e| e.entry.chunk().map(|c| c.0))
                .collect();
            // Spans start and end on word boundaries (every fourth byte).
            let start = start / 4 * 4;
            let end = (start + len).min(end).div_ceil(4) * 4;
            question(ranking, chunks_only, Span::new(start, end.max(start + 3)))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// On its own sample, the recommended m has the fewest failures of all candidates, ties go
    /// to the larger m, and every point's failures are what the pipeline gives at that m.
    #[test]
    fn the_recommended_m_has_the_lowest_failure_on_its_own_sample(
        qs in proptest::collection::vec(arbitrary_question(&layout().1), 1..12),
        budget in 1usize..6,
    ) {
        let (_, lay) = layout();
        let candidates: Vec<u32> = (0..=8).collect();
        let settings = settings(budget);
        let curve = margin_curve(&qs, &lay, &settings, &candidates).unwrap();
        let best = curve.best().unwrap();
        let m = best.m.unwrap();
        for p in &curve.points {
            prop_assert!(best.failures <= p.failures);
            if p.failures == best.failures {
                prop_assert!(p.m.unwrap() <= m, "a tie must go to the larger m");
            }
            // Independent recount through the public pipeline.
            let misses = qs.iter().filter(|q| {
                let trace = lay.with_lookups(|l| {
                    replan(&q.input, &QuerySettings { m: p.m.unwrap(), ..settings }, l).unwrap()
                });
                !q.evidence.held_by(&trace.fill.chunks, &lay)
            }).count();
            prop_assert_eq!(misses, p.failures);
            prop_assert!(p.mean_tokens <= (budget * 4) as f64);
        }
    }
}
