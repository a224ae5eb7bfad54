//! From a strategy's ranked lists for one question to the units it sends: fuse, then the fire
//! test (Seams), window links (windows) or neighbours (neighbour expansion), then the budget fill.
//!
//! Pure: no model, no index. That is what lets a screen rescore a whole question set for a new
//! `m` or budget from lists searched once (see [`rescore`](super::rescore)).

use super::grid::GridSettings;
use super::strategy::{Pointer, Strategy, Unit};
use crate::chunk::ChunkId;
use crate::retrieve::{
    BudgetAction, ChunkPlacement, EntryRef, FusedEntry, Plan, PlanEntry, PlanItem, RankedList,
    RerankStatus, SideScores, fill_budget, fire_test, fuse, side_drops,
};
use crate::seam::SeamId;

/// What one strategy returned for one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieved {
    /// Units in the context, in fill order.
    pub units: Vec<u32>,
    /// Pointers that fired (Seams) and the units each added.
    pub fired: Vec<(u32, Vec<u32>)>,
    /// Fired pointers side drop left with one unit: (pointer, the unit not brought).
    pub dropped: Vec<(u32, u32)>,
}

/// The first and last unit a pointer leads to (the same unit twice for a one-unit pointer).
pub(super) fn ends(pointer: &Pointer) -> (ChunkId, ChunkId) {
    let first = pointer.links.first().copied().unwrap_or_default();
    let last = pointer.links.last().copied().unwrap_or(first);
    (ChunkId(first), ChunkId(last))
}

/// Select the units `strategy` sends for one question from its ranked `lists`.
///
/// `units` and `pointers` are the strategy's own (list entries index them: a chunk entry is a
/// unit, a seam entry a pointer); `sides` are Seams' half scores, used when `s.side_drop` is set.
pub fn select(
    strategy: Strategy,
    units: &[Unit],
    pointers: &[Pointer],
    lists: &[RankedList],
    sides: &[SideScores],
    s: &GridSettings,
) -> Retrieved {
    let fused = fuse(lists, s.rrf_c);
    let links = |seam: SeamId| {
        pointers
            .get(seam.0 as usize)
            .map_or((ChunkId(0), ChunkId(0)), ends)
    };
    let mut dropped = Vec::new();
    let plan = match strategy {
        Strategy::Seams { .. } => {
            let decisions = fire_test(&fused, &links, s.m);
            let mut plan = Plan::fused_order(&fused, &decisions);
            if let Some(threshold) = s.side_drop {
                let drops = side_drops(&decisions, sides, threshold);
                dropped = drops
                    .iter()
                    .map(|d| (d.seam.0, d.dropped_chunk.0))
                    .collect();
                plan.apply_side_drops(&drops);
            }
            plan
        }
        Strategy::Windows { .. } | Strategy::ChunkStrideWindows { .. } => {
            window_plan(&fused, pointers)
        }
        Strategy::NoOverlap | Strategy::Overlap { .. } => Plan::fused_order(&fused, &[]),
        Strategy::NeighbourExpansion => {
            return Retrieved {
                units: neighbour_fill(units, &fused, s.budget),
                fired: Vec::new(),
                dropped: Vec::new(),
            };
        }
    };
    let fill = fill_budget(&plan, s.budget);
    let fired: Vec<(u32, Vec<u32>)> = fill
        .steps
        .iter()
        .filter_map(|step| match (&step.action, step.entry) {
            (BudgetAction::AddedPair { added }, EntryRef::Seam(seam))
                if !added.is_empty() && matches!(strategy, Strategy::Seams { .. }) =>
            {
                Some((seam.0, added.iter().map(|c| c.0).collect()))
            }
            _ => None,
        })
        .collect();
    dropped.retain(|d| fired.iter().any(|f| f.0 == d.0));
    Retrieved {
        units: fill.chunks.iter().map(|c| c.0).collect(),
        fired,
        dropped,
    }
}

/// A window hit brings the chunks it overlaps, at its rank (no fire test). A window over more
/// than two chunks (wider than a chunk) brings the rest right after.
fn window_plan(fused: &[FusedEntry], pointers: &[Pointer]) -> Plan {
    let mut entries = Vec::new();
    for (i, e) in fused.iter().enumerate() {
        let chunk = |c: u32| PlanItem::Chunk {
            chunk: ChunkId(c),
            placement: ChunkPlacement::Fused,
        };
        let items = match e.entry {
            EntryRef::Chunk(c) => vec![chunk(c.0)],
            EntryRef::Seam(seam) => {
                let links = pointers
                    .get(seam.0 as usize)
                    .map_or(&[][..], |p| p.links.as_slice());
                match links {
                    [one] => vec![chunk(*one)],
                    [a, b, rest @ ..] => {
                        let mut v = vec![PlanItem::FiredSeam {
                            seam,
                            left: ChunkId(*a),
                            right: ChunkId(*b),
                            dropped: None,
                        }];
                        v.extend(rest.iter().map(|&c| chunk(c)));
                        v
                    }
                    [] => Vec::new(),
                }
            }
        };
        for item in items {
            entries.push(PlanEntry {
                position: entries.len() + 1,
                fused_position: i + 1,
                item,
            });
        }
    }
    Plan {
        entries,
        rerank: RerankStatus::NotConfigured,
    }
}

/// Chunks in fused order; each brings a same-document neighbour that ranks within `2 × budget`.
fn neighbour_fill(units: &[Unit], fused: &[FusedEntry], budget: usize) -> Vec<u32> {
    let position = |u: u32| {
        fused
            .iter()
            .position(|e| e.entry == EntryRef::Chunk(ChunkId(u)))
            .map(|i| i + 1)
    };
    let mut out: Vec<u32> = Vec::new();
    for e in fused {
        if out.len() >= budget {
            break;
        }
        let EntryRef::Chunk(c) = e.entry else {
            continue;
        };
        if !out.contains(&c.0) {
            out.push(c.0);
        }
        let Some(doc) = units.get(c.0 as usize).map(|u| u.doc) else {
            continue;
        };
        let mut neighbours: Vec<(usize, u32)> = [c.0.checked_sub(1), Some(c.0 + 1)]
            .into_iter()
            .flatten()
            .filter(|&n| units.get(n as usize).is_some_and(|u| u.doc == doc))
            .filter_map(|n| position(n).map(|pos| (pos, n)))
            .filter(|&(pos, _)| pos <= 2 * budget)
            .collect();
        neighbours.sort();
        for (_, n) in neighbours {
            if out.len() < budget && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}
