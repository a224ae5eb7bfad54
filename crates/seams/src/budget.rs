//! The budget fill: read the plan strictly in rank order until the final budget is full.
//!
//! An ordinary chunk takes one slot. A fired seam takes one slot per linked chunk not already
//! included (two, one or none) and adds them at its position, left then right; when it needs more
//! slots than remain it is skipped whole and later entries take those slots, so both halves of a
//! split fact arrive together or not at all. A chunk already included is skipped. A seam that did
//! not fire takes nothing. The walk stops right after the step that fills the budget, like the
//! table in the white paper's worked example; a budget of 0 gives an empty result and no steps.

use serde::{Deserialize, Serialize};

use super::list::EntryRef;
use super::plan::{Plan, PlanItem};
use super::side::Side;
use crate::ChunkId;
use crate::SeamId;

/// Default final budget, in chunks.
pub const DEFAULT_BUDGET: usize = 5;

/// What the budget fill did at one plan position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum BudgetAction {
    /// An ordinary chunk took one slot.
    Added,
    /// A fired seam added its linked chunks that were not yet included (one or two), left first.
    AddedPair {
        /// The chunks added, in order.
        added: Vec<ChunkId>,
    },
    /// A chunk that was already included; it takes no slot.
    SkippedAlreadyIncluded,
    /// A seam that did not fire: dropped, it takes no slot.
    DroppedSeam,
    /// A fired seam that needed more slots than remained: skipped whole.
    SkippedNoRoom {
        /// Slots its chunks needed.
        needed: usize,
        /// Slots left at that point.
        remaining: usize,
    },
    /// A fired seam whose linked chunks were both already included.
    FiredNothingNew,
}

impl BudgetAction {
    /// A short plain-language account of the action, for tables.
    pub fn describe(&self) -> String {
        match self {
            BudgetAction::Added => "added".to_string(),
            BudgetAction::AddedPair { added } => {
                let names: Vec<String> = added.iter().map(|c| format!("chunk {}", c.0)).collect();
                format!("fired: added {}", names.join(" and "))
            }
            BudgetAction::SkippedAlreadyIncluded => "already included; skipped".to_string(),
            BudgetAction::DroppedSeam => "did not fire; dropped".to_string(),
            BudgetAction::SkippedNoRoom { needed, remaining } => {
                let slot = if *remaining == 1 { "slot" } else { "slots" };
                format!("fired but needs {needed}, only {remaining} {slot} left; skipped")
            }
            BudgetAction::FiredNothingNew => "fired; both chunks already included".to_string(),
        }
    }

    /// The same account in at most `width` characters, ids first: the full sentence when it
    /// fits, else a short form that keeps every chunk id (`fired +40 +41`, `no room: 2 > 1`).
    pub fn describe_within(&self, width: usize) -> String {
        let full = self.describe();
        if full.chars().count() <= width {
            return full;
        }
        match self {
            BudgetAction::Added => "added".to_string(),
            BudgetAction::AddedPair { added } => {
                let ids: Vec<String> = added.iter().map(|c| format!("+{}", c.0)).collect();
                let short = format!("fired {}", ids.join(" "));
                if short.chars().count() <= width {
                    short
                } else {
                    ids.join(" ")
                }
            }
            BudgetAction::SkippedAlreadyIncluded => "already in".to_string(),
            BudgetAction::DroppedSeam => "dropped".to_string(),
            BudgetAction::SkippedNoRoom { needed, remaining } => {
                format!("no room: {needed} > {remaining}")
            }
            BudgetAction::FiredNothingNew => "fired, both in".to_string(),
        }
    }
}

/// One row of the budget table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetStep {
    /// 1-based plan position read.
    pub position: usize,
    /// The chunk or seam at that position.
    pub entry: EntryRef,
    /// What the fill did with it.
    pub action: BudgetAction,
    /// Slots used once this step is done.
    pub slots_used_after: usize,
}

