//! The document view's state: which document, which chunk or seam is under the cursor, and how
//! far the text is scrolled; with the moves from chunk to chunk and cut to cut.

use seamscope::chunk::ChunkId;
use seamscope::corpus::DocId;
use seamscope::retrieve::EntryRef;
use seamscope::seam::SeamId;
use seamscope::session::OpenCorpus;

use crate::tui::doc_rows::{DocRows, Row, doc_chunks, doc_seams};

/// Rows the document view has to work with: wrap width and visible height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextGeometry {
    /// Columns for text.
    pub width: usize,
    /// Rows shown.
    pub height: usize,
}

/// What the document view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocView {
    /// The document shown.
    pub doc: DocId,
    /// The chunk or seam under the cursor.
    pub cursor: Option<EntryRef>,
    /// The first row shown.
    pub scroll: usize,
}

impl Default for DocView {
    fn default() -> Self {
        DocView {
            doc: DocId(0),
            cursor: None,
            scroll: 0,
        }
    }
}

/// The document an entry belongs to, if the entry exists in this layout.
pub fn entry_doc(open: &OpenCorpus, entry: EntryRef) -> Option<DocId> {
    match entry {
        EntryRef::Chunk(c) => open.layout.chunks.get(c.0 as usize).map(|c| c.doc),
        EntryRef::Seam(s) => open.layout.seams.get(s.0 as usize).map(|s| s.doc),
    }
}

impl DocView {
    /// The rows of the document shown.
    pub fn rows(&self, open: &OpenCorpus, width: usize) -> DocRows {
        match open.corpus.documents.get(self.doc.0 as usize) {
            Some(doc) => DocRows::build(&doc.text, &open.layout, self.doc, width),
            None => DocRows::default(),
        }
    }

    /// Show another document from its top, with no cursor.
    pub fn select_doc(&mut self, doc: DocId) {
        if doc != self.doc {
            *self = DocView {
                doc,
                cursor: None,
                scroll: 0,
            };
        }
    }

    /// Keep the view valid for a newly opened layout (chunks and seams may have new ids).
    pub fn revalidate(&mut self, open: &OpenCorpus) {
        if self.doc.0 as usize >= open.corpus.documents.len() {
            *self = DocView::default();
        }
        if self
            .cursor
            .is_some_and(|e| entry_doc(open, e) != Some(self.doc))
        {
            self.cursor = None;
        }
    }

    /// Put the cursor on `entry`, switching to its document and scrolling to it.
    pub fn show(&mut self, entry: EntryRef, open: &OpenCorpus, geo: TextGeometry) {
        let Some(doc) = entry_doc(open, entry) else {
            return;
        };
        self.doc = doc;
        self.cursor = Some(entry);
        let rows = self.rows(open, geo.width);
        let target = match entry {
            EntryRef::Chunk(c) => rows.marker_of(c).unwrap_or(0),
            EntryRef::Seam(s) => {
                let cut_row = open
                    .layout
                    .seams
                    .get(s.0 as usize)
                    .and_then(|seam| rows.marker_of(seam.right))
                    .unwrap_or(0);
                cut_row.saturating_sub(geo.height / 3)
            }
        };
        self.scroll = target.min(max_scroll(&rows, geo.height));
    }

    /// Show byte `byte` of document `doc` a third of the way down, the cursor on the chunk that
    /// holds it (none when no chunk does: text given cuts left out).
    pub fn show_byte(&mut self, doc: DocId, byte: usize, open: &OpenCorpus, geo: TextGeometry) {
        if doc.0 as usize >= open.corpus.documents.len() {
            return;
        }
        self.doc = doc;
        self.cursor = open.layout.chunks[doc_chunks(&open.layout, doc)]
            .iter()
            .find(|c| c.span.start <= byte && byte < c.span.end)
            .map(|c| EntryRef::Chunk(c.id));
        let rows = self.rows(open, geo.width);
        let target = rows
            .row_of_byte(byte)
            .unwrap_or(0)
            .saturating_sub(geo.height / 3);
        self.scroll = target.min(max_scroll(&rows, geo.height));
    }

