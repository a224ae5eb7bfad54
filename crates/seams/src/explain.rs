//! Why one seam fired or not in a query, and what the budget fill did with it: the answer to
//! "why did (or didn't) Seams bring both halves of this cut?", read off a [`Trace`].
//!
//! Nothing is recomputed here: the fire test, the side drop, the fill step and both contexts are
//! the trace's own records, gathered for one seam and written out in words with the arithmetic.

use serde::Serialize;

use super::budget::BudgetStep;
use super::fire::{FireDecision, absent_position};
use super::list::EntryRef;
use super::plan::PlanItem;
use super::rerank::RerankStatus;
use super::side::SideDrop;
use super::trace::{RerankInput, Trace};
use crate::ids::{ChunkId, SeamId};

/// What the budget fill did with one seam.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeamFill {
    /// The seam is not in the fused ranking, so the fill never meets it.
    NotRanked,
    /// The fill read the seam's position.
    Reached {
        /// The fill's step at the seam.
        step: BudgetStep,
        /// Slots used before that step.
        slots_before: usize,
    },
    /// The budget was full before the fill reached the seam's position.
    NotReached {
        /// The last position the fill read (0 when the budget is 0).
        stopped_at: usize,
    },
}

/// One linked chunk of the seam: where it ranks and whether each context holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LinkedChunkFate {
    /// The chunk.
    pub chunk: ChunkId,
    /// Its 1-based position in the fused ranking, `None` when absent.
    pub fused_position: Option<usize>,
    /// Whether the context with Seams holds it.
    pub in_context: bool,
    /// Whether the context without Seams holds it (`None` when no baseline was run).
    pub in_context_without_seams: Option<bool>,
}

/// Everything a trace says about one seam.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeamExplanation {
    /// The seam.
    pub seam: SeamId,
    /// The chunk that ends at its cut.
    pub left: LinkedChunkFate,
    /// The chunk that starts at its cut.
    pub right: LinkedChunkFate,
    /// The margin in force.
    pub m: u32,
    /// The budget in force, in chunks.
    pub budget: usize,
    /// Results kept per search list.
    pub depth: usize,
    /// Entries in the fused ranking.
    pub fused_len: usize,
    /// The fire test, when the seam is in the fused ranking.
    pub decision: Option<FireDecision>,
    /// The side drop that left one chunk out, if any.
    pub side_drop: Option<SideDrop>,
    /// What the budget fill did with it.
    pub fill: SeamFill,
    /// What the rerank stage did around it, when a reranker ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank: Option<SeamRerank>,
}

/// The rerank stage as one seam saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeamRerank {
    /// The reranker's name.
    pub reranker: String,
    /// Chunks it judged.
    pub candidates: usize,
    /// The place in the reranked plan where a fired seam's chunks stayed pinned (they are
    /// never sent to the reranker); `None` when the seam did not fire.
    pub pinned_at: Option<usize>,
    /// The reranker's score of the left chunk, when it judged it.
    pub left_score: Option<f32>,
    /// The reranker's score of the right chunk, when it judged it.
    pub right_score: Option<f32>,
}