/// The result of filling the budget: each step, and the chunks that made it in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetFill {
    /// The budget, in chunks.
    pub budget: usize,
    /// One step per plan position read, in order.
    pub steps: Vec<BudgetStep>,
    /// The context chunks in the order they were added; never a seam, never a duplicate.
    pub chunks: Vec<ChunkId>,
    /// Slots used (equals `chunks.len()`).
    pub slots_used: usize,
}

impl BudgetFill {
    /// Whether every slot was used.
    pub fn is_full(&self) -> bool {
        self.slots_used >= self.budget
    }

    /// The context as it stood after the first `steps` steps of the walk, in the order the chunks
    /// came in (a presenter walking the fill shows only what has been decided so far).
    ///
    /// ```
    /// use seams::ChunkId;
    /// use seams::{EntryRef, FusedEntry, Plan, fill_budget};
    /// let fused: Vec<FusedEntry> = [3, 8, 5]
    ///     .into_iter()
    ///     .map(|c| FusedEntry::given(EntryRef::Chunk(ChunkId(c))))
    ///     .collect();
    /// let fill = fill_budget(&Plan::fused_order(&fused, &[]), 2);
    /// assert_eq!(fill.chunks_after(1), vec![ChunkId(3)]);
    /// assert_eq!(fill.chunks_after(9), fill.chunks);
    /// ```
    pub fn chunks_after(&self, steps: usize) -> Vec<ChunkId> {
        let mut chunks = Vec::new();
        for step in self.steps.iter().take(steps) {
            match &step.action {
                BudgetAction::Added => chunks.extend(step.entry.chunk()),
                BudgetAction::AddedPair { added } => chunks.extend(added.iter().copied()),
                _ => {}
            }
        }
        chunks
    }

    /// Fired seams the walk reached, in order (the fire rate counts only these).
    pub fn fired_seams_reached(&self) -> Vec<SeamId> {
        self.steps
            .iter()
            .filter(|step| {
                matches!(
                    step.action,
                    BudgetAction::AddedPair { .. }
                        | BudgetAction::SkippedNoRoom { .. }
                        | BudgetAction::FiredNothingNew
                )
            })
            .filter_map(|step| step.entry.seam())
            .collect()
    }
}

