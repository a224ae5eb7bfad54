//! The rerank stage around fired seams: pinned chunks are never sent, and the reranker's order fills
//! the positions around them.

use std::collections::HashMap;

use seamscope::chunk::ChunkId;
use seamscope::retrieve::{
    BudgetAction, ChunkPlacement, EntryRef, FusedEntry, Lookups, PlanItem, QueryInput,
    QuerySettings, RankingInput, RerankError, RerankInput, RerankStatus, Reranker, apply_rerank,
    fill_budget, fire_test, replan, rerank_candidates, score_candidates,
};
use seamscope::seam::SeamId;

/// A fake reranker: a fixed score per text, and a record of every text it was sent.
struct FixedReranker {
    scores: HashMap<String, f32>,
    sent: Vec<String>,
}

impl FixedReranker {
    fn new(pairs: &[(u32, f32)]) -> Self {
        Self {
            scores: pairs.iter().map(|&(c, s)| (text(ChunkId(c)), s)).collect(),
            sent: Vec::new(),
        }
    }
}

impl Reranker for FixedReranker {
    fn name(&self) -> &str {
        "fixed"
    }

    fn score(&mut self, _query: &str, texts: &[&str]) -> Result<Vec<f32>, RerankError> {
        self.sent.extend(texts.iter().map(|t| t.to_string()));
        texts
            .iter()
            .map(|t| {
                self.scores.get(*t).copied().ok_or(RerankError::Model {
                    reranker: "fixed".into(),
                    message: format!("no score for {t}"),
                })
            })
            .collect()
    }
}

fn text(c: ChunkId) -> String {
    format!("text of chunk {}", c.0)
}

fn links(seam: SeamId) -> (ChunkId, ChunkId) {
    (ChunkId(seam.0 / 100), ChunkId(seam.0 % 100))
}

fn c(i: u32) -> EntryRef {
    EntryRef::Chunk(ChunkId(i))
}

fn ids(v: &[u32]) -> Vec<ChunkId> {
    v.iter().copied().map(ChunkId).collect()
}

/// 1 seam 7|8, 2 chunk 1, 3 chunk 7, 4 chunk 2, 5 chunk 3, 6 chunk 4, 7 chunk 8.
fn fused() -> Vec<FusedEntry> {
    [
        EntryRef::Seam(SeamId(708)),
        c(1),
        c(7),
        c(2),
        c(3),
        c(4),
        c(8),
    ]
    .into_iter()
    .map(FusedEntry::given)
    .collect()
}

const SCORES: [(u32, f32); 6] = [(1, 0.1), (2, 0.9), (3, 0.5), (4, 0.7), (7, 1.0), (8, 1.0)];

#[test]
fn retrieve_rerank_pinned_chunks_never_sent_and_order_fills_around_them() {
    let fused = fused();
    // m = 2: 1 + 2 = 3 ≤ 3 (chunk 7) and ≤ 7 (chunk 8): fires, pinning 7 and 8.
    let decisions = fire_test(&fused, &links, 2);
    assert!(decisions[0].fires);
    let candidates = rerank_candidates(&fused, &decisions, 150);
    assert_eq!(candidates, ids(&[1, 2, 3, 4]));

    let mut model = FixedReranker::new(&SCORES);
    let texts: HashMap<ChunkId, String> = (0..10).map(|i| (ChunkId(i), text(ChunkId(i)))).collect();
    let lookup = |c: ChunkId| texts.get(&c).map(String::as_str);
    let scores = score_candidates(&mut model, "q", &candidates, &lookup);
    let Ok(scores) = scores else {
        panic!("fake reranker failed: {scores:?}");
    };
    assert!(!model.sent.contains(&text(ChunkId(7))));
    assert!(!model.sent.contains(&text(ChunkId(8))));
    assert_eq!(model.sent.len(), 4);

    let plan = apply_rerank(&fused, &decisions, Some(&scores), 150);
    let order: Vec<EntryRef> = plan.entries.iter().map(|e| e.item.entry()).collect();
    // Seam 7|8 and chunk 7's and chunk 8's own entries stay at 1, 3 and 7; the reranker's order
    // (2: 0.9, 4: 0.7, 3: 0.5, 1: 0.1) fills positions 2, 4, 5 and 6.
    assert_eq!(
        order,
        vec![
            EntryRef::Seam(SeamId(708)),
            c(2),
            c(7),
            c(4),
            c(3),
            c(1),
            c(8)
        ]
    );
    assert_eq!(
        plan.entries[2].item,
        PlanItem::Chunk {
            chunk: ChunkId(7),
            placement: ChunkPlacement::LinkedByFiredSeam { seam: SeamId(708) }
        }
    );
    assert_eq!(plan.entries[1].fused_position, 4);
    assert_eq!(
        plan.entries[1].item,
        PlanItem::Chunk {
            chunk: ChunkId(2),
            placement: ChunkPlacement::Reranked {
                score: 0.9,
                rerank_rank: 1
            }
        }
    );
    assert_eq!(
        plan.rerank,
        RerankStatus::Applied {
            reranker: "fixed".into(),
            candidates: 4,
            unscored: vec![],
        }
    );

    let fill = fill_budget(&plan, 4);
    assert_eq!(fill.chunks, ids(&[7, 8, 2, 4]));
    assert_eq!(
        fill.steps[0].action,
        BudgetAction::AddedPair {
            added: ids(&[7, 8])
        }
    );
}