impl SeamExplanation {
    /// The explanation of `seam`, which links `left` and `right`, in `trace`.
    pub fn of(trace: &Trace, seam: SeamId, left: ChunkId, right: ChunkId) -> SeamExplanation {
        let baseline = trace
            .without_seams
            .retrieval
            .as_ref()
            .map(|run| &run.fill.chunks);
        let fate = |chunk: ChunkId| LinkedChunkFate {
            chunk,
            fused_position: trace
                .fused
                .iter()
                .position(|e| e.entry == EntryRef::Chunk(chunk))
                .map(|i| i + 1),
            in_context: trace.fill.chunks.contains(&chunk),
            in_context_without_seams: baseline.map(|chunks| chunks.contains(&chunk)),
        };
        let decision = trace.decisions.iter().find(|d| d.seam == seam).cloned();
        let fill = match &decision {
            None => SeamFill::NotRanked,
            Some(_) => {
                let at = trace
                    .fill
                    .steps
                    .iter()
                    .position(|s| s.entry == EntryRef::Seam(seam));
                match at {
                    Some(i) => SeamFill::Reached {
                        step: trace.fill.steps[i].clone(),
                        slots_before: i
                            .checked_sub(1)
                            .map_or(0, |p| trace.fill.steps[p].slots_used_after),
                    },
                    None => SeamFill::NotReached {
                        stopped_at: trace.fill.steps.last().map_or(0, |s| s.position),
                    },
                }
            }
        };
        let rerank = match (&trace.plan.rerank, &trace.input.rerank) {
            (
                RerankStatus::Applied {
                    reranker,
                    candidates,
                    ..
                },
                input,
            ) => {
                let score = |c: ChunkId| match input {
                    RerankInput::Scores(s) => s.score_of(c),
                    _ => None,
                };
                Some(SeamRerank {
                    reranker: reranker.clone(),
                    candidates: *candidates,
                    pinned_at: trace.plan.entries.iter().find_map(|e| match e.item {
                        PlanItem::FiredSeam { seam: s, .. } if s == seam => Some(e.position),
                        _ => None,
                    }),
                    left_score: score(left),
                    right_score: score(right),
                })
            }
            _ => None,
        };
        SeamExplanation {
            rerank,
            seam,
            left: fate(left),
            right: fate(right),
            m: trace.settings.m,
            budget: trace.settings.budget,
            depth: trace.settings.depth,
            fused_len: trace.fused.len(),
            side_drop: trace.side_drops.iter().find(|s| s.seam == seam).copied(),
            decision,
            fill,
        }
    }

    /// Whether the seam fired.
    pub fn fires(&self) -> bool {
        self.decision.as_ref().is_some_and(|d| d.fires)
    }

    /// The seam named by its chunks, `seam 40|41`.
    pub fn label(&self) -> String {
        format!("seam {}|{}", self.left.chunk.0, self.right.chunk.0)
    }

    /// The explanation in words, one paragraph per stage; `chunk_name` names a chunk
    /// (`chunk 40 (guide.md#1)`).
    pub fn words(&self, chunk_name: &dyn Fn(ChunkId) -> String) -> String {
        let mut out = vec![format!(
            "{} joins {} and {} (m = {}, budget {}, depth {}).",
            self.label(),
            chunk_name(self.left.chunk),
            chunk_name(self.right.chunk),
            self.m,
            self.budget,
            self.depth
        )];
        out.push(self.fire_words());
        if let Some(drop) = &self.side_drop {
            out.push(format!("Side drop: {}.", drop.reason()));
        }
        if let Some(words) = self.rerank_words() {
            out.push(words);
        }
        out.push(self.fill_words());
        out.push(self.context_words());
        out.join("\n")
    }

    fn fire_words(&self) -> String {
        let Some(d) = &self.decision else {
            let place = |c: &LinkedChunkFate| match c.fused_position {
                Some(p) => format!("chunk {} is at #{p}", c.chunk.0),
                None => format!("chunk {} is not ranked either", c.chunk.0),
            };
            return format!(
                "Fire test: not run. The seam is not in the fused ranking ({} entries): no \
                 search list held it in its top {}, so it cannot fire and does not fire. {}; {}.",
                self.fused_len,
                self.depth,
                capitalised(&place(&self.left)),
                place(&self.right)
            );
        };
        let mut text = format!(
            "Fire test at #{} of {}: pos(seam) + m ≤ pos(left) and ≤ pos(right) reads {} — {}.",
            d.seam_position,
            self.fused_len,
            d.arithmetic(),
            d.reason()
        );
        let absent = d.absent_links();
        if !absent.is_empty() {
            let ids: Vec<String> = absent.iter().map(|c| format!("chunk {}", c.0)).collect();
            text.push_str(&format!(
                " {} {} absent from the ranking and counts as #{} (one past the last entry).",
                capitalised(&ids.join(" and ")),
                if absent.len() == 1 { "is" } else { "are" },
                absent_position(self.fused_len)
            ));
        }
        match d.largest_firing_m() {
            Some(top) if d.fires => text.push_str(&format!(
                " With these positions it fires for any m from 0 to {top}."
            )),
            Some(top) => text.push_str(&format!(
                " With these positions it would fire for m from 0 to {top}."
            )),
            None => {
                let above: Vec<String> = d
                    .links()
                    .iter()
                    .filter(|l| l.counted_position < d.seam_position)
                    .map(|l| format!("chunk {} (#{})", l.chunk.0, l.counted_position))
                    .collect();
                text.push_str(&format!(
                    " {} ranks above the seam, so no m fires it at these positions.",
                    capitalised(&above.join(" and "))
                ));
            }
        }
        text
    }

