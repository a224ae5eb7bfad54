//! Seams, the retrieval stage after search: fuse ranked lists, run the fire test, rerank around
//! fired seams, drop a side, fill the budget, and record it all in a [`Trace`].
//!
//! A *seam* is one small search entry over the cut between two adjacent chunks, linked to both. It
//! is searched like a chunk but never returned: when it clearly outranks both of its chunks (the
//! fire test, `pos(seam) + m ≤ pos(left)` and `≤ pos(right)`), the budget fill brings both chunks
//! in together at the seam's place, so a fact split by the cut arrives whole.
//!
//! Every stage here is a pure function over plain data: ranked lists of [`ChunkId`]s and
//! [`SeamId`]s in, decisions out, with the seam links supplied by the caller as a function. No
//! I/O, no model, no printing, and nothing tied to one search engine: any pipeline that can rank
//! its chunks and seams (a vector store, BM25, a hosted search API) can apply the stage to its own
//! rankings. The reranker model sits behind the [`Reranker`] trait; what search returned is
//! cached in a [`QueryInput`], and [`replan`] recomputes the rest in microseconds whenever `m`,
//! the budget or `c` changes. Every value is `serde`-serialisable, in the same JSON shape as
//! `seamscope query --json` writes.
//!
//! Stages, one file each:
//! - [`list`]: entries and ranked lists, ranks 1-based;
//! - [`fuse`](mod@fuse): reciprocal rank fusion, with deterministic ties;
//! - [`fire`]: the fire test, `pos(seam) + m ≤ pos(left)` and `≤ pos(right)`;
//! - [`rerank`]: which chunks a reranker may judge, and the call to it;
//! - [`plan`]: the ranking the budget fill walks (fired seams and their chunks pinned);
//! - [`side`]: side drop, a fired seam bringing only the chunk whose half matches the question;
//! - [`budget`]: the budget fill, strictly in rank order;
//! - [`compare`]: the "without Seams" baselines;
//! - [`explain`]: one seam's fire test, fill step and contexts, in words;
//! - [`settings`] and [`trace`]: the knobs, the record, and `replan`.
//!
//! # From your own rankings
//!
//! Three searches (dense over chunks and seams together, BM25 over chunks, BM25 over seams),
//! fused, tested and filled to a budget of three chunks. Seam 0 joins chunks 1 and 2:
//!
//! ```
//! use seams::{
//!     fill_budget, fire_test, fuse, ChunkId, EntryRef, ListSource, Plan, RankedList, SeamId,
//! };
//!
//! let chunk = |i| EntryRef::Chunk(ChunkId(i));
//! let seam = |i| EntryRef::Seam(SeamId(i));
//! let lists = [
//!     RankedList::from_entries(ListSource::Dense, [seam(0), chunk(4), chunk(1), chunk(2)]),
//!     RankedList::from_entries(ListSource::KeywordChunks, [chunk(1), chunk(4), chunk(9)]),
//!     RankedList::from_entries(ListSource::KeywordSeams, [seam(0)]),
//! ];
//! let fused = fuse(&lists, 60.0);
//! let order: Vec<String> = fused.iter().map(|e| e.entry.to_string()).collect();
//! assert_eq!(order, ["seam 0", "chunk 1", "chunk 4", "chunk 9", "chunk 2"]);
//! assert_eq!(fused[1].rrf_arithmetic(60.0), "1/(60+1) + 1/(60+3) = 0.03227");
//!
//! let links = |s: SeamId| match s.0 {
//!     0 => (ChunkId(1), ChunkId(2)),
//!     other => panic!("no seam {other}"),
//! };
//! let decisions = fire_test(&fused, &links, 1);
//! assert_eq!(decisions[0].arithmetic(), "1 + 1 = 2 ≤ 2 (chunk 1) and ≤ 5 (chunk 2): fires");
//!
//! let fill = fill_budget(&Plan::fused_order(&fused, &decisions), 3);
//! assert_eq!(fill.chunks, [ChunkId(1), ChunkId(2), ChunkId(4)]);
//! ```
//!
//! # The white paper's worked example
//!
//! Section 3.2 starts from a given fused ranking: seam 7|8 fires, seam 12|13 does not (chunk 13 is
//! absent and counts as last), and a budget of five holds chunks 7, 8, 12, 3 and 20.
//!
//! ```
//! use seams::{fill_budget, fire_test, ChunkId, EntryRef, FusedEntry, Plan, SeamId};
//!
//! let c = |i| FusedEntry::given(EntryRef::Chunk(ChunkId(i)));
//! let s = |i| FusedEntry::given(EntryRef::Seam(SeamId(i)));
//! // Seam 78 joins chunks 7 and 8; seam 1213 joins chunks 12 and 13.
//! let links = |seam: SeamId| match seam.0 {
//!     78 => (ChunkId(7), ChunkId(8)),
//!     _ => (ChunkId(12), ChunkId(13)),
//! };
//! let fused = vec![
//!     s(78), c(12), s(1213), c(7), c(3), c(20), c(15), c(30), c(31), c(32), c(8),
//! ];
//! let decisions = fire_test(&fused, &links, 3);
//! assert_eq!(decisions[0].arithmetic(), "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires");
//! assert_eq!(decisions[1].arithmetic(), "3 + 3 = 6 > 2 (chunk 12): does not fire");
//! let fill = fill_budget(&Plan::fused_order(&fused, &decisions), 5);
//! let ids: Vec<u32> = fill.chunks.iter().map(|c| c.0).collect();
//! assert_eq!(ids, vec![7, 8, 12, 3, 20]);
//! ```
//!
//! # The whole stage at once
//!
//! [`replan`] runs every stage from a [`QueryInput`] under [`QuerySettings`], with the corpus facts
//! in [`Lookups`], and returns the [`Trace`]:
//!
//! ```
//! use seams::{
//!     replan, ChunkId, EntryRef, ListSource, Lookups, QueryInput, QuerySettings, RankedList,
//!     RankingInput, RerankInput, SeamId,
//! };
//!
//! let chunk = |i| EntryRef::Chunk(ChunkId(i));
//! let input = QueryInput {
//!     question: "Why are stale reads allowed?".to_string(),
//!     ranking: RankingInput::Lists(vec![
//!         RankedList::from_entries(ListSource::Dense, [EntryRef::Seam(SeamId(0)), chunk(1)]),
//!         RankedList::from_entries(ListSource::KeywordChunks, [chunk(1), chunk(3)]),
//!     ]),
//!     chunks_only: None,
//!     rerank: RerankInput::NotConfigured,
//!     side_scores: Vec::new(),
//! };
//! let links = |_: SeamId| (ChunkId(1), ChunkId(2));
//! let tokens = |_: ChunkId| 100;
//! let settings = QuerySettings { m: 0, budget: 2, ..QuerySettings::default() };
//! let trace = replan(&input, &settings, &Lookups { links: &links, tokens: &tokens })?;
//! // Chunk 1 (in both lists) leads; the seam, second, does not outrank it and is dropped.
//! assert_eq!(trace.fill.chunks, [ChunkId(1), ChunkId(3)]);
//! assert_eq!(trace.tokens_sent, 200);
//! # Ok::<(), seams::QuerySettingsError>(())
//! ```

