//! The worker's replies: accepted only when they answer the newest request, so a slow old job
//! can never overwrite what a newer one asked for.

use super::{App, Notice, Shown};
use crate::tui::action::{Action, Answered, Opened, Pane};

impl App {
    /// A layout job finished: swap in its corpus and result together, or drop it if stale.
    pub(super) fn opened(&mut self, opened: Opened) -> Option<Action> {
        if !self.jobs.is_current_layout(opened.generation) {
            return None;
        }
        self.jobs.finish_layout(opened.generation);
        self.open_error = None;
        let first = self.shown.is_none();
        // New chunks get new ids: the cursor of the old layout would point elsewhere.
        let same_chunks = self
            .shown
            .as_ref()
            .is_some_and(|s| s.params.same_chunks(&opened.params));
        if !same_chunks {
            self.view.cursor = None;
        }
        self.shown = Some(Shown {
            generation: opened.generation,
            open: opened.open,
            highlights: opened.highlights,
            atoms: opened.atoms,
            params: opened.params,
            questions: opened.questions,
        });
        // Chunk and seam ids may differ in the new layout: never keep a result from the old one.
        self.answer = opened
            .answer
            .filter(|a| self.asked.as_deref() == Some(a.question.as_str()));
        self.lists.reset_results();
        if let Some(shown) = &self.shown {
            self.view.revalidate(&shown.open);
        }
        if self.answer.is_some() {
            self.replan();
            self.after_result_changed();
        } else {
            self.step = None;
            if let Some(question) = self.asked.clone() {
                let query = self.query_settings();
                self.jobs.start_query(question, query);
            }
        }
        if first {
            self.clamp_lists();
            self.sync_document_cursor();
            self.restore_view();
        }
        None
    }

    /// A layout job failed: say why; the corpus shown (if any) stays.
    pub(super) fn open_failed(&mut self, generation: u64, error: String) {
        if !self.jobs.is_current_layout(generation) {
            return;
        }
        self.jobs.finish_layout(generation);
        self.typing = false;
        match &self.shown {
            None => self.open_error = Some(error),
            Some(shown) => {
                let params = shown.params;
                self.sliders.k = params.k;
                self.sliders.chunk_tokens = params.chunk_tokens;
                self.sliders.chunker = params.chunker;
                self.sliders.heading_prefix = params.heading_prefix;
                self.notice = Some(Notice {
                    text: format!("rebuild failed, still showing the previous layout: {error}"),
                    error: true,
                });
            }
        }
    }

    /// A question finished: show its result if it is the newest and ran on the layout shown.
    pub(super) fn answered(&mut self, answered: Answered) {
        if !self.jobs.is_current_query(answered.generation) {
            return;
        }
        self.jobs.finish_query(answered.generation);
        if self.shown.as_ref().map(|s| s.generation) != Some(answered.layout_generation) {
            return;
        }
        match answered.result {
            Ok(answer) => {
                self.answer = Some(answer);
                self.lists.reset_results();
                self.replan();
                self.after_result_changed();
                if self.step.is_none() {
                    if !self.typing {
                        self.focus = Pane::Ranking;
                    }
                    self.follow(Pane::Ranking);
                    self.show_gold_evidence();
                }
                self.finish_restore();
            }
            Err(error) => {
                self.notice = Some(Notice {
                    text: error,
                    error: true,
                })
            }
        }
    }
}
