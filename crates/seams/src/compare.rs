//! "Without Seams": what the same budget would hold with chunks alone, and what Seams changed.
//!
//! Two baselines exist and each is labelled, because they answer different questions:
//! - [`Baseline::ChunksOnlyRetrieval`], the honest one: a separate retrieval over chunks only
//!   (dense over chunks, BM25 over chunks, fused), filled to the same budget. This is what a user
//!   without Seams would actually get.
//! - [`Baseline::SeamsRemoved`]: the Seams fused ranking with its seams deleted. Deleting seams after
//!   fusion shifts the chunk order, so it tends to flatter Seams; it is still what the white paper's
//!   worked example compares against ("chunk 15 is displaced"), because that example starts from a
//!   given fused ranking.

use serde::{Deserialize, Serialize};

use super::budget::{BudgetFill, fill_budget};
use super::fuse::FusedEntry;
use super::plan::Plan;
use super::rerank::RerankStatus;
use crate::ChunkId;

/// Which "without Seams" result a comparison is against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    /// A real chunks-only retrieval, fused and filled to the same budget.
    ChunksOnlyRetrieval,
    /// The Seams fused ranking with its seams deleted, cut to the budget.
    SeamsRemoved,
}

impl Baseline {
    /// A label for the screen and the JSON trace.
    pub fn label(self) -> &'static str {
        match self {
            Baseline::ChunksOnlyRetrieval => "without Seams (chunks-only retrieval)",
            Baseline::SeamsRemoved => "without Seams (seams deleted from this ranking)",
        }
    }
}

/// The context with Seams against a baseline's context, under the same budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Which baseline this is.
    pub baseline: Baseline,
    /// Context chunks with Seams, in fill order.
    pub with_seams: Vec<ChunkId>,
    /// Context chunks of the baseline, in its order.
    pub without_seams: Vec<ChunkId>,
    /// Chunks Seams brought in that the baseline lacks, in `with_seams` order.
    pub added: Vec<ChunkId>,
    /// Baseline chunks that Seams pushed out, in `without_seams` order.
    pub displaced: Vec<ChunkId>,
}

impl Comparison {
    /// Compare two contexts; `added` and `displaced` are set differences in list order.
    pub fn new(baseline: Baseline, with_seams: Vec<ChunkId>, without_seams: Vec<ChunkId>) -> Self {
        let added = with_seams
            .iter()
            .copied()
            .filter(|c| !without_seams.contains(c))
            .collect();
        let displaced = without_seams
            .iter()
            .copied()
            .filter(|c| !with_seams.contains(c))
            .collect();
        Self {
            baseline,
            with_seams,
            without_seams,
            added,
            displaced,
        }
    }
}

/// The chunks of a fused ranking in order, seams removed (each chunk once, at its first place).
pub fn chunks_only(fused: &[FusedEntry]) -> Vec<ChunkId> {
    let mut out: Vec<ChunkId> = Vec::new();
    for chunk in fused.iter().filter_map(|e| e.entry.chunk()) {
        if !out.contains(&chunk) {
            out.push(chunk);
        }
    }
    out
}

/// The budget filled from a chunks-only fused ranking (the real baseline); seams in it are dropped.
///
/// ```
/// use seams::{fill_chunks_only, ChunkId, EntryRef, FusedEntry, SeamId};
/// let entries = [EntryRef::Seam(SeamId(0)), EntryRef::Chunk(ChunkId(3)), EntryRef::Chunk(ChunkId(8))];
/// let fused: Vec<FusedEntry> = entries.into_iter().map(FusedEntry::given).collect();
/// assert_eq!(fill_chunks_only(&fused, 5).chunks, [ChunkId(3), ChunkId(8)]);
/// ```
pub fn fill_chunks_only(chunks_fused: &[FusedEntry], budget: usize) -> BudgetFill {
    fill_budget(&Plan::chunks_only(chunks_fused), budget)
}

/// The real baseline as run: its fused ranking, its budget fill and the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunksOnlyRun {
    /// The chunks-only fused ranking.
    pub fused: Vec<FusedEntry>,
    /// What the reranker did to this side (the same scores as the Seams side, over its own
    /// first chunks).
    #[serde(default = "not_configured")]
    pub rerank: RerankStatus,
    /// Its budget fill.
    pub fill: BudgetFill,
    /// The Seams context against it.
    pub comparison: Comparison,
}

