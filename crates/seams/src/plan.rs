//! The plan: the ranking the budget fill walks, after the fire test and the optional reranker.
//!
//! Every fused entry appears exactly once in the plan, so plan positions match fused positions.
//! Three kinds of entry stay exactly where fusion put them:
//! - a fired seam, which brings its two linked chunks in at that position;
//! - a seam that did not fire, kept only so the trace can show it was dropped (it takes nothing);
//! - a chunk's own entry when a fired seam also links it. Such a chunk is pinned at the seam's
//!   position and never judged by the reranker; its own entry holds its fused place, so a budget
//!   fill that had no room for the seam's pair can still take it on its own merit, exactly as it
//!   would with no reranker.
//!
//! All other chunks are ordinary. With no reranker they keep the fused order. With reranker scores,
//! the candidates (the first `n` ordinary chunks) are sorted by score, best first (ties keep fused
//! order; a NaN score sorts last), candidates without a score follow in fused order, then the
//! remaining ordinary chunks in fused order; that sequence fills the ordinary positions in order.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::fire::FireDecision;
use super::fuse::FusedEntry;
use super::list::EntryRef;
use super::rerank::{RerankScores, RerankStatus, pinned_chunks, rerank_candidates};
use super::side::{Side, SideDrop};
use crate::ChunkId;
use crate::SeamId;

/// How a chunk came to hold its plan position.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "placement", rename_all = "snake_case")]
pub enum ChunkPlacement {
    /// Kept its fused position (no reranker, or not among the reranker's candidates).
    Fused,
    /// Placed by the reranker's order.
    Reranked {
        /// The reranker's score.
        score: f32,
        /// 1-based rank among the scored candidates.
        rerank_rank: usize,
    },
    /// A reranker candidate that had no score; placed after the scored ones, in fused order.
    Unscored,
    /// A chunk a fired seam also brings in: never reranked, held at its own fused position.
    LinkedByFiredSeam {
        /// The first fired seam that links it.
        seam: SeamId,
    },
}

/// What one plan position holds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlanItem {
    /// A seam that fired: its linked chunks are pinned here, left then right.
    FiredSeam {
        /// The seam.
        seam: SeamId,
        /// The chunk before its cut.
        left: ChunkId,
        /// The chunk after its cut.
        right: ChunkId,
        /// The side side drop left out, if any: only the other chunk is added.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dropped: Option<Side>,
    },
    /// A seam that did not fire: dropped, it takes no slot.
    DroppedSeam {
        /// The seam.
        seam: SeamId,
    },
    /// A chunk added where it stands, if there is room and it is not already in.
    Chunk {
        /// The chunk.
        chunk: ChunkId,
        /// How it got this position.
        placement: ChunkPlacement,
    },
}

impl PlanItem {
    /// The chunk or seam this item is.
    pub fn entry(&self) -> EntryRef {
        match *self {
            PlanItem::FiredSeam { seam, .. } | PlanItem::DroppedSeam { seam } => {
                EntryRef::Seam(seam)
            }
            PlanItem::Chunk { chunk, .. } => EntryRef::Chunk(chunk),
        }
    }
}

/// One position of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlanEntry {
    /// 1-based position in the plan.
    pub position: usize,
    /// 1-based position of this entry in the fused ranking.
    pub fused_position: usize,
    /// What the position holds.
    pub item: PlanItem,
}

/// The ranking the budget fill walks, with the rerank stage's status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Positions in order, 1 first.
    pub entries: Vec<PlanEntry>,
    /// What the rerank stage did.
    pub rerank: RerankStatus,
}

impl Plan {
    /// The plan with no reranker: the fused order, seams marked fired or dropped.
    pub fn fused_order(fused: &[FusedEntry], decisions: &[FireDecision]) -> Self {
        apply_rerank(fused, decisions, None, 0)
    }

    /// A plan for a ranking of chunks only (a "without Seams" baseline); any seam in it is dropped.
    pub fn chunks_only(fused: &[FusedEntry]) -> Self {
        apply_rerank(fused, &[], None, 0)
    }