#[test]
fn retrieve_rerank_only_first_n_candidates_move() {
    let fused = fused();
    let decisions = fire_test(&fused, &links, 2);
    let mut model = FixedReranker::new(&SCORES);
    let candidates = rerank_candidates(&fused, &decisions, 2);
    assert_eq!(candidates, ids(&[1, 2]));
    let lookup = |_: ChunkId| Some("unused");
    // Texts all read "unused": the fake has no score for it and reports a model error.
    let err = score_candidates(&mut model, "q", &candidates, &lookup);
    assert!(matches!(err, Err(RerankError::Model { .. })));

    let scores = seamscope::retrieve::RerankScores {
        reranker: "fixed".into(),
        scores: SCORES.iter().map(|&(c, s)| (ChunkId(c), s)).collect(),
    };
    let plan = apply_rerank(&fused, &decisions, Some(&scores), 2);
    let order: Vec<EntryRef> = plan.entries.iter().map(|e| e.item.entry()).collect();
    // Candidates 1 and 2 swap; 3 and 4 were not judged and keep fused order after them.
    assert_eq!(
        order,
        vec![
            EntryRef::Seam(SeamId(708)),
            c(2),
            c(7),
            c(1),
            c(3),
            c(4),
            c(8)
        ]
    );
}

#[test]
fn retrieve_rerank_replan_reports_unscored_candidates_when_m_changes() {
    let input = QueryInput {
        question: "q".into(),
        ranking: RankingInput::Fused(fused()),
        chunks_only: None,
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    };
    let settings = QuerySettings {
        m: 2,
        budget: 4,
        ..QuerySettings::default()
    };
    let mut model = FixedReranker::new(&SCORES);
    let candidates = input.rerank_candidates(&settings, &links);
    let lookup_texts: HashMap<ChunkId, String> =
        (0..10).map(|i| (ChunkId(i), text(ChunkId(i)))).collect();
    let lookup = |c: ChunkId| lookup_texts.get(&c).map(String::as_str);
    let Ok(scores) = score_candidates(&mut model, "q", &candidates, &lookup) else {
        panic!("fake reranker failed");
    };
    let input = QueryInput {
        rerank: RerankInput::Scores(scores),
        ..input
    };
    let tokens = |_: ChunkId| 100;
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let Ok(trace) = replan(&input, &settings, &lookups) else {
        panic!("valid settings rejected");
    };
    assert_eq!(trace.fill.chunks, ids(&[7, 8, 2, 4]));

    // m = 3: seam 7|8 no longer fires (1 + 3 = 4 > 3), so chunks 7 and 8 become candidates that
    // were never scored: the status lists them and they follow the scored chunks.
    let Ok(trace) = trace.replan(&QuerySettings { m: 3, ..settings }, &lookups) else {
        panic!("valid settings rejected");
    };
    assert_eq!(
        trace.plan.rerank,
        RerankStatus::Applied {
            reranker: "fixed".into(),
            candidates: 6,
            unscored: ids(&[7, 8]),
        }
    );
    assert_eq!(trace.fill.chunks, ids(&[2, 4, 3, 1]));
}

