//! Two settings side by side: the result pinned with `P` beside the current one, on the explore
//! page (both contexts, both fire tests, both verdicts) and on the evaluation page (the pinned
//! rows kept beside the live ones). A traced query replayed from the traces page pins what the
//! app sent the same way ("your app sent" beside "with Seams").

use std::sync::Arc;

use seamscope::eval::grid::GridRow;
use seamscope::retrieve::QuerySettings;
use seamscope::session::OpenCorpus;

use super::{Answer, App, Notice};
use crate::tui::action::Page;
use crate::tui::gold::{GoldLine, gold_line};
use crate::tui::layout_params::LayoutParams;

/// A context kept for comparison, with the chunking its ids refer to.
#[derive(Clone)]
pub struct Pinned {
    /// What it is, in words: the settings a result ran under (`m 1 · budget 5 · k 150 · fixed
    /// 1024`), or `your app sent`.
    pub label: String,
    /// The chunking its chunk ids refer to.
    pub params: LayoutParams,
    /// The context kept.
    pub side: PinnedSide,
}

/// What is pinned: one of seamscope's results, or what a traced app sent.
#[derive(Clone)]
pub enum PinnedSide {
    /// A result pinned with `P`.
    Result(Box<PinnedResult>),
    /// What a traced app sent for a question (chunk ids of the app's cuts), with the suspect
    /// cuts the traces page found.
    AppSent(Box<AppSent>),
}

/// What a traced app sent, pinned: the traces page's verdict on the query and the searches its
/// replay fused, which the answer beside it keeps too (so "with Seams" is the replay judged).
#[derive(Clone)]
pub struct AppSent {
    /// The query as the traces page judged it.
    pub verdict: seamscope::traces::QueryVerdict,
    /// The searches the replay fused (dense alone, as most apps retrieve, or hybrid).
    pub search: seamscope::traces::ReplaySearch,
}

/// One of seamscope's results, pinned with `P`.
#[derive(Clone)]
pub struct PinnedResult {
    /// The layout it ran on (chunk ids refer to it).
    pub open: Arc<OpenCorpus>,
    /// The result.
    pub answer: Answer,
    /// Its gold verdict, when a gold question was asked.
    pub gold: Option<GoldLine>,
}

impl Pinned {
    /// The cut a traced app's query is suspected at (left, right chunk), when this pins what
    /// the app sent for `question` and the traces page found a suspect.
    pub fn suspect_for(
        &self,
        question: &str,
    ) -> Option<(seamscope::chunk::ChunkId, seamscope::chunk::ChunkId)> {
        match &self.side {
            PinnedSide::AppSent(a) if a.verdict.question.trim() == question.trim() => a
                .verdict
                .suspects
                .first()
                .filter(|s| s.tier > 0)
                .map(|s| (s.left, s.right)),
            _ => None,
        }
    }

    /// The searches a question's answer keeps while this is pinned: what a traced app's
    /// replay fused, for its own question; `None` keeps them all.
    pub fn searches_for(&self, question: &str) -> Option<seamscope::traces::ReplaySearch> {
        match &self.side {
            PinnedSide::AppSent(a) if a.verdict.question.trim() == question.trim() => {
                Some(a.search)
            }
            _ => None,
        }
    }

    /// The question the pinned context answered.
    pub fn question(&self) -> &str {
        match &self.side {
            PinnedSide::Result(r) => &r.answer.question,
            PinnedSide::AppSent(a) => &a.verdict.question,
        }
    }

    /// The chunks of the pinned context, in the order they were sent (those of an app's
    /// context that could not be placed left out).
    pub fn chunks(&self) -> Vec<seamscope::chunk::ChunkId> {
        match &self.side {
            PinnedSide::Result(r) => r.answer.trace.fill.chunks.clone(),
            PinnedSide::AppSent(a) => a.verdict.sent.iter().filter_map(|s| s.chunk).collect(),
        }
    }
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
            side: PinnedSide::Result(Box::new(PinnedResult {
                open: Arc::clone(&shown.open),
                answer: answer.clone(),
                gold,
            })),
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
