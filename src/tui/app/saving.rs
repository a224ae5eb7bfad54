//! `e`, `w`, `y` and `--open`: the current trace, the view and the context leave the screen as
//! files and a clipboard copy (carried out by the event loop), and a saved view comes back.

use seamscope::session::report::QueryReport;

use super::{App, Notice};
use crate::tui::gold::GoldQuestions;
use crate::tui::share::{Effect, VIEW_VERSION, ViewFile, ViewSettings, file_name};

impl App {
    fn need_answer(&mut self, what: &str) -> bool {
        if self.answer.is_some() && self.shown.is_some() {
            return true;
        }
        self.notice = Some(Notice {
            text: format!("run a question first: {what}"),
            error: true,
        });
        false
    }

    /// `e`: the trace as `seamscope query --json` writes it.
    pub(super) fn save_trace(&mut self) {
        if !self.need_answer("e writes its trace") {
            return;
        }
        let (Some(answer), Some(shown)) = (&self.answer, &self.shown) else {
            return;
        };
        let report = QueryReport::new(&shown.open, &answer.trace, answer.timings);
        match serde_json::to_string_pretty(&report) {
            Ok(contents) => self.effects.push(Effect::WriteFile {
                path: file_name("trace", "json"),
                contents,
                what: "trace",
            }),
            Err(e) => {
                self.notice = Some(Notice {
                    text: format!("could not write the trace: {e}"),
                    error: true,
                })
            }
        }
    }

    /// The view as a file: corpus, settings, question, gold question, presenter step.
    pub fn view_file(&self) -> ViewFile {
        let corpus = self
            .corpus_path
            .canonicalize()
            .unwrap_or_else(|_| self.corpus_path.clone());
        ViewFile {
            seamscope_view: VIEW_VERSION,
            corpus,
            settings: ViewSettings {
                m: self.sliders.m,
                budget: self.sliders.budget,
                k: self.sliders.k,
                chunk_tokens: self.sliders.chunk_tokens,
                chunker: self.sliders.chunker,
                heading_prefix: self.sliders.heading_prefix,
                side_drop: self.base_query.side_drop,
            },
            question: self.asked.clone(),
            gold_id: self.gold.as_ref().map(|g| g.id.clone()),
            step: self.step,
        }
    }

    /// `w`: write the view, for `seamscope --open FILE`.
    pub(super) fn save_view(&mut self) {
        match serde_json::to_string_pretty(&self.view_file()) {
            Ok(contents) => self.effects.push(Effect::WriteFile {
                path: file_name("view", "json"),
                contents,
                what: "view (open it with seamscope --open FILE)",
            }),
            Err(e) => {
                self.notice = Some(Notice {
                    text: format!("could not write the view: {e}"),
                    error: true,
                })
            }
        }
    }

    /// `y`: the context's original chunk text, in fill order, to the clipboard.
    pub(super) fn copy_context(&mut self) {
        if !self.need_answer("y copies its context") {
            return;
        }
        let (Some(answer), Some(shown)) = (&self.answer, &self.shown) else {
            return;
        };
        let open = &shown.open;
        let text = answer
            .trace
            .context
            .iter()
            .map(|c| {
                let chunk = open.layout.chunk(c.chunk);
                let doc = open.corpus.doc(chunk.doc);
                doc.text
                    .get(chunk.span.start..chunk.span.end)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n\n");
        self.effects.push(Effect::Copy {
            text,
            fallback: file_name("context", "txt"),
        });
    }

    /// The corpus opened: a view being restored sets its gold question and asks its question.
    pub(super) fn restore_view(&mut self) {
        let Some(view) = &self.restoring else {
            return;
        };
        let (question, gold_id) = (view.question.clone(), view.gold_id.clone());
        if let Some(id) = gold_id {
            let gold = match self.gold_questions() {
                Some(GoldQuestions::Loaded(list)) => list.iter().find(|q| q.id == id).cloned(),
                _ => None,
            };
            if gold.is_none() {
                self.notice = Some(Notice {
                    text: format!(
                        "the view names gold question {} but questions.jsonl does not hold it",
                        seamscope::text::safe(&id)
                    ),
                    error: true,
                });
            }
            self.gold = gold;
        }
        match question {
            Some(q) => {
                self.query.clear();
                self.query.insert_str(&q);
                self.run_query();
            }
            None => self.restoring = None,
        }
    }

    /// The restored view's question was answered: put presenter mode on its step.
    pub(super) fn finish_restore(&mut self) {
        let Some(view) = self.restoring.take() else {
            return;
        };
        if let Some(step) = view.step {
            self.step = Some(0);
            self.typing = false;
            let last = self
                .current_step()
                .map_or(0, |(all, _)| all.len().saturating_sub(1));
            self.step = Some(step.min(last));
            self.apply_step();
        }
    }
}