/// Fill a budget of `budget` chunks by reading `plan` in order.
///
/// ```
/// use seams::{fill_budget, fire_test, BudgetAction, ChunkId, EntryRef, FusedEntry, Plan, SeamId};
/// // Seam 0 (chunks 1 and 2) fires at position 1, but a budget of 1 has no room for the pair:
/// // it is skipped whole and chunk 7 takes the slot.
/// let fused: Vec<FusedEntry> = [EntryRef::Seam(SeamId(0)), EntryRef::Chunk(ChunkId(7))]
///     .into_iter()
///     .map(FusedEntry::given)
///     .collect();
/// let decisions = fire_test(&fused, &|_| (ChunkId(1), ChunkId(2)), 1);
/// let fill = fill_budget(&Plan::fused_order(&fused, &decisions), 1);
/// assert_eq!(fill.steps[0].action, BudgetAction::SkippedNoRoom { needed: 2, remaining: 1 });
/// assert_eq!(fill.chunks, [ChunkId(7)]);
/// ```
pub fn fill_budget(plan: &Plan, budget: usize) -> BudgetFill {
    let mut chunks: Vec<ChunkId> = Vec::new();
    let mut steps: Vec<BudgetStep> = Vec::new();
    for plan_entry in &plan.entries {
        if chunks.len() >= budget {
            break;
        }
        let remaining = budget - chunks.len();
        let action = match plan_entry.item {
            PlanItem::DroppedSeam { .. } => BudgetAction::DroppedSeam,
            PlanItem::Chunk { chunk, .. } => {
                if chunks.contains(&chunk) {
                    BudgetAction::SkippedAlreadyIncluded
                } else {
                    chunks.push(chunk);
                    BudgetAction::Added
                }
            }
            PlanItem::FiredSeam {
                left,
                right,
                dropped,
                ..
            } => {
                let mut new: Vec<ChunkId> = Vec::with_capacity(2);
                let sides = [(Side::Left, left), (Side::Right, right)];
                for (_, chunk) in sides.into_iter().filter(|(s, _)| Some(*s) != dropped) {
                    if !chunks.contains(&chunk) && !new.contains(&chunk) {
                        new.push(chunk);
                    }
                }
                if new.is_empty() {
                    BudgetAction::FiredNothingNew
                } else if new.len() > remaining {
                    BudgetAction::SkippedNoRoom {
                        needed: new.len(),
                        remaining,
                    }
                } else {
                    chunks.extend_from_slice(&new);
                    BudgetAction::AddedPair { added: new }
                }
            }
        };
        steps.push(BudgetStep {
            position: plan_entry.position,
            entry: plan_entry.item.entry(),
            action,
            slots_used_after: chunks.len(),
        });
    }
    BudgetFill {
        budget,
        slots_used: chunks.len(),
        steps,
        chunks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retrieve_budget_short_descriptions_keep_every_chunk_id() {
        let pair = BudgetAction::AddedPair {
            added: vec![ChunkId(40), ChunkId(41)],
        };
        assert_eq!(
            pair.describe_within(80),
            "fired: added chunk 40 and chunk 41"
        );
        assert_eq!(pair.describe_within(20), "fired +40 +41");
        assert_eq!(pair.describe_within(8), "+40 +41");
        let no_room = BudgetAction::SkippedNoRoom {
            needed: 2,
            remaining: 1,
        };
        assert_eq!(no_room.describe_within(16), "no room: 2 > 1");
    }
    use crate::fire::fire_test;
    use crate::fuse::FusedEntry;

    fn links(seam: SeamId) -> (ChunkId, ChunkId) {
        (ChunkId(seam.0 / 100), ChunkId(seam.0 % 100))
    }

    fn c(i: u32) -> EntryRef {
        EntryRef::Chunk(ChunkId(i))
    }

    fn s(i: u32) -> EntryRef {
        EntryRef::Seam(SeamId(i))
    }

    fn run(entries: &[EntryRef], m: u32, budget: usize) -> BudgetFill {
        let fused: Vec<FusedEntry> = entries.iter().copied().map(FusedEntry::given).collect();
        let decisions = fire_test(&fused, &links, m);
        fill_budget(&Plan::fused_order(&fused, &decisions), budget)
    }

    fn actions(fill: &BudgetFill) -> Vec<(usize, BudgetAction, usize)> {
        fill.steps
            .iter()
            .map(|s| (s.position, s.action.clone(), s.slots_used_after))
            .collect()
    }

    fn ids(v: &[u32]) -> Vec<ChunkId> {
        v.iter().copied().map(ChunkId).collect()
    }

    #[test]
    fn retrieve_budget_adjacent_firings_sharing_a_chunk_cost_three_slots() {
        // Seams 4|5 and 5|6 both fire (m = 1) and share chunk 5: three slots, not four.
        let fill = run(&[s(405), s(506), c(1), c(4), c(5), c(6)], 1, 5);
        assert_eq!(
            actions(&fill),
            vec![
                (
                    1,
                    BudgetAction::AddedPair {
                        added: ids(&[4, 5])
                    },
                    2
                ),
                (2, BudgetAction::AddedPair { added: ids(&[6]) }, 3),
                (3, BudgetAction::Added, 4),
                (4, BudgetAction::SkippedAlreadyIncluded, 4),
                (5, BudgetAction::SkippedAlreadyIncluded, 4),
                (6, BudgetAction::SkippedAlreadyIncluded, 4),
            ]
        );
        assert_eq!(fill.chunks, ids(&[4, 5, 6, 1]));
        assert!(!fill.is_full());
    }

    #[test]
    fn retrieve_budget_pair_with_one_slot_left_is_skipped_and_next_entry_fills_it() {
        // Budget 3: chunks 1, 2 take two slots; seam 7|8 (fires on absence) needs two, one remains,
        // so it is skipped; chunk 3 takes the last slot.
        let fill = run(&[c(1), c(2), s(708), c(3), c(4)], 1, 3);
        assert_eq!(
            actions(&fill),
            vec![
                (1, BudgetAction::Added, 1),
                (2, BudgetAction::Added, 2),
                (
                    3,
                    BudgetAction::SkippedNoRoom {
                        needed: 2,
                        remaining: 1
                    },
                    2
                ),
                (4, BudgetAction::Added, 3),
            ]
        );
        assert_eq!(fill.chunks, ids(&[1, 2, 3]));
        assert_eq!(fill.fired_seams_reached(), vec![SeamId(708)]);
    }

    #[test]
    fn retrieve_budget_pair_needing_one_slot_fits_the_last_one() {
        // m = 1. Seam 6|7 at 1 fires (2 ≤ 4, ≤ 5) and adds 6, 7; chunk 1 takes slot 3; seam 7|8
        // at 3 fires (4 ≤ 5, ≤ 6) and needs only chunk 8: one slot, the last one.
        let fill = run(&[s(607), c(1), s(708), c(6), c(7), c(8)], 1, 4);
        assert_eq!(
            actions(&fill),
            vec![
                (
                    1,
                    BudgetAction::AddedPair {
                        added: ids(&[6, 7])
                    },
                    2
                ),
                (2, BudgetAction::Added, 3),
                (3, BudgetAction::AddedPair { added: ids(&[8]) }, 4),
            ]
        );
        assert_eq!(fill.chunks, ids(&[6, 7, 1, 8]));
    }

    #[test]
    fn retrieve_budget_stops_after_the_step_that_fills_it() {
        // m = 2. Seam 7|8 at 2 fires (4 ≤ 4, ≤ 5) and fills the budget of 3: no step after it.
        let fill = run(&[c(2), s(708), s(809), c(7), c(8), c(9)], 2, 3);
        assert_eq!(fill.chunks, ids(&[2, 7, 8]));
        assert_eq!(fill.steps.len(), 2);
        assert!(fill.is_full());
    }

    #[test]
    fn retrieve_budget_fired_seam_with_both_chunks_in_adds_nothing() {
        // Seam 1|2 fires twice over the same pair: the second sees nothing new.
        let fused: Vec<FusedEntry> = [s(102), s(102), c(1), c(2)]
            .into_iter()
            .map(FusedEntry::given)
            .collect();
        let decisions = fire_test(&fused, &links, 1);
        let fill = fill_budget(&Plan::fused_order(&fused, &decisions), 4);
        assert_eq!(fill.steps[1].action, BudgetAction::FiredNothingNew);
        assert_eq!(fill.chunks, ids(&[1, 2]));
    }

    #[test]
    fn retrieve_budget_zero_gives_nothing() {
        let fill = run(&[s(102), c(1), c(2)], 0, 0);
        assert!(fill.steps.is_empty() && fill.chunks.is_empty());
        assert_eq!(fill.slots_used, 0);
        assert!(fill.is_full());
    }

    #[test]
    fn retrieve_budget_larger_than_candidates_reads_everything() {
        let fill = run(&[c(1), s(203), c(4)], 3, 10);
        // Seam 2|3 at 2: 2 + 3 = 5 > 4 (both absent, count as 4): dropped.
        assert_eq!(
            actions(&fill),
            vec![
                (1, BudgetAction::Added, 1),
                (2, BudgetAction::DroppedSeam, 1),
                (3, BudgetAction::Added, 2),
            ]
        );
        assert_eq!(fill.chunks, ids(&[1, 4]));
        assert_eq!(fill.budget, 10);
    }

    #[test]
    fn retrieve_budget_describes_actions() {
        assert_eq!(
            BudgetAction::AddedPair {
                added: ids(&[7, 8])
            }
            .describe(),
            "fired: added chunk 7 and chunk 8"
        );
        assert_eq!(
            BudgetAction::SkippedNoRoom {
                needed: 2,
                remaining: 1
            }
            .describe(),
            "fired but needs 2, only 1 slot left; skipped"
        );
    }
}
