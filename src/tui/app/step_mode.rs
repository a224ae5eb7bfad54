//! Step mode: walking the current result one decision at a time, every pane pointing at the
//! decision under test.

use super::lists::result_len;
use super::{App, Notice};
use crate::tui::action::Pane;
use crate::tui::step::{Step, search_lists};

impl App {
    pub(super) fn toggle_step_mode(&mut self) {
        if self.step.is_some() {
            self.step = None;
            return;
        }
        if self.answer.is_none() {
            self.notice = Some(Notice {
                text: "run a question first: step mode walks its decisions".into(),
                error: true,
            });
            return;
        }
        self.step = Some(0);
        self.typing = false;
        self.apply_step();
    }

    pub(super) fn step_by(&mut self, delta: i32) {
        let Some((all, index)) = self.current_step() else {
            return;
        };
        let last = all.len().saturating_sub(1) as i64;
        self.step = Some((index as i64 + i64::from(delta)).clamp(0, last) as usize);
        self.apply_step();
    }

    /// Point every pane at the decision under test, and the text at the cut or chunk it concerns.
    pub(super) fn apply_step(&mut self) {
        let Some((all, index)) = self.current_step() else {
            return;
        };
        let (Some(step), Some(answer)) = (all.get(index).copied(), &self.answer) else {
            return;
        };
        let trace = &answer.trace;
        let (position, entry) = (step.position(trace), step.entry(trace));
        let (fused, decisions, fill) = (
            trace.fused.len(),
            trace.decisions.len(),
            trace.fill.steps.len(),
        );
        let list_len = match step {
            Step::Search(i) => search_lists(trace).get(i).map_or(0, |l| l.hits.len()),
            _ => fused,
        };
        let compare_len = result_len(Pane::Compare, trace);
        let ranking_height = self.list_height(Pane::Ranking);
        match step {
            Step::Search(_) | Step::Fuse => {
                self.lists.ranking.select(0, list_len, ranking_height);
                self.focus = Pane::Ranking;
            }
            Step::Fire(i) => {
                let height = self.list_height(Pane::Fire);
                self.lists.fire.select(i, decisions, height);
            }
            Step::Fill(i) => {
                let height = self.list_height(Pane::Budget);
                self.lists.budget.select(i, fill, height);
            }
            Step::Compare => {
                let height = self.list_height(Pane::Compare);
                self.lists.compare.select(0, compare_len, height);
            }
        }
        if let Some(position) = position {
            self.lists
                .ranking
                .select(position - 1, fused, ranking_height);
        }
        // The last step shows the cut that matters for a gold question.
        let entry = match step {
            Step::Compare => self.gold_entry().or(entry),
            _ => entry,
        };
        if let Some(entry) = entry {
            self.with_view(|v, open, geo| v.show(entry, open, geo));
        }
    }
}