    /// Mark the fired seams that side drop leaves with one chunk.
    pub fn apply_side_drops(&mut self, drops: &[SideDrop]) {
        for entry in &mut self.entries {
            if let PlanItem::FiredSeam { seam, dropped, .. } = &mut entry.item
                && let Some(d) = drops.iter().find(|d| d.seam == *seam)
            {
                *dropped = Some(d.dropped);
            }
        }
    }

    /// Record that the reranker failed and the fused order was kept.
    pub fn mark_rerank_failed(&mut self, reranker: &str, error: &str) {
        self.rerank = RerankStatus::Failed {
            reranker: reranker.to_string(),
            error: error.to_string(),
        };
    }
}

/// Build the plan from the fused ranking, its fire decisions and optional reranker scores.
///
/// `n` is how many ordinary chunks the reranker judges (ignored when `rerank` is `None`). A seam
/// with no matching decision (same seam at the same position) is treated as not fired.
pub fn apply_rerank(
    fused: &[FusedEntry],
    decisions: &[FireDecision],
    rerank: Option<&RerankScores>,
    n: usize,
) -> Plan {
    let by_position: HashMap<usize, &FireDecision> =
        decisions.iter().map(|d| (d.seam_position, d)).collect();
    let pinned = pinned_chunks(decisions);

    // Fixed items by position; ordinary chunks leave a hole to be filled in order.
    let mut slots: Vec<Option<PlanItem>> = Vec::with_capacity(fused.len());
    let mut ordinary: Vec<(usize, ChunkId)> = Vec::new();
    for (i, entry) in fused.iter().enumerate() {
        let item = match entry.entry {
            EntryRef::Seam(seam) => match by_position.get(&(i + 1)) {
                Some(d) if d.seam == seam && d.fires => Some(PlanItem::FiredSeam {
                    seam,
                    left: d.left.chunk,
                    right: d.right.chunk,
                    dropped: None,
                }),
                _ => Some(PlanItem::DroppedSeam { seam }),
            },
            EntryRef::Chunk(chunk) => match pinned.get(&chunk) {
                Some(&seam) => Some(PlanItem::Chunk {
                    chunk,
                    placement: ChunkPlacement::LinkedByFiredSeam { seam },
                }),
                None => {
                    ordinary.push((i + 1, chunk));
                    None
                }
            },
        };
        slots.push(item);
    }

    let (order, rerank_status) = match rerank {
        None => (
            ordinary
                .iter()
                .map(|&(pos, chunk)| (pos, chunk, ChunkPlacement::Fused))
                .collect::<Vec<_>>(),
            RerankStatus::NotConfigured,
        ),
        Some(scores) => reranked_order(fused, decisions, &ordinary, scores, n),
    };

    let mut order = order.into_iter();
    let entries = slots
        .into_iter()
        .enumerate()
        .filter_map(|(i, slot)| {
            let (fused_position, item) = match slot {
                Some(item) => (i + 1, item),
                None => {
                    let (pos, chunk, placement) = order.next()?;
                    (pos, PlanItem::Chunk { chunk, placement })
                }
            };
            Some(PlanEntry {
                position: i + 1,
                fused_position,
                item,
            })
        })
        .collect();
    Plan {
        entries,
        rerank: rerank_status,
    }
}

