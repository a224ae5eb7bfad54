//! `replan` from search lists: fusion, depth, tokens sent, the real chunks-only baseline, and
//! settings errors.

use seamscope::chunk::ChunkId;
use seamscope::retrieve::{
    Baseline, EntryRef, ListSource, Lookups, QueryInput, QuerySettings, QuerySettingsError,
    RankedList, RankingInput, RerankInput, replan,
};
use seamscope::seam::SeamId;

fn links(seam: SeamId) -> (ChunkId, ChunkId) {
    (ChunkId(seam.0 / 100), ChunkId(seam.0 % 100))
}

fn tokens(chunk: ChunkId) -> u32 {
    1000 + chunk.0
}

fn c(i: u32) -> EntryRef {
    EntryRef::Chunk(ChunkId(i))
}

fn s(i: u32) -> EntryRef {
    EntryRef::Seam(SeamId(i))
}

fn ids(v: &[u32]) -> Vec<ChunkId> {
    v.iter().copied().map(ChunkId).collect()
}

fn input() -> QueryInput {
    QueryInput {
        question: "where is the cut?".into(),
        ranking: RankingInput::Lists(vec![
            RankedList::from_entries(ListSource::Dense, [s(304), c(1), c(2), c(3), c(5), c(4)]),
            RankedList::from_entries(ListSource::KeywordChunks, [c(1), c(2), c(5), c(3)]),
            RankedList::from_entries(ListSource::KeywordSeams, [s(304), s(102)]),
        ]),
        chunks_only: Some(RankingInput::Lists(vec![
            RankedList::from_entries(ListSource::Dense, [c(1), c(2), c(5), c(3), c(4)]),
            RankedList::from_entries(ListSource::KeywordChunks, [c(1), c(2), c(5), c(3)]),
        ])),
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    }
}

#[test]
fn retrieve_trace_replan_from_lists() {
    // c = 60. seam 3|4: dense 1 + seams 1 = 2/61; chunk 1: dense 2 + bm25 1 = 1/61 + 1/62;
    // chunk 2: 3 + 2 -> 1/62 + 1/63; chunk 3: 4 + 4 -> 2/64; chunk 5: 5 + 3 -> 1/63 + 1/65;
    // seam 1|2: seams 2 -> 1/62; chunk 4: dense 6 -> 1/66.
    // Fused: 1 seam 3|4, 2 chunk 1, 3 chunk 2, 4 chunk 5, 5 chunk 3, 6 seam 1|2, 7 chunk 4.
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let settings = QuerySettings {
        m: 4,
        budget: 3,
        ..QuerySettings::default()
    };
    let Ok(trace) = replan(&input(), &settings, &lookups) else {
        panic!("valid settings rejected");
    };
    let order: Vec<EntryRef> = trace.fused.iter().map(|e| e.entry).collect();
    assert_eq!(order, vec![s(304), c(1), c(2), c(5), c(3), s(102), c(4)]);
    // Seam 3|4: 1 + 4 = 5 ≤ 5 (chunk 3) and ≤ 7 (chunk 4): fires.
    assert_eq!(
        trace.decisions[0].arithmetic(),
        "1 + 4 = 5 ≤ 5 (chunk 3) and ≤ 7 (chunk 4): fires"
    );
    assert_eq!(trace.fill.chunks, ids(&[3, 4, 1]));
    assert_eq!(trace.tokens_sent, 1003 + 1004 + 1001);
    assert_eq!(trace.context.len(), 3);

    let Some(real) = &trace.without_seams.retrieval else {
        panic!("the chunks-only baseline was given");
    };
    assert_eq!(real.comparison.baseline, Baseline::ChunksOnlyRetrieval);
    assert_eq!(real.fill.chunks, ids(&[1, 2, 5]));
    assert_eq!(real.comparison.added, ids(&[3, 4]));
    assert_eq!(real.comparison.displaced, ids(&[2, 5]));
    assert_eq!(
        trace.without_seams.seams_removed.without_seams,
        ids(&[1, 2, 5])
    );

    // Budget 0: an empty, well-defined result.
    let Ok(empty) = trace.replan(
        &QuerySettings {
            budget: 0,
            ..settings
        },
        &lookups,
    ) else {
        panic!("budget 0 is valid");
    };
    assert!(empty.fill.steps.is_empty() && empty.context.is_empty());
    assert_eq!(empty.tokens_sent, 0);
}

#[test]
fn retrieve_trace_depth_cuts_cached_lists() {
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let settings = QuerySettings {
        depth: 1,
        m: 3,
        ..QuerySettings::default()
    };
    let Ok(trace) = replan(&input(), &settings, &lookups) else {
        panic!("valid settings rejected");
    };
    // Only rank 1 of each list: seam 3|4 (dense, bm25 seams) and chunk 1 (bm25 chunks).
    let order: Vec<EntryRef> = trace.fused.iter().map(|e| e.entry).collect();
    assert_eq!(order, vec![s(304), c(1)]);
    // Both of seam 3|4's chunks are absent and count as 3; with m = 3, 1 + 3 = 4 > 3: no fire.
    assert!(!trace.decisions[0].fires);
}

#[test]
fn retrieve_trace_rejects_bad_settings() {
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let zero_depth = QuerySettings {
        depth: 0,
        ..QuerySettings::default()
    };
    let result = replan(&input(), &zero_depth, &lookups).map(|_| ());
    assert_eq!(result, Err(QuerySettingsError::ZeroDepth));
    let bad_c = QuerySettings {
        rrf_c: -1.0,
        ..QuerySettings::default()
    };
    let result = replan(&input(), &bad_c, &lookups).map(|_| ());
    assert_eq!(result, Err(QuerySettingsError::InvalidRrfC(-1.0)));
}
