//! The result on screen: what the worker searched for the question asked, planned here. The
//! stages after search (fuse, fire test, plan, budget fill) are pure and take microseconds, so
//! the screen runs them itself, once when the searches arrive and again whenever `m`, the budget
//! or side drop moves; the worker only ever hands back searches.

use seamscope::retrieve::{Trace, replan};
use seamscope::session::{EngineError, QueryTimings};

use super::{App, Notice};
use crate::tui::action::Searched;

/// The current question's result, planned under the sliders' settings.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The question.
    pub question: String,
    /// The trace of every stage.
    pub trace: Trace,
    /// Time per stage of the searches it was planned from.
    pub timings: QueryTimings,
    /// Whether it ran on the keyword lists alone because the vectors were still being embedded
    /// (it is asked again when they arrive).
    pub dense_pending: bool,
}

impl App {
    /// Show what the worker searched for the question asked, planned under the sliders'
    /// settings on the corpus shown. Every result reaches the screen through here: a question's
    /// own reply, or one that came with a new layout or with its vectors.
    pub(super) fn show_searched(&mut self, searched: Searched) {
        let Some(shown) = &self.shown else {
            return;
        };
        let query = self.query_settings();
        let Searched {
            input,
            timings,
            dense_pending,
        } = searched;
        // A traced query replayed beside what its app sent fuses the searches its replay did.
        let input = match self
            .pinned
            .as_ref()
            .and_then(|p| p.searches_for(&input.question))
        {
            Some(search) => seamscope::traces::keep_searches(input, search),
            None => input,
        };
        match shown.open.with_lookups(|l| replan(&input, &query, l)) {
            Ok(trace) => {
                self.answer = Some(Answer {
                    question: input.question,
                    trace,
                    timings,
                    dense_pending,
                })
            }
            Err(e) => {
                self.answer = None;
                self.notice = Some(Notice {
                    text: EngineError::from(e).to_string(),
                    error: true,
                })
            }
        }
        self.after_result_changed();
    }

    /// Redo the fire test and budget fill of the current result under the sliders' settings.
    pub(super) fn replan(&mut self) {
        let query = self.query_settings();
        let (Some(shown), Some(answer)) = (&self.shown, &mut self.answer) else {
            return;
        };
        if answer.trace.settings == query {
            return;
        }
        match shown.open.replan(&answer.trace, &query) {
            Ok(trace) => answer.trace = trace,
            Err(e) => {
                self.notice = Some(Notice {
                    text: e.to_string(),
                    error: true,
                })
            }
        }
        self.after_result_changed();
    }

    /// Keep cursors and step mode inside a result that changed shape.
    pub(super) fn after_result_changed(&mut self) {
        self.clamp_lists();
        if let Some((all, index)) = self.current_step() {
            self.step = Some(index.min(all.len().saturating_sub(1)));
            self.apply_step();
        }
    }
}