/// The ordinary chunks in reranked order, each with its fused position and placement.
fn reranked_order(
    fused: &[FusedEntry],
    decisions: &[FireDecision],
    ordinary: &[(usize, ChunkId)],
    scores: &RerankScores,
    n: usize,
) -> (Vec<(usize, ChunkId, ChunkPlacement)>, RerankStatus) {
    let candidates = rerank_candidates(fused, decisions, n);
    // Each candidate's first ordinary occurrence moves; any later occurrence stays in fused order.
    let mut taken: Vec<ChunkId> = Vec::new();
    let mut scored: Vec<(usize, ChunkId, f32)> = Vec::new();
    let mut unscored: Vec<(usize, ChunkId)> = Vec::new();
    let mut rest: Vec<(usize, ChunkId, ChunkPlacement)> = Vec::new();
    for &(pos, chunk) in ordinary {
        if candidates.contains(&chunk) && !taken.contains(&chunk) {
            taken.push(chunk);
            match scores.score_of(chunk) {
                Some(score) => scored.push((pos, chunk, score)),
                None => unscored.push((pos, chunk)),
            }
        } else {
            rest.push((pos, chunk, ChunkPlacement::Fused));
        }
    }
    let sort_key = |score: f32| {
        if score.is_nan() {
            f32::NEG_INFINITY
        } else {
            score
        }
    };
    // Stable sort: equal scores keep fused order.
    scored.sort_by(|a, b| sort_key(b.2).total_cmp(&sort_key(a.2)));

    let status = RerankStatus::Applied {
        reranker: scores.reranker.clone(),
        candidates: candidates.len(),
        unscored: unscored.iter().map(|&(_, c)| c).collect(),
    };
    let order = scored
        .into_iter()
        .enumerate()
        .map(|(i, (pos, chunk, score))| {
            let placement = ChunkPlacement::Reranked {
                score,
                rerank_rank: i + 1,
            };
            (pos, chunk, placement)
        })
        .chain(
            unscored
                .into_iter()
                .map(|(pos, chunk)| (pos, chunk, ChunkPlacement::Unscored)),
        )
        .chain(rest)
        .collect();
    (order, status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fire::fire_test;

    fn links(seam: SeamId) -> (ChunkId, ChunkId) {
        (ChunkId(seam.0 / 100), ChunkId(seam.0 % 100))
    }

    fn c(i: u32) -> EntryRef {
        EntryRef::Chunk(ChunkId(i))
    }

    fn s(i: u32) -> EntryRef {
        EntryRef::Seam(SeamId(i))
    }

    fn entries(plan: &Plan) -> Vec<EntryRef> {
        plan.entries.iter().map(|e| e.item.entry()).collect()
    }

    #[test]
    fn retrieve_plan_without_reranker_keeps_fused_order() {
        let fused: Vec<FusedEntry> = [s(708), c(1), c(7), s(102), c(4), c(8)]
            .into_iter()
            .map(FusedEntry::given)
            .collect();
        let decisions = fire_test(&fused, &links, 1);
        let plan = Plan::fused_order(&fused, &decisions);
        assert_eq!(plan.rerank, RerankStatus::NotConfigured);
        assert_eq!(entries(&plan), vec![s(708), c(1), c(7), s(102), c(4), c(8)]);
        assert!(plan.entries.iter().all(|e| e.position == e.fused_position));
        assert_eq!(
            plan.entries[0].item,
            PlanItem::FiredSeam {
                seam: SeamId(708),
                left: ChunkId(7),
                right: ChunkId(8),
                dropped: None,
            }
        );
        assert_eq!(
            plan.entries[2].item,
            PlanItem::Chunk {
                chunk: ChunkId(7),
                placement: ChunkPlacement::LinkedByFiredSeam { seam: SeamId(708) }
            }
        );
        assert_eq!(
            plan.entries[3].item,
            PlanItem::DroppedSeam { seam: SeamId(102) }
        );
    }

    #[test]
    fn retrieve_plan_nan_scores_sort_last_and_unscored_follow_scored() {
        let fused: Vec<FusedEntry> = [c(1), c(2), c(3), c(4)]
            .into_iter()
            .map(FusedEntry::given)
            .collect();
        let scores = RerankScores {
            reranker: "fixed".into(),
            scores: vec![(ChunkId(1), f32::NAN), (ChunkId(2), 0.1), (ChunkId(4), 0.9)],
        };
        let plan = apply_rerank(&fused, &[], Some(&scores), 3);
        // Candidates 1, 2, 3 (n = 3): 2 scored 0.1, 1 NaN (last among scored), 3 unscored,
        // then 4 (not a candidate: its score is ignored) in fused order.
        assert_eq!(entries(&plan), vec![c(2), c(1), c(3), c(4)]);
        assert_eq!(
            plan.rerank,
            RerankStatus::Applied {
                reranker: "fixed".into(),
                candidates: 3,
                unscored: vec![ChunkId(3)],
            }
        );
        assert_eq!(
            plan.entries[2].item,
            PlanItem::Chunk {
                chunk: ChunkId(3),
                placement: ChunkPlacement::Unscored
            }
        );
        assert_eq!(plan.entries[0].fused_position, 2);
    }
}
