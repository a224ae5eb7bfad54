//! The document view's rows: a document's text cut at every chunk start, each piece wrapped to
//! the pane's width, with one marker row where each chunk begins.
//!
//! Rows keep byte offsets into the original text, so cuts, seam windows and syntax ranges (all
//! byte spans) map onto the screen exactly. Text is only made safe (control characters and escape
//! sequences neutralised by [`seamscope::text::safe`]) when it is drawn, piece by piece.

use std::ops::Range;

use ratatui::text::Span;
use seamscope::chunk::ChunkId;
use seamscope::corpus::DocId;
use seamscope::layout::Layout;
use seamscope::seam::{Seam, SeamId};

/// Columns a tab takes on screen.
pub const TAB_WIDTH: usize = 4;
/// Columns left of the text for marks (a dot for chunks in the final context).
pub const GUTTER: usize = 2;

/// One row of the document view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// Where a chunk begins: the document's first chunk, or a cut (with the seam across it).
    Marker {
        /// The chunk that begins here.
        chunk: ChunkId,
        /// The seam across this cut; `None` for the document's first chunk.
        seam: Option<SeamId>,
    },
    /// Where text that no chunk holds begins (given cuts only), when it holds more than
    /// whitespace: `bytes` long.
    UncoveredMarker {
        /// Bytes no chunk holds from here.
        bytes: usize,
    },
    /// Bytes `start..end` of the document's text that no chunk holds (given cuts only).
    Uncovered {
        /// First byte.
        start: usize,
        /// One past the last byte.
        end: usize,
    },
    /// Bytes `start..end` of the document's text, inside `chunk`.
    Text {
        /// The chunk these bytes belong to.
        chunk: ChunkId,
        /// First byte.
        start: usize,
        /// One past the last byte (a trailing newline included, never shown).
        end: usize,
    },
}

/// The rows of one document at one width.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocRows {
    /// Rows from the top.
    pub rows: Vec<Row>,
}

/// The chunks of one document: a range of the layout's chunk table (chunks are in document order).
pub fn doc_chunks(layout: &Layout, doc: DocId) -> Range<usize> {
    let start = layout.chunks.partition_point(|c| c.doc < doc);
    let end = layout.chunks.partition_point(|c| c.doc <= doc);
    start..end
}

/// The seams of one document: a range of the layout's seam table.
pub fn doc_seams(layout: &Layout, doc: DocId) -> Range<usize> {
    let start = layout.seams.partition_point(|s| s.doc < doc);
    let end = layout.seams.partition_point(|s| s.doc <= doc);
    start..end
}

/// Columns one character takes once made safe for the screen.
pub fn char_width(c: char) -> usize {
    match c {
        ' '..='~' => 1,
        '\t' => TAB_WIDTH,
        '\n' | '\r' => 0,
        c => {
            let mut buf = [0u8; 4];
            Span::raw(seamscope::text::safe(c.encode_utf8(&mut buf))).width()
        }
    }
}

/// The text of a byte range as it is drawn: made safe, tabs expanded, line ends dropped.
pub fn display_text(raw: &str) -> String {
    let safe = seamscope::text::safe(raw);
    let mut out = String::with_capacity(safe.len());
    for c in safe.chars() {
        match c {
            '\t' => out.push_str(&" ".repeat(TAB_WIDTH)),
            '\n' => {}
            c => out.push(c),
        }
    }
    out
}

impl DocRows {
    /// Lay out document `doc` of `layout` (its text is `text`) in rows of at most `width` columns.
    pub fn build(text: &str, layout: &Layout, doc: DocId, width: usize) -> DocRows {
        let width = width.max(8);
        let chunks = &layout.chunks[doc_chunks(layout, doc)];
        let seams = &layout.seams[doc_seams(layout, doc)];
        let mut rows = Vec::new();
        // Given cuts may leave text no chunk holds; the built-in chunkers tile the document.
        let given = layout.given.is_some();
        if chunks.is_empty() && !given {
            return DocRows { rows };
        }
        let mut pos = 0;
        for (i, chunk) in chunks.iter().enumerate() {
            if given && chunk.span.start > pos {
                uncovered_rows(text, pos, chunk.span.start, width, &mut rows);
            }
            let start = if given || i > 0 {
                pos.max(chunk.span.start)
            } else {
                0
            };
            // A piece runs to the next chunk's start: the text two given chunks share is shown
            // once, after the marker of the chunk that begins in it.
            let end = match chunks.get(i + 1) {
                Some(next) if given => next.span.start.min(chunk.span.end),
                Some(next) => next.span.start,
                None if given => chunk.span.end,
                None => text.len(),
            };
            rows.push(Row::Marker {
                chunk: chunk.id,
                seam: seam_into(seams, chunk.id),
            });
            let end = end.max(start);
            text_rows(text, start, end, width, &mut |s, e| {
                rows.push(Row::Text {
                    chunk: chunk.id,
                    start: s,
                    end: e,
                })
            });
            pos = end;
        }
        if given && pos < text.len() {
            uncovered_rows(text, pos, text.len(), width, &mut rows);
        }
        DocRows { rows }
    }