fn not_configured() -> RerankStatus {
    RerankStatus::NotConfigured
}

/// Both "without Seams" views of one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WithoutSeams {
    /// The real chunks-only retrieval, when the caller ran it.
    pub retrieval: Option<ChunksOnlyRun>,
    /// The Seams ranking with its seams deleted, cut to the budget.
    pub seams_removed: Comparison,
}

impl WithoutSeams {
    /// The comparison to show: the real chunks-only retrieval when it ran, else the Seams
    /// ranking with its seams deleted (labelled by its [`Baseline`]).
    pub fn shown(&self) -> &Comparison {
        match &self.retrieval {
            Some(run) => &run.comparison,
            None => &self.seams_removed,
        }
    }

    /// Build both views from the Seams ranking, its context and an optional chunks-only ranking
    /// with the plan its budget fill walks ([`Plan::chunks_only`], or a reranked one).
    pub fn build(
        fused: &[FusedEntry],
        with_seams: &[ChunkId],
        chunks_only_run: Option<(Vec<FusedEntry>, Plan)>,
        budget: usize,
    ) -> Self {
        let removed: Vec<ChunkId> = chunks_only(fused).into_iter().take(budget).collect();
        let seams_removed = Comparison::new(Baseline::SeamsRemoved, with_seams.to_vec(), removed);
        let retrieval = chunks_only_run.map(|(chunks_fused, plan)| {
            let fill = fill_budget(&plan, budget);
            let comparison = Comparison::new(
                Baseline::ChunksOnlyRetrieval,
                with_seams.to_vec(),
                fill.chunks.clone(),
            );
            ChunksOnlyRun {
                fused: chunks_fused,
                rerank: plan.rerank,
                fill,
                comparison,
            }
        });
        Self {
            retrieval,
            seams_removed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeamId;
    use crate::list::EntryRef;

    fn ids(v: &[u32]) -> Vec<ChunkId> {
        v.iter().copied().map(ChunkId).collect()
    }

    #[test]
    fn retrieve_compare_added_and_displaced_are_ordered_differences() {
        let cmp = Comparison::new(
            Baseline::SeamsRemoved,
            ids(&[7, 8, 12, 3]),
            ids(&[12, 7, 3, 15]),
        );
        assert_eq!(cmp.added, ids(&[8]));
        assert_eq!(cmp.displaced, ids(&[15]));
    }

    #[test]
    fn retrieve_compare_chunks_only_removes_seams_and_repeats() {
        let fused: Vec<FusedEntry> = [
            EntryRef::Seam(SeamId(1)),
            EntryRef::Chunk(ChunkId(4)),
            EntryRef::Chunk(ChunkId(2)),
            EntryRef::Chunk(ChunkId(4)),
        ]
        .into_iter()
        .map(FusedEntry::given)
        .collect();
        assert_eq!(chunks_only(&fused), ids(&[4, 2]));
        let fill = fill_chunks_only(&fused, 5);
        assert_eq!(fill.chunks, ids(&[4, 2]));
    }

    #[test]
    fn retrieve_compare_real_baseline_uses_its_own_ranking() {
        let seams_fused: Vec<FusedEntry> =
            [EntryRef::Chunk(ChunkId(1)), EntryRef::Chunk(ChunkId(2))]
                .into_iter()
                .map(FusedEntry::given)
                .collect();
        let chunks_fused: Vec<FusedEntry> =
            [EntryRef::Chunk(ChunkId(3)), EntryRef::Chunk(ChunkId(1))]
                .into_iter()
                .map(FusedEntry::given)
                .collect();
        let plan = Plan::chunks_only(&chunks_fused);
        let without =
            WithoutSeams::build(&seams_fused, &ids(&[1, 2]), Some((chunks_fused, plan)), 2);
        let run = without.retrieval.as_ref().map(|r| r.comparison.clone());
        assert_eq!(
            run,
            Some(Comparison::new(
                Baseline::ChunksOnlyRetrieval,
                ids(&[1, 2]),
                ids(&[3, 1])
            ))
        );
        assert!(without.seams_removed.displaced.is_empty());
    }
}