    fn rerank_words(&self) -> Option<String> {
        let r = self.rerank.as_ref()?;
        let score = |c: &LinkedChunkFate, s: Option<f32>| match s {
            Some(s) => format!("chunk {} scored {s:.4}", c.chunk.0),
            None => format!("chunk {} was not judged", c.chunk.0),
        };
        Some(match r.pinned_at {
            Some(place) => format!(
                "Rerank: {} judged {} ordinary chunks; this seam fired, so chunks {} and {} stayed pinned at place {place} of the reranked plan and were never sent to it.",
                r.reranker, r.candidates, self.left.chunk.0, self.right.chunk.0
            ),
            None => format!(
                "Rerank: {} judged {} ordinary chunks; the seam did not fire, so its chunks were candidates like any other: {}, {}.",
                r.reranker,
                r.candidates,
                score(&self.left, r.left_score),
                score(&self.right, r.right_score)
            ),
        })
    }

    fn fill_words(&self) -> String {
        match &self.fill {
            SeamFill::NotRanked => {
                "Budget fill: never meets the seam (it is not in the ranking).".to_string()
            }
            SeamFill::Reached { step, slots_before } => format!(
                "Budget fill: reached #{} with {slots_before} of {} slots used: {}; {} of {} \
                 slots used after.",
                step.position,
                self.budget,
                step.action.describe(),
                step.slots_used_after,
                self.budget
            ),
            SeamFill::NotReached { stopped_at: 0 } => {
                "Budget fill: the budget is 0, so the fill reads nothing.".to_string()
            }
            SeamFill::NotReached { stopped_at } => {
                let position = self.decision.as_ref().map_or(0, |d| d.seam_position);
                format!(
                    "Budget fill: the budget of {} was full by #{stopped_at}, before the fill \
                     reached the seam at #{position}, so {} did not matter at this budget.",
                    chunks(self.budget),
                    if self.fires() {
                        "its firing"
                    } else {
                        "its verdict"
                    }
                )
            }
        }
    }

    fn context_words(&self) -> String {
        let state = |c: &LinkedChunkFate, held: bool| {
            format!("chunk {} {}", c.chunk.0, if held { "in" } else { "out" })
        };
        let mut text = format!(
            "Context with Seams: {}, {}.",
            state(&self.left, self.left.in_context),
            state(&self.right, self.right.in_context)
        );
        if let (Some(l), Some(r)) = (
            self.left.in_context_without_seams,
            self.right.in_context_without_seams,
        ) {
            text.push_str(&format!(
                " Without Seams (a real chunks-only retrieval): {}, {}.",
                state(&self.left, l),
                state(&self.right, r)
            ));
        }
        text
    }
}