    /// The row that shows byte `byte` (the last row starting at or before it).
    pub fn row_of_byte(&self, byte: usize) -> Option<usize> {
        self.rows.iter().rposition(|r| match r {
            Row::Text { start, .. } | Row::Uncovered { start, .. } => *start <= byte,
            _ => false,
        })
    }

    /// The marker row where `chunk` begins.
    pub fn marker_of(&self, chunk: ChunkId) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| matches!(r, Row::Marker { chunk: c, .. } if *c == chunk))
    }
}

/// Rows of bytes `start..end`, wrapped at `width`: `emit(start, end)` per row.
fn text_rows(
    text: &str,
    start: usize,
    end: usize,
    width: usize,
    emit: &mut dyn FnMut(usize, usize),
) {
    let mut base = start;
    for line in text[start..end].split_inclusive('\n') {
        wrap_line(line, base, width, emit);
        base += line.len();
    }
}

/// Rows for bytes `start..end` that no chunk holds: a marker row first unless they are only
/// whitespace (the separators a splitter stripped).
fn uncovered_rows(text: &str, start: usize, end: usize, width: usize, rows: &mut Vec<Row>) {
    if !text[start..end].trim().is_empty() {
        rows.push(Row::UncoveredMarker { bytes: end - start });
    }
    text_rows(text, start, end, width, &mut |s, e| {
        rows.push(Row::Uncovered { start: s, end: e })
    });
}

/// The seam whose right chunk is `chunk` (the seam across the cut where `chunk` begins).
fn seam_into(seams: &[Seam], chunk: ChunkId) -> Option<SeamId> {
    seams.iter().find(|s| s.right == chunk).map(|s| s.id)
}

/// Wrap one line (a trailing newline included) at word edges; calls `emit(start, end)` per row.
fn wrap_line(line: &str, base: usize, width: usize, emit: &mut dyn FnMut(usize, usize)) {
    let mut row_start = 0;
    let mut col = 0;
    let mut last_break: Option<usize> = None;
    for (i, c) in line.char_indices() {
        let w = char_width(c);
        if col + w > width && col > 0 {
            let cut = match last_break {
                Some(b) if b > row_start && b <= i => b,
                _ => i,
            };
            emit(base + row_start, base + cut);
            col = line[cut..i].chars().map(char_width).sum();
            row_start = cut;
            last_break = None;
        }
        col += w;
        if c == ' ' || c == '\t' {
            last_break = Some(i + c.len_utf8());
        }
    }
    emit(base + row_start, base + line.len());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(line: &str, width: usize) -> Vec<&str> {
        let mut out = Vec::new();
        wrap_line(line, 0, width, &mut |s, e| out.push(&line[s..e]));
        out
    }

    #[test]
    fn wraps_at_word_edges_and_keeps_every_byte() {
        let line = "the quick brown fox jumps over\n";
        let r = rows(line, 10);
        assert_eq!(r, vec!["the quick ", "brown fox ", "jumps over\n"]);
        assert_eq!(r.concat(), line);
        assert_eq!(rows("abcdefghijkl", 5), vec!["abcde", "fghij", "kl"]);
    }

    #[test]
    fn widths_follow_what_is_drawn() {
        assert_eq!(char_width('a'), 1);
        assert_eq!(char_width('\t'), TAB_WIDTH);
        assert_eq!(char_width('\u{1b}'), 1);
        assert_eq!(char_width('界'), 2);
        assert_eq!(display_text("a\tb\u{1b}[2J\r\n"), "a    b␛[2J");
    }
}
