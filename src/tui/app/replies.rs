//! The worker's replies: accepted only when they answer the newest request, so a slow old job
//! can never overwrite what a newer one asked for.

use seamscope::index::lineage::CorpusChanges;

use super::{App, Notice, Shown};
use crate::tui::action::{Action, Answered, Opened, Pane, Searched};

/// `2 files changed (guide.md, notes.md), 1 added (new.md)`: what differs, naming up to three
/// files per kind (paths made safe for the terminal).
pub fn describe_changes(changes: &CorpusChanges) -> String {
    let mut parts = Vec::new();
    for (files, what) in [
        (&changes.modified, "changed"),
        (&changes.added, "added"),
        (&changes.removed, "removed"),
    ] {
        if files.is_empty() {
            continue;
        }
        let mut names: Vec<String> = files
            .iter()
            .take(3)
            .map(|f| seamscope::text::safe_name(f))
            .collect();
        if files.len() > 3 {
            names.push(format!("{} more", files.len() - 3));
        }
        let noun = if files.len() == 1 { "file" } else { "files" };
        parts.push(format!(
            "{} {noun} {what} ({})",
            files.len(),
            names.join(", ")
        ));
    }
    parts.join(", ")
}

impl App {
    /// A layout job delivered its corpus: the documents and cuts with keyword indexes only
    /// (`finished` false: the job goes on embedding), or the finished corpus. Swap it in with
    /// its result, or drop it if a newer job superseded it.
    pub(super) fn opened(&mut self, opened: Opened, finished: bool) -> Option<Action> {
        if !self.jobs.layout.is_current(opened.generation) {
            return None;
        }
        if finished {
            self.jobs.layout.finish(opened.generation);
        }
        self.open_error = None;
        if self
            .shown
            .as_ref()
            .is_some_and(|s| s.generation == opened.generation)
        {
            self.vectors_arrived(opened);
            self.start_waiting_work();
            return None;
        }
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
            coming: opened.coming,
        });
        // Chunk and seam ids may differ in the new layout: never keep a result from the old one.
        self.answer = None;
        self.lists.reset_results();
        if let Some(shown) = &self.shown {
            self.view.revalidate(&shown.open);
        }
        match self.searched_for_asked(opened.searched) {
            Some(searched) => self.show_searched(searched),
            None => {
                self.step = None;
                if let Some(question) = self.asked.clone() {
                    let query = self.query_settings();
                    self.jobs.start_query(question, query);
                }
            }
        }
        if first {
            self.clamp_lists();
            self.sync_document_cursor();
            if opened.coming.is_none() {
                self.restore_view();
            }
        }
        self.start_waiting_work();
        None
    }

    /// The layout shown got its vectors: the same chunks and seams, so the view, cursors and
    /// step stay; a result from the keyword lists alone is replaced by the full one (asked
    /// again if the worker did not bring it).
    /// The same holds when more of the documents arrive while the rest are laid out; once
    /// every document is in, the saved view (if any) is restored.
    fn vectors_arrived(&mut self, opened: Opened) {
        let mut all_in = false;
        if let Some(shown) = &mut self.shown {
            all_in = shown.coming.is_some() && opened.coming.is_none();
            shown.open = opened.open;
            shown.highlights = opened.highlights;
            shown.atoms = opened.atoms;
            shown.questions = opened.questions;
            shown.coming = opened.coming;
        }
        if all_in {
            self.restore_view();
        }
        match self.searched_for_asked(opened.searched) {
            Some(searched) => {
                self.show_searched(searched);
                self.show_gold_evidence();
            }
            None => {
                let pending = self.answer.as_ref().is_none_or(|a| a.dense_pending);
                if let (true, Some(question)) = (pending, self.asked.clone()) {
                    let query = self.query_settings();
                    self.jobs.start_query(question, query);
                }
            }
        }
    }

    /// The searches a layout job brought, if they are for the question asked now (the user may
    /// have asked another one since the job started).
    fn searched_for_asked(&self, searched: Option<Searched>) -> Option<Searched> {
        searched.filter(|s| self.asked.as_deref() == Some(s.input.question.as_str()))
    }

    /// The terminal has the focus again: the files may have been edited meanwhile.
    pub(super) fn check_corpus(&mut self) {
        if let Some(shown) = &self.shown {
            self.jobs.check_changes(shown.generation);
        }
    }

    /// The files differ from the corpus shown: say which, and that `R` reloads.
    pub(super) fn corpus_changed(
        &mut self,
        generation: u64,
        changes: Result<CorpusChanges, String>,
    ) {
        if self.shown.as_ref().map(|s| s.generation) != Some(generation) {
            return;
        }
        self.notice = Some(match changes {
            Ok(changes) => Notice {
                text: format!("{} on disk: R reloads", describe_changes(&changes)),
                error: false,
            },
            Err(error) => Notice {
                text: format!("the files cannot be read again: {error}"),
                error: true,
            },
        });
    }

    /// Read the files again and rebuild; the vector cache keeps what did not change.
    pub(super) fn reload(&mut self) {
        if self.refuse_layout_change() {
            return;
        }
        let question = self.asked.clone();
        let query = self.query_settings();
        self.jobs
            .start_reload(self.sliders.layout(), question, query);
        self.notice = Some(Notice {
            text: "reloading the files: only what changed is embedded".to_string(),
            error: false,
        });
    }

    /// A layout job failed: say why; the corpus shown (if any) stays.
    pub(super) fn open_failed(&mut self, generation: u64, error: String) {
        if !self.jobs.layout.is_current(generation) {
            return;
        }
        self.jobs.layout.finish(generation);
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
        if !self.jobs.query.finish(answered.generation) {
            return;
        }
        if self.shown.as_ref().map(|s| s.generation) != Some(answered.layout_generation) {
            return;
        }
        match answered.result {
            Ok(searched) => {
                self.lists.reset_results();
                self.show_searched(searched);
                if self.step.is_none() {
                    if !self.typing {
                        self.focus = self.result_focus();
                    }
                    self.follow(Pane::Ranking);
                    self.show_gold_evidence();
                    self.show_suspect();
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