    /// Move the cursor to the next (`step` > 0) or previous chunk of this document.
    pub fn step_chunk(&mut self, step: i32, open: &OpenCorpus, geo: TextGeometry) {
        let range = doc_chunks(&open.layout, self.doc);
        if range.is_empty() {
            return;
        }
        let current = match self.cursor {
            Some(EntryRef::Chunk(c)) => Some(c.0 as usize),
            Some(EntryRef::Seam(s)) => open.layout.seams.get(s.0 as usize).map(|seam| {
                // From a seam, "next" is its right chunk and "previous" its left chunk.
                if step > 0 {
                    (seam.right.0 as usize).saturating_sub(1)
                } else {
                    seam.right.0 as usize
                }
            }),
            None => None,
        };
        let target = match current {
            Some(i) => stepped(i, step, range.start, range.end),
            None if step > 0 => range.start,
            None => range.end - 1,
        };
        self.show(EntryRef::Chunk(ChunkId(target as u32)), open, geo);
    }

    /// Move the cursor to the next (`step` > 0) or previous cut of this document (its seam).
    pub fn step_cut(&mut self, step: i32, open: &OpenCorpus, geo: TextGeometry) {
        let range = doc_seams(&open.layout, self.doc);
        if range.is_empty() {
            return;
        }
        let seams = &open.layout.seams[range.clone()];
        let target = match self.cursor {
            Some(EntryRef::Seam(s)) => stepped(s.0 as usize, step, range.start, range.end),
            Some(EntryRef::Chunk(c)) => {
                // From a chunk, "next" is the cut at its end and "previous" the cut at its start.
                let found = if step > 0 {
                    seams.iter().find(|s| s.left == c)
                } else {
                    seams.iter().find(|s| s.right == c)
                };
                match found {
                    Some(seam) => seam.id.0 as usize,
                    None if step > 0 => range.end - 1,
                    None => range.start,
                }
            }
            None if step > 0 => range.start,
            None => range.end - 1,
        };
        self.show(EntryRef::Seam(SeamId(target as u32)), open, geo);
    }

    /// Scroll by `delta` rows.
    pub fn scroll_by(&mut self, delta: i32, open: &OpenCorpus, geo: TextGeometry) {
        let rows = self.rows(open, geo.width);
        let target = (self.scroll as i64 + i64::from(delta)).max(0) as usize;
        self.scroll = target.min(max_scroll(&rows, geo.height));
    }

    /// Scroll to the top (false) or the bottom (true).
    pub fn scroll_to_edge(&mut self, end: bool, open: &OpenCorpus, geo: TextGeometry) {
        self.scroll = if end {
            max_scroll(&self.rows(open, geo.width), geo.height)
        } else {
            0
        };
    }

    /// Put the cursor on what a click on row `row` (counted from the top shown) points at: the
    /// seam whose window holds that text, else its chunk; a cut marker selects its seam.
    pub fn click(&mut self, row: u16, open: &OpenCorpus, geo: TextGeometry) {
        let rows = self.rows(open, geo.width);
        let Some(hit) = rows.rows.get(self.scroll + usize::from(row)) else {
            return;
        };
        self.cursor = Some(match *hit {
            Row::Marker {
                seam: Some(seam), ..
            } => EntryRef::Seam(seam),
            Row::Marker { chunk, seam: None } => EntryRef::Chunk(chunk),
            Row::UncoveredMarker { .. } | Row::Uncovered { .. } => return,
            Row::Text { chunk, start, .. } => {
                let seams = &open.layout.seams[doc_seams(&open.layout, self.doc)];
                match seams
                    .iter()
                    .find(|s| s.span.start <= start && start < s.span.end)
                {
                    Some(seam) => EntryRef::Seam(seam.id),
                    None => EntryRef::Chunk(chunk),
                }
            }
        });
    }
}

/// The largest scroll that still fills the view.
fn max_scroll(rows: &DocRows, height: usize) -> usize {
    rows.rows.len().saturating_sub(height.max(1))
}

/// `i` moved by `step`, kept inside `start..end`.
fn stepped(i: usize, step: i32, start: usize, end: usize) -> usize {
    let target = i as i64 + i64::from(step.signum());
    target.clamp(start as i64, end as i64 - 1) as usize
}