#[test]
fn retrieve_rerank_failure_keeps_fused_order_and_says_so() {
    let input = QueryInput {
        question: "q".into(),
        ranking: RankingInput::Fused(fused()),
        chunks_only: None,
        rerank: RerankInput::Failed {
            reranker: "fixed".into(),
            error: "model file missing".into(),
        },
        side_scores: Vec::new(),
    };
    let tokens = |_: ChunkId| 1;
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let settings = QuerySettings {
        m: 2,
        budget: 3,
        ..QuerySettings::default()
    };
    let Ok(trace) = replan(&input, &settings, &lookups) else {
        panic!("valid settings rejected");
    };
    assert!(matches!(trace.plan.rerank, RerankStatus::Failed { .. }));
    assert_eq!(trace.fill.chunks, ids(&[7, 8, 1]));
}

/// A chunks-only ranking over the same chunks: 1 chunk 1, 2 chunk 7, 3 chunk 2, 4 chunk 3,
/// 5 chunk 4, 6 chunk 8.
fn chunks_only_fused() -> Vec<FusedEntry> {
    [c(1), c(7), c(2), c(3), c(4), c(8)]
        .into_iter()
        .map(FusedEntry::given)
        .collect()
}

#[test]
fn retrieve_rerank_applies_to_the_chunks_only_side_too() {
    let input = QueryInput {
        question: "q".into(),
        ranking: RankingInput::Fused(fused()),
        chunks_only: Some(RankingInput::Fused(chunks_only_fused())),
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    };
    let settings = QuerySettings {
        m: 2,
        budget: 4,
        ..QuerySettings::default()
    };
    // The Seams side pins 7 and 8 (seam 7|8 fires); the chunks-only side has no seams, so its
    // first chunks, 7 and 8 among them, are judged too: the engine must score both sides.
    let candidates = input.rerank_candidates(&settings, &links);
    assert_eq!(candidates, ids(&[1, 2, 3, 4, 7, 8]));

    let mut model = FixedReranker::new(&SCORES);
    let lookup_texts: HashMap<ChunkId, String> =
        (0..10).map(|i| (ChunkId(i), text(ChunkId(i)))).collect();
    let lookup = |c: ChunkId| lookup_texts.get(&c).map(String::as_str);
    let Ok(scores) = score_candidates(&mut model, "q", &candidates, &lookup) else {
        panic!("fake reranker failed");
    };
    let input = QueryInput {
        rerank: RerankInput::Scores(scores),
        ..input
    };
    let tokens = |_: ChunkId| 100;
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let Ok(trace) = replan(&input, &settings, &lookups) else {
        panic!("valid settings rejected");
    };
    assert_eq!(trace.fill.chunks, ids(&[7, 8, 2, 4]));
    let Some(run) = trace.without_seams.retrieval.as_ref() else {
        panic!("the chunks-only run is missing");
    };
    // Reranked (7: 1.0, 8: 1.0, 2: 0.9, 4: 0.7, 3: 0.5, 1: 0.1) the chunks-only side holds the same
    // four chunks: the reranker, not Seams, brought chunk 4 and pushed out chunks 1 and 3.
    assert_eq!(run.fill.chunks, ids(&[7, 8, 2, 4]));
    assert!(run.comparison.added.is_empty(), "{:?}", run.comparison);
    assert!(run.comparison.displaced.is_empty(), "{:?}", run.comparison);
    assert_eq!(
        run.rerank,
        RerankStatus::Applied {
            reranker: "fixed".into(),
            candidates: 6,
            unscored: vec![],
        }
    );
}

#[test]
fn retrieve_rerank_failure_is_reported_on_the_chunks_only_side_too() {
    let input = QueryInput {
        question: "q".into(),
        ranking: RankingInput::Fused(fused()),
        chunks_only: Some(RankingInput::Fused(chunks_only_fused())),
        rerank: RerankInput::Failed {
            reranker: "fixed".into(),
            error: "model file missing".into(),
        },
        side_scores: Vec::new(),
    };
    let tokens = |_: ChunkId| 1;
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let settings = QuerySettings {
        m: 2,
        budget: 3,
        ..QuerySettings::default()
    };
    let Ok(trace) = replan(&input, &settings, &lookups) else {
        panic!("valid settings rejected");
    };
    let Some(run) = trace.without_seams.retrieval.as_ref() else {
        panic!("the chunks-only run is missing");
    };
    assert!(matches!(run.rerank, RerankStatus::Failed { .. }));
    assert_eq!(run.fill.chunks, ids(&[1, 7, 2]));
}
