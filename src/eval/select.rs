//! From a strategy's ranked lists for one question to the units it sends: fuse, then the fire
//! test (Seams), window links (windows) or neighbours (neighbour expansion), then the budget fill.
//!
//! Pure: no model, no index. That is what lets a screen rescore a whole question set for a new
//! `m` or budget from lists searched once (see [`rescore`](super::rescore)).

use super::grid_settings::GridSettings;
use super::strategy::{Pointer, PointerId, Strategy, Unit, UnitId};
use crate::chunk::ChunkId;
use crate::retrieve::{
    BudgetAction, EntryRef, FusedEntry, Plan, RankedList, SideScores, fill_budget, fire_test, fuse,
    side_drops,
};
use crate::seam::SeamId;

// The boundary with the shared pure stages. A strategy's lists are built by the live index's
// own code (`index::search::lists_from_hits`) and fused by `retrieve::fuse`, where units take the
// place of chunks and pointers that of seams; these four functions are the only place the two
// vocabularies meet.

/// The unit a chunk entry of a strategy's lists stands for.
fn unit_of(c: ChunkId) -> UnitId {
    UnitId(c.0)
}

/// The pointer a seam entry of a strategy's lists stands for.
fn pointer_of(s: SeamId) -> PointerId {
    PointerId(s.0)
}

/// The chunk entry that stands for a unit in the pure stages.
fn chunk_of(u: UnitId) -> ChunkId {
    ChunkId(u.0)
}

/// What one strategy returned for one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieved {
    /// Units in the context, in fill order.
    pub units: Vec<UnitId>,
    /// Pointers that fired (Seams) and the units each added.
    pub fired: Vec<(PointerId, Vec<UnitId>)>,
    /// Fired pointers side drop left with one unit: (pointer, the unit not brought).
    pub dropped: Vec<(PointerId, UnitId)>,
}

/// The first and last unit a pointer leads to (the same unit twice for a one-unit pointer).
pub(super) fn ends(pointer: &Pointer) -> (UnitId, UnitId) {
    let first = pointer.links.first().copied().unwrap_or(UnitId(0));
    let last = pointer.links.last().copied().unwrap_or(first);
    (first, last)
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
    let plain = |units: Vec<UnitId>| Retrieved {
        units,
        fired: Vec::new(),
        dropped: Vec::new(),
    };
    let plan = match strategy {
        Strategy::Seams { .. }
        | Strategy::OverlapSeams { .. }
        | Strategy::LateSeams { .. }
        | Strategy::ContextualSeams { .. } => {
            return seams_fill(&fused, pointers, sides, s);
        }
        Strategy::Windows { .. } | Strategy::ChunkStrideWindows { .. } => {
            return plain(window_fill(&fused, pointers, s.budget));
        }
        Strategy::NeighbourExpansion => return plain(neighbour_fill(units, &fused, s.budget)),
        Strategy::NoOverlap
        | Strategy::Overlap { .. }
        | Strategy::LateChunks { .. }
        | Strategy::Contextual => Plan::fused_order(&fused, &[]),
    };
    plain(
        fill_budget(&plan, s.budget)
            .chunks
            .iter()
            .map(|&c| unit_of(c))
            .collect(),
    )
}

/// Seams: the fire test, optional side drop and the budget fill, exactly as a live query runs
/// them.
fn seams_fill(
    fused: &[FusedEntry],
    pointers: &[Pointer],
    sides: &[SideScores],
    s: &GridSettings,
) -> Retrieved {
    let links = |seam: SeamId| {
        let (first, last) = pointers
            .get(seam.0 as usize)
            .map_or((UnitId(0), UnitId(0)), ends);
        (chunk_of(first), chunk_of(last))
    };
    let decisions = fire_test(fused, &links, s.m);
    let mut plan = Plan::fused_order(fused, &decisions);
    let mut dropped: Vec<(PointerId, UnitId)> = Vec::new();
    if let Some(threshold) = s.side_drop {
        let drops = side_drops(&decisions, sides, threshold);
        dropped = drops
            .iter()
            .map(|d| (pointer_of(d.seam), unit_of(d.dropped_chunk)))
            .collect();
        plan.apply_side_drops(&drops);
    }
    let fill = fill_budget(&plan, s.budget);
    let fired: Vec<(PointerId, Vec<UnitId>)> = fill
        .steps
        .iter()
        .filter_map(|step| match (&step.action, step.entry) {
            (BudgetAction::AddedPair { added }, EntryRef::Seam(seam)) if !added.is_empty() => {
                Some((
                    pointer_of(seam),
                    added.iter().map(|&c| unit_of(c)).collect(),
                ))
            }
            _ => None,
        })
        .collect();
    dropped.retain(|d| fired.iter().any(|f| f.0 == d.0));
    Retrieved {
        units: fill.chunks.iter().map(|&c| unit_of(c)).collect(),
        fired,
        dropped,
    }
}

/// Windows: a window hit brings the units it overlaps, at its rank, with no fire test. Its
/// first two units come together or not at all (when they need more slots than remain, the
/// window is passed over and later entries fill the slots, as a fired pair is in the budget
/// fill); a window over more than two units (wider than a chunk) brings the rest one by one
/// right after. A unit already in takes no slot.
fn window_fill(fused: &[FusedEntry], pointers: &[Pointer], budget: usize) -> Vec<UnitId> {
    let mut out: Vec<UnitId> = Vec::new();
    let add_one = |out: &mut Vec<UnitId>, u: UnitId| {
        if out.len() < budget && !out.contains(&u) {
            out.push(u);
        }
    };
    for e in fused {
        if out.len() >= budget {
            break;
        }
        match e.entry {
            EntryRef::Chunk(c) => add_one(&mut out, unit_of(c)),
            EntryRef::Seam(seam) => {
                let links = pointers
                    .get(pointer_of(seam).0 as usize)
                    .map_or(&[][..], |p| p.links.as_slice());
                match links {
                    [] => {}
                    [one] => add_one(&mut out, *one),
                    [a, b, rest @ ..] => {
                        let mut new: Vec<UnitId> = Vec::with_capacity(2);
                        for u in [*a, *b] {
                            if !out.contains(&u) && !new.contains(&u) {
                                new.push(u);
                            }
                        }
                        // The pair comes whole or not at all; the rest stand on their own.
                        if new.len() <= budget - out.len() {
                            out.extend(new);
                        }
                        for &u in rest {
                            if out.len() >= budget {
                                break;
                            }
                            add_one(&mut out, u);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Chunks in fused order; each brings a same-document neighbour that ranks within `2 × budget`.
fn neighbour_fill(units: &[Unit], fused: &[FusedEntry], budget: usize) -> Vec<UnitId> {
    let position = |u: u32| {
        fused
            .iter()
            .position(|e| e.entry == EntryRef::Chunk(chunk_of(UnitId(u))))
            .map(|i| i + 1)
    };
    let mut out: Vec<UnitId> = Vec::new();
    for e in fused {
        if out.len() >= budget {
            break;
        }
        let EntryRef::Chunk(c) = e.entry else {
            continue;
        };
        if !out.contains(&unit_of(c)) {
            out.push(unit_of(c));
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
            if out.len() < budget && !out.contains(&UnitId(n)) {
                out.push(UnitId(n));
            }
        }
    }
    out
}
