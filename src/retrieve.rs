//! Retrieval after search: fuse the ranked lists, run the fire test, rerank around fired seams,
//! fill the budget, and record it all in a [`Trace`].
//!
//! Every stage here is a pure function over plain data: no I/O, no model, no printing. Search
//! (dense and BM25) lives in the index modules and the reranker model behind the [`Reranker`]
//! trait; what they return is cached in a [`QueryInput`], and [`replan`] recomputes the rest in
//! microseconds whenever `m`, the budget or `c` changes.
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
//! The white paper's worked example, end to end:
//!
//! ```
//! use seamscope::chunk::ChunkId;
//! use seamscope::retrieve::{
//!     fill_budget, fire_test, EntryRef, FusedEntry, Plan,
//! };
//! use seamscope::seam::SeamId;
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

pub use budget::{BudgetAction, BudgetFill, BudgetStep, DEFAULT_BUDGET, fill_budget};
pub use compare::{
    Baseline, ChunksOnlyRun, Comparison, WithoutSeams, chunks_only, fill_chunks_only,
};
pub use explain::{LinkedChunkFate, SeamExplanation, SeamFill};
pub use fire::{FireDecision, LinkedChunk, absent_position, fire_test};
pub use fuse::{DEFAULT_RRF_C, FusedEntry, ListRank, fuse, position_of, rrf_score};
pub use list::{EntryRef, Hit, ListSource, RankedList};
pub use plan::{ChunkPlacement, Plan, PlanEntry, PlanItem, apply_rerank};
pub use rerank::{
    DEFAULT_RERANK_CANDIDATES, RerankError, RerankScores, RerankStatus, Reranker, pinned_chunks,
    rerank_candidates, score_candidates,
};
pub use settings::{DEFAULT_DEPTH, DEFAULT_K, DEFAULT_M, QuerySettings, QuerySettingsError};
pub use side::{DEFAULT_SIDE_DROP, SIDE_SCORE_DEPTH, Side, SideDrop, SideScores, side_drops};
pub use trace::{ContextChunk, Lookups, QueryInput, RankingInput, RerankInput, Trace, replan};
