//! Moving around: list cursors, clicks, the wheel, and the document view following the entry
//! under a cursor.

use seamscope::corpus::DocId;
use seamscope::session::OpenCorpus;

use super::App;
use super::doc_view::{DocView, TextGeometry};
use super::lists::{result_entry, result_len};
use crate::tui::action::Pane;
use crate::tui::step::search_lists;

impl App {
    /// Run `f` on the document view with the corpus shown and the view's geometry.
    pub(super) fn with_view(&mut self, f: impl FnOnce(&mut DocView, &OpenCorpus, TextGeometry)) {
        let geo = self.text_geometry();
        if let Some(shown) = &self.shown {
            f(&mut self.view, &shown.open, geo);
        }
        self.sync_document_cursor();
    }

    /// The document list follows the document shown.
    pub(super) fn sync_document_cursor(&mut self) {
        let len = self.list_len(Pane::Documents);
        let height = self.list_height(Pane::Documents);
        self.lists
            .documents
            .select(self.view.doc.0 as usize, len, height);
    }

    /// The entries of the search list presenter mode shows in the ranking pane, in rank order.
    pub(super) fn shown_list_entries(&self) -> Vec<seamscope::retrieve::EntryRef> {
        let (Some(i), Some(answer)) = (self.ranking_list(), &self.answer) else {
            return Vec::new();
        };
        search_lists(&answer.trace)
            .get(i)
            .map(|l| l.hits.iter().map(|h| h.entry).collect())
            .unwrap_or_default()
    }

    /// Rows in a list pane.
    pub(super) fn list_len(&self, pane: Pane) -> usize {
        match pane {
            Pane::Documents => self
                .shown
                .as_ref()
                .map_or(0, |s| s.open.corpus.documents.len()),
            Pane::Ranking if self.ranking_list().is_some() => self.shown_list_entries().len(),
            _ => self
                .answer
                .as_ref()
                .map_or(0, |a| result_len(pane, &a.trace)),
        }
    }

    /// After a list cursor moved: show its document, or the entry under it.
    pub(super) fn follow(&mut self, pane: Pane) {
        let Some(cursor) = self.lists.get(pane).copied() else {
            return;
        };
        if pane == Pane::Documents {
            self.view.select_doc(DocId(cursor.selected as u32));
            return;
        }
        let entry = if pane == Pane::Ranking && self.ranking_list().is_some() {
            self.shown_list_entries().get(cursor.selected).copied()
        } else {
            self.answer
                .as_ref()
                .and_then(|a| result_entry(pane, &a.trace, cursor.selected))
        };
        if let Some(entry) = entry {
            self.with_view(|v, open, geo| v.show(entry, open, geo));
        }
    }

    pub(super) fn move_selection(&mut self, delta: i32) {
        let pane = self.focus;
        if pane == Pane::Text {
            self.with_view(|v, open, geo| v.scroll_by(delta, open, geo));
            return;
        }
        let (len, height) = (self.list_len(pane), self.list_height(pane));
        if let Some(cursor) = self.lists.get_mut(pane) {
            cursor.move_by(delta, len, height);
            self.follow(pane);
        }
    }

    pub(super) fn select_edge(&mut self, end: bool) {
        let pane = self.focus;
        if pane == Pane::Text {
            self.with_view(|v, open, geo| v.scroll_to_edge(end, open, geo));
            return;
        }
        let (len, height) = (self.list_len(pane), self.list_height(pane));
        if let Some(cursor) = self.lists.get_mut(pane) {
            cursor.select(if end { len } else { 0 }, len, height);
            self.follow(pane);
        }
    }

    pub(super) fn click_row(&mut self, pane: Pane, row: u16) {
        self.focus = pane;
        self.typing = pane == Pane::Query;
        if pane == Pane::Text {
            self.with_view(|v, open, geo| v.click(row, open, geo));
            return;
        }
        let (len, height) = (self.list_len(pane), self.list_height(pane));
        let hit = self
            .lists
            .get_mut(pane)
            .is_some_and(|cursor| cursor.click(row, len, height));
        if hit {
            self.follow(pane);
        }
    }

    pub(super) fn scroll(&mut self, pane: Pane, delta: i32) {
        if pane == Pane::Text {
            self.with_view(|v, open, geo| v.scroll_by(delta, open, geo));
            return;
        }
        let (len, height) = (self.list_len(pane), self.list_height(pane));
        if let Some(cursor) = self.lists.get_mut(pane) {
            cursor.scroll_by(delta, len, height);
        }
    }

    /// Keep every list cursor inside its list (after a resize or a new result).
    pub(super) fn clamp_lists(&mut self) {
        for pane in Pane::ORDER {
            let (len, height) = (self.list_len(pane), self.list_height(pane));
            if let Some(cursor) = self.lists.get_mut(pane) {
                cursor.clamp(len, height);
            }
        }
    }
}
