//! What `App` keeps for a page built on the pane model ([`crate::tui::panes`]): its background
//! measurement's result, the layout it measured, and its cursor; and the shared page actions
//! that change them ([`Action::RunPageWork`], [`Action::PageCursor`], [`Action::GoTo`]).

use std::collections::HashMap;

use super::{App, Notice};
use crate::tui::action::{Page, PageDone, Pane};
use crate::tui::page_work::{PageOutput, PageResult, PageWork};

/// One page's kept state.
#[derive(Debug, Clone, Default)]
pub struct PageState {
    /// The last measurement's result, or what went wrong.
    pub output: Option<Result<PageOutput, String>>,
    /// The layout generation it measured (older than the one shown: the layout changed since).
    pub layout_generation: u64,
    /// The cursor's row.
    pub cursor: usize,
}

/// Every pane-model page's state, by page.
#[derive(Debug, Default)]
pub struct PageStates(HashMap<Page, PageState>);

impl App {
    /// The state `App` keeps for `page` (empty until it has measured or moved its cursor).
    pub fn page_state(&self, page: Page) -> Option<&PageState> {
        self.pages.0.get(&page)
    }

    /// `page`'s result, if its last measurement succeeded and gave a `T`.
    pub fn page_result<T: PageResult>(&self, page: Page) -> Option<&T> {
        T::read(self.page_state(page)?.output.as_ref()?.as_ref().ok()?)
    }

    /// `page`'s cursor row, kept inside a list of `rows`.
    pub fn page_row(&self, page: Page, rows: usize) -> usize {
        self.page_state(page)
            .map_or(0, |s| s.cursor)
            .min(rows.saturating_sub(1))
    }

    /// Whether `page`'s result measured an older layout than the one shown.
    pub fn page_is_stale(&self, page: Page) -> bool {
        match (self.page_state(page), &self.shown) {
            (Some(state), Some(shown)) => {
                state.output.is_some() && state.layout_generation != shown.generation
            }
            _ => false,
        }
    }

    pub(super) fn run_page_work(&mut self, work: std::sync::Arc<dyn PageWork>) {
        if self.shown.is_none() {
            self.notice = Some(Notice {
                text: "the corpus is still opening: measure once it is shown".into(),
                error: true,
            });
            return;
        }
        self.jobs.start_page_work(self.page, work);
    }

    pub(super) fn page_done(&mut self, done: PageDone) {
        if !self.jobs.page.finish(done.generation) {
            return;
        }
        let state = self.pages.0.entry(done.page).or_default();
        if let Err(e) = &done.result {
            self.notice = Some(Notice {
                text: e.clone(),
                error: true,
            });
        }
        state.output = Some(done.result);
        state.layout_generation = done.layout_generation;
        state.cursor = 0;
    }

    pub(super) fn page_cursor(&mut self, delta: i32, rows: usize) {
        let state = self.pages.0.entry(self.page).or_default();
        let last = rows.saturating_sub(1) as i64;
        state.cursor = (state.cursor as i64 + i64::from(delta)).clamp(0, last.max(0)) as usize;
    }

    /// Show byte `byte` of `doc` in the text, on the explore page.
    pub(super) fn go_to(&mut self, doc: seamscope::corpus::DocId, byte: usize) {
        if self.shown.is_none() {
            return;
        }
        self.page = Page::Explore;
        self.focus(Pane::Text);
        self.with_view(|view, open, geo| view.show_byte(doc, byte, open, geo));
        self.sync_document_cursor();
    }
}