pub mod budget;
pub mod compare;
pub mod explain;
pub mod fire;
pub mod fuse;
pub mod list;
pub mod plan;
pub mod rerank;
pub mod settings;
pub mod side;
pub mod trace;

mod ids;

pub use budget::{BudgetAction, BudgetFill, BudgetStep, DEFAULT_BUDGET, fill_budget};
pub use compare::{
    Baseline, ChunksOnlyRun, Comparison, WithoutSeams, chunks_only, fill_chunks_only,
};
pub use explain::{LinkedChunkFate, SeamExplanation, SeamFill};
pub use fire::{FireDecision, LinkedChunk, absent_position, fire_test};
pub use fuse::{DEFAULT_RRF_C, FusedEntry, ListRank, fuse, position_of, rrf_score};
pub use ids::{ChunkId, SeamId};
pub use list::{EntryRef, Hit, ListSource, RankedList};
pub use plan::{ChunkPlacement, Plan, PlanEntry, PlanItem, apply_rerank};
pub use rerank::{
    DEFAULT_RERANK_CANDIDATES, RerankError, RerankScores, RerankStatus, Reranker, pinned_chunks,
    rerank_candidates, score_candidates,
};
pub use settings::{DEFAULT_DEPTH, DEFAULT_K, DEFAULT_M, QuerySettings, QuerySettingsError};
pub use side::{DEFAULT_SIDE_DROP, SIDE_SCORE_DEPTH, Side, SideDrop, SideScores, side_drops};
pub use trace::{ContextChunk, Lookups, QueryInput, RankingInput, RerankInput, Trace, replan};

/// The README's example, run as a doctest so it cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
