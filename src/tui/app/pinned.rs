//! Two settings side by side: the result pinned with `P` beside the current one, on the explore
//! page (both contexts, both fire tests, both verdicts) and on the evaluation page (the pinned
//! rows kept beside the live ones).

use std::sync::Arc;

use seamscope::eval::grid::GridRow;
use seamscope::retrieve::QuerySettings;
use seamscope::session::OpenCorpus;

use super::{Answer, App, Notice};
use crate::tui::action::Page;
use crate::tui::gold::{GoldLine, gold_line};
use crate::tui::layout_params::LayoutParams;

/// A result kept for comparison, with the layout its ids refer to.
#[derive(Clone)]
pub struct Pinned {
    /// The settings it ran under, in words: `m 1 · budget 5 · k 150 · fixed 1024`.
    pub label: String,
    /// Its chunking settings.
    pub params: LayoutParams,
    /// The layout it ran on (chunk ids refer to it).
    pub open: Arc<OpenCorpus>,
    /// The result.
    pub answer: Answer,
    /// Its gold verdict, when a gold question was asked.
    pub gold: Option<GoldLine>,
}

/// Evaluation rows kept for comparison.
#[derive(Debug, Clone)]
pub struct PinnedRows {
    /// The settings they were scored under, in words.
    pub label: String,
    /// The rows as they were.
    pub rows: Vec<GridRow>,
}

/// Settings in words, as both columns and pinned rows name them.
pub fn settings_label(query: &QuerySettings, params: &LayoutParams) -> String {
    let side = query
        .side_drop
        .map(|t| format!(" · side drop {t:.2}"))
        .unwrap_or_default();
    format!(
        "m {} · budget {} · k {} · {} {}{side}",
        query.m, query.budget, params.k, params.chunker, params.chunk_tokens
    )
}

impl App {
    /// `P`: pin the current result (explore) or rows (evaluation), or drop the pin.
    pub(super) fn toggle_pin(&mut self) {
        match self.page {
            Page::Explore => self.toggle_pinned_result(),
            Page::Evaluation => self.toggle_pinned_rows(),
            // Nothing to pin elsewhere (a new page that has something adds its arm).
            _ => {
                self.notice = Some(Notice {
                    text:
                        "P pins a result on the explore page (1) or rows on the evaluation page (3)"
                            .into(),
                    error: true,
                })
            }
        }
    }

    fn toggle_pinned_result(&mut self) {
        if self.pinned.take().is_some() {
            self.notice = Some(Notice {
                text: "unpinned".into(),
                error: false,
            });
            return;
        }
        let (Some(answer), Some(shown)) = (&self.answer, &self.shown) else {
            self.notice = Some(Notice {
                text: "run a question first: P pins its result to compare with other settings"
                    .into(),
                error: true,
            });
            return;
        };
        let settings = answer.trace.settings;
        let gold = self
            .gold
            .as_ref()
            .filter(|g| g.question.trim() == answer.question.trim())
            .map(|g| gold_line(g, &answer.trace, &shown.open));
        let label = settings_label(&settings, &shown.params);
        self.pinned = Some(Pinned {
            label: label.clone(),
            params: shown.params,
            open: Arc::clone(&shown.open),
            answer: answer.clone(),
            gold,
        });
        if self.is_compact() {
            // One pane at a time: the comparison is what pinning is for.
            self.focus = crate::tui::action::Pane::Compare;
            self.typing = false;
        }
        self.notice = Some(Notice {
            text: format!(
                "pinned {label}: change m, budget, k, chunk size or chunker to compare; P unpins"
            ),
            error: false,
        });
    }

    fn toggle_pinned_rows(&mut self) {
        if self.evaluation.pinned.take().is_some() {
            return;
        }
        if self.evaluation.rows.is_empty() {
            self.notice = Some(Notice {
                text: "run the evaluation first (r): P keeps its rows beside later ones".into(),
                error: true,
            });
            return;
        }
        let s = self.eval_settings();
        let k = self.sliders.k;
        self.evaluation.pinned = Some(PinnedRows {
            label: format!("k {k} · m {} · budget {}", s.m, s.budget),
            rows: self.evaluation.rows.clone(),
        });
    }
}
