//! The lists of the result panes: how many rows each has and which chunk or seam a row shows.

use seamscope::chunk::ChunkId;
use seamscope::retrieve::{Comparison, EntryRef, Trace};

use super::list_cursor::ListCursor;
use crate::tui::action::Pane;

/// One row of the "with / without Seams" list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareRow {
    /// The chunk.
    pub chunk: ChunkId,
    /// Whether the context with Seams holds it.
    pub with_seams: bool,
    /// Whether the context without Seams holds it.
    pub without_seams: bool,
}

/// The comparison shown: the real chunks-only retrieval when it ran, else seams deleted.
pub fn comparison(trace: &Trace) -> &Comparison {
    trace.without_seams.shown()
}

/// The context with Seams in fill order, then the chunks Seams displaced.
pub fn compare_rows(trace: &Trace) -> Vec<CompareRow> {
    let cmp = comparison(trace);
    let with = cmp.with_seams.iter().map(|&chunk| CompareRow {
        chunk,
        with_seams: true,
        without_seams: cmp.without_seams.contains(&chunk),
    });
    let displaced = cmp.displaced.iter().map(|&chunk| CompareRow {
        chunk,
        with_seams: false,
        without_seams: true,
    });
    with.chain(displaced).collect()
}

/// Rows in a result pane's list.
pub fn result_len(pane: Pane, trace: &Trace) -> usize {
    match pane {
        Pane::Ranking => trace.fused.len(),
        Pane::Fire => trace.decisions.len(),
        Pane::Budget => trace.fill.steps.len(),
        Pane::Compare => compare_rows(trace).len(),
        Pane::Documents | Pane::Text | Pane::Query => 0,
    }
}

/// The chunk or seam a result pane's row shows.
pub fn result_entry(pane: Pane, trace: &Trace, index: usize) -> Option<EntryRef> {
    match pane {
        Pane::Ranking => trace.fused.get(index).map(|e| e.entry),
        Pane::Fire => trace.decisions.get(index).map(|d| EntryRef::Seam(d.seam)),
        Pane::Budget => trace.fill.steps.get(index).map(|s| s.entry),
        Pane::Compare => compare_rows(trace)
            .get(index)
            .map(|r| EntryRef::Chunk(r.chunk)),
        Pane::Documents | Pane::Text | Pane::Query => None,
    }
}

/// The cursor of every list pane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lists {
    /// The document list.
    pub documents: ListCursor,
    /// The fused ranking.
    pub ranking: ListCursor,
    /// The fire test.
    pub fire: ListCursor,
    /// The budget fill.
    pub budget: ListCursor,
    /// With and without Seams.
    pub compare: ListCursor,
}

impl Lists {
    /// A list pane's cursor (`None` for the text and the query box).
    pub fn get(&self, pane: Pane) -> Option<&ListCursor> {
        match pane {
            Pane::Documents => Some(&self.documents),
            Pane::Ranking => Some(&self.ranking),
            Pane::Fire => Some(&self.fire),
            Pane::Budget => Some(&self.budget),
            Pane::Compare => Some(&self.compare),
            Pane::Text | Pane::Query => None,
        }
    }

    /// A list pane's cursor, to move it.
    pub fn get_mut(&mut self, pane: Pane) -> Option<&mut ListCursor> {
        match pane {
            Pane::Documents => Some(&mut self.documents),
            Pane::Ranking => Some(&mut self.ranking),
            Pane::Fire => Some(&mut self.fire),
            Pane::Budget => Some(&mut self.budget),
            Pane::Compare => Some(&mut self.compare),
            Pane::Text | Pane::Query => None,
        }
    }

    /// Put every result list back at its top (a new result arrived).
    pub fn reset_results(&mut self) {
        let documents = self.documents;
        *self = Lists {
            documents,
            ..Lists::default()
        };
    }
}