/// `text` with its first letter in upper case, to open a sentence.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `1 chunk`, `5 chunks`.
fn chunks(n: usize) -> String {
    format!("{n} chunk{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FusedEntry, QueryInput, QuerySettings, RankingInput, RerankInput};

    fn c(i: u32) -> FusedEntry {
        FusedEntry::given(EntryRef::Chunk(ChunkId(i)))
    }
    fn s(i: u32) -> FusedEntry {
        FusedEntry::given(EntryRef::Seam(SeamId(i)))
    }

    /// The white paper's worked example: seam 78 joins 7|8 and fires, seam 1213 joins 12|13
    /// and does not.
    fn worked_example(budget: usize) -> Trace {
        reranked_example(budget, RerankInput::NotConfigured)
    }

    fn reranked_example(budget: usize, rerank: RerankInput) -> Trace {
        let links = |seam: SeamId| match seam.0 {
            78 => (ChunkId(7), ChunkId(8)),
            1213 => (ChunkId(12), ChunkId(13)),
            _ => (ChunkId(90), ChunkId(91)),
        };
        let tokens = |_: ChunkId| 100;
        let input = QueryInput {
            question: "q".into(),
            ranking: RankingInput::Fused(vec![
                s(78),
                c(12),
                s(1213),
                c(7),
                c(3),
                c(20),
                c(15),
                c(30),
                c(31),
                c(32),
                c(8),
            ]),
            chunks_only: None,
            rerank,
            side_scores: Vec::new(),
        };
        let settings = QuerySettings {
            m: 3,
            budget,
            ..QuerySettings::default()
        };
        crate::replan(
            &input,
            &settings,
            &crate::Lookups {
                links: &links,
                tokens: &tokens,
            },
        )
        .unwrap()
    }

    fn name(c: ChunkId) -> String {
        format!("chunk {}", c.0)
    }

    #[test]
    fn retrieve_explain_a_fired_seam_gives_the_arithmetic_and_its_slots() {
        let e = SeamExplanation::of(&worked_example(5), SeamId(78), ChunkId(7), ChunkId(8));
        assert!(e.fires());
        let words = e.words(&name);
        for part in [
            "seam 7|8 joins chunk 7 and chunk 8 (m = 3, budget 5",
            "Fire test at #1 of 11",
            "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires — it outranks both",
            "fires for any m from 0 to 3",
            "reached #1 with 0 of 5 slots used: fired: added chunk 7 and chunk 8; 2 of 5",
            "chunk 7 in, chunk 8 in",
        ] {
            assert!(words.contains(part), "missing {part:?} in:\n{words}");
        }
    }

    #[test]
    fn retrieve_explain_says_which_pairs_a_reranker_left_pinned_and_each_score() {
        let scores = crate::RerankScores {
            reranker: "rerank@test".into(),
            scores: vec![(ChunkId(12), 0.25), (ChunkId(3), 0.9)],
        };
        let trace = reranked_example(5, RerankInput::Scores(scores));
        let fired = SeamExplanation::of(&trace, SeamId(78), ChunkId(7), ChunkId(8));
        let r = fired.rerank.as_ref().expect("the rerank stage ran");
        assert_eq!((r.pinned_at, r.left_score), (Some(1), None));
        let words = fired.words(&name);
        assert!(words.contains(
            "this seam fired, so chunks 7 and 8 stayed pinned at place 1 of the reranked plan and were never sent to it"
        ), "{words}");
        let blocked = SeamExplanation::of(&trace, SeamId(1213), ChunkId(12), ChunkId(13));
        let words = blocked.words(&name);
        assert!(
            words.contains("did not fire, so its chunks were candidates like any other: chunk 12 scored 0.2500, chunk 13 was not judged"),
            "{words}"
        );
        // Without a reranker nothing is said about one.
        let plain = SeamExplanation::of(&worked_example(5), SeamId(78), ChunkId(7), ChunkId(8));
        assert!(plain.rerank.is_none() && !plain.words(&name).contains("Rerank"));
    }

    #[test]
    fn retrieve_explain_a_blocked_seam_names_the_chunk_above_it() {
        let e = SeamExplanation::of(&worked_example(5), SeamId(1213), ChunkId(12), ChunkId(13));
        assert!(!e.fires());
        let words = e.words(&name);
        for part in [
            "3 + 3 = 6 > 2 (chunk 12): does not fire",
            "Chunk 12 (#2) ranks above the seam, so no m fires it",
            "reached #3 with 3 of 5 slots used: did not fire; dropped; 3 of 5",
            "chunk 12 in, chunk 13 out",
        ] {
            assert!(words.contains(part), "missing {part:?} in:\n{words}");
        }
        assert!(words.contains("Chunk 13 is absent from the ranking and counts as #12"));
    }

    #[test]
    fn retrieve_explain_a_seam_past_the_full_budget_or_unranked() {
        let e = SeamExplanation::of(&worked_example(1), SeamId(1213), ChunkId(12), ChunkId(13));
        // Budget 1: the fired seam 7|8 needs two slots and is skipped; chunk 12 fills the slot.
        assert_eq!(e.fill, SeamFill::NotReached { stopped_at: 2 });
        assert!(e.words(&name).contains(
            "the budget of 1 chunk was full by #2, before the fill reached the seam at #3"
        ));
        let e = SeamExplanation::of(&worked_example(5), SeamId(5), ChunkId(90), ChunkId(91));
        assert_eq!(e.fill, SeamFill::NotRanked);
        assert!(e.decision.is_none());
        let words = e.words(&name);
        assert!(
            words.contains("not in the fused ranking (11 entries)"),
            "{words}"
        );
        assert!(words.contains("Chunk 90 is not ranked either; chunk 91 is not ranked either"));
    }
}
