//! The strategies an evaluation compares, as evidence units (what is returned) and pointers
//! (small vectors that only lead to units), all under one final budget.
//!
//! - **No overlap**: the baseline chunks, disjoint.
//! - **Overlap**: chunks of the same size whose starts step back by `overlap` tokens, so
//!   neighbours share text (and duplicates reach the context).
//! - **Windows**: windows of `width` tokens every `stride` tokens, each linked to the chunks it
//!   overlaps; a window hit brings its chunks at its rank (a multi-vector retriever).
//! - **Windows at chunk stride**: one window of a seam's width in the middle of every chunk: as
//!   many vectors as Seams, placed away from the cuts, to show whether placement is what helps.
//! - **Neighbour expansion**: chunks-only retrieval where each returned chunk also brings a
//!   neighbour that itself ranks within the first `2 × budget` places (adaptive, no extra vectors).
//! - **Seams**: the baseline chunks plus one seam per cut, with the fire test.
//! - **Overlap + Seams**: the overlapping chunks plus one seam centred on each overlap.
//! - **Late chunking**: the baseline chunks, each vector pooled from the token states of its
//!   document read whole (in macro windows past the model's window); **late + Seams** pools the
//!   seams the same way and adds the fire test.
//! - **Contextual**: the baseline chunks, each searched with a context a language model wrote
//!   for it put before its text; **contextual + Seams** adds the seams and the fire test.

use serde::{Deserialize, Serialize};

use crate::chunk::fixed::word_start_at_or_before;
use crate::corpus::{DocId, Span};
use crate::tokens::TokenOffsets;

/// One strategy of the comparison grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Strategy {
    /// Disjoint chunks only.
    NoOverlap,
    /// Chunks overlapping by this many tokens.
    Overlap {
        /// Tokens shared by neighbours.
        tokens: usize,
    },
    /// Windows linked to the chunks they overlap.
    Windows {
        /// Window length in tokens.
        width: usize,
        /// Tokens between window starts.
        stride: usize,
    },
    /// One window of this width in the middle of each chunk.
    ChunkStrideWindows {
        /// Window length in tokens.
        width: usize,
    },
    /// Chunks only, each bringing a well-ranked neighbour.
    NeighbourExpansion,
    /// Seams of half-width `k`, with the fire test.
    Seams {
        /// Seam half-width.
        k: usize,
    },
    /// Chunks overlapping by `tokens`, plus a seam of half-width `k` centred on the middle of
    /// each overlap, with the fire test: both repairs at once.
    OverlapSeams {
        /// Tokens shared by neighbours.
        tokens: usize,
        /// Seam half-width.
        k: usize,
    },
    /// The baseline chunks, each vector pooled from its document's token states (late
    /// chunking, [`crate::embed::late`]), read in macro windows of `window` tokens.
    LateChunks {
        /// The model's window, in tokens.
        window: usize,
    },
    /// Late chunking's chunks plus seams of half-width `k` pooled the same way, with the fire
    /// test.
    LateSeams {
        /// The model's window, in tokens.
        window: usize,
        /// Seam half-width.
        k: usize,
    },
    /// The baseline chunks, each searched (dense and BM25) with a context a language model wrote
    /// for it put before its text ([`crate::eval::contextual`]).
    Contextual,
    /// Contextual chunks plus seams of half-width `k` (their windows as Seams' are), with the
    /// fire test.
    ContextualSeams {
        /// Seam half-width.
        k: usize,
    },
}

impl Strategy {
    /// A short label for tables.
    pub fn label(&self, chunk_tokens: usize) -> String {
        match *self {
            Strategy::NoOverlap => "no overlap".into(),
            Strategy::Overlap { tokens } => format!(
                "overlap {tokens} ({:.1}%)",
                tokens as f64 * 100.0 / chunk_tokens as f64
            ),
            Strategy::Windows { width, stride } => format!("windows {width}/{stride}"),
            Strategy::ChunkStrideWindows { width } => format!("windows {width}/chunk"),
            Strategy::NeighbourExpansion => "neighbour expansion".into(),
            Strategy::Seams { k } => format!("Seams k={k}"),
            Strategy::OverlapSeams { tokens, k } => format!(
                "overlap {tokens} ({:.1}%) + Seams k={k}",
                tokens as f64 * 100.0 / chunk_tokens as f64
            ),
            Strategy::LateChunks { window } => format!("late · window {window}"),
            Strategy::LateSeams { window, k } => format!("late · window {window} + Seams k={k}"),
            Strategy::Contextual => "contextual".into(),
            Strategy::ContextualSeams { k } => format!("contextual + Seams k={k}"),
        }
    }

    /// The grid of DESIGN.md §7 for chunks of `chunk_tokens` and seams of half-width `ks`; the
    /// chunk-stride windows take the width of a seam at half-width `k`.
    pub fn grid(chunk_tokens: usize, k: usize, ks: &[usize]) -> Vec<Strategy> {
        let mut g = vec![
            Strategy::NoOverlap,
            Strategy::Overlap {
                tokens: (chunk_tokens * 15).div_ceil(100).min(chunk_tokens / 2),
            },
            Strategy::Windows {
                width: 256,
                stride: 128,
            },
            Strategy::ChunkStrideWindows { width: 2 * k },
            Strategy::NeighbourExpansion,
        ];
        g.extend(ks.iter().map(|&k| Strategy::Seams { k }));
        g
    }
}

/// An evidence unit: a span of a document that can be returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Unit {
    /// The document.
    pub doc: DocId,
    /// The span.
    pub span: Span,
    /// Its tokens.
    pub tokens: u32,
}

/// A unit of a compared strategy, by its index in the strategy's unit table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct UnitId(pub u32);

/// A pointer of a compared strategy (a seam window, a sliding window), by its index in the
/// strategy's pointer table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PointerId(pub u32);

impl UnitId {
    /// Its index in the unit table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl PointerId {
    /// Its index in the pointer table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A pointer: a span searched but never returned, linked to the units it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pointer {
    /// The document.
    pub doc: DocId,
    /// The span searched.
    pub span: Span,
    /// The units it leads to, in document order.
    pub links: Vec<UnitId>,
    /// For a seam, its cut ([`crate::seam::cut_between`]): where the right unit starts, or the
    /// middle of the overlap or gap between given chunks. `None` for other pointers.
    pub cut: Option<usize>,
}

/// Chunks of `size` tokens whose starts step by `size - overlap` tokens (moved to word starts).
pub fn overlapping_spans(
    text: &str,
    offs: &TokenOffsets,
    size: usize,
    overlap: usize,
) -> Vec<Span> {
    let n = offs.len();
    let step = size.saturating_sub(overlap).max(1);
    let mut spans = Vec::new();
    let mut first = 0usize;
    let mut start = 0usize;
    loop {
        if n - first <= size {
            spans.push(Span::new(start, text.len()));
            return spans;
        }
        let end = word_start_at_or_before(text, offs.starts[first + size], start);
        let end = if end > start {
            end
        } else {
            offs.starts[first + size]
        };
        spans.push(Span::new(start, end));
        let next_first = first + step;
        let next = word_start_at_or_before(text, offs.starts[next_first], start);
        let next = if next > start {
            next
        } else {
            offs.starts[next_first]
        };
        first = offs.first_at_or_after(next);
        start = next;
    }
}

/// Each of a document's chunk spans (in order) reaching back `overlap` tokens into the text
/// before it, snapped back to a word start: overlap added to another chunker's own cuts, so the
/// comparison measures overlap, not a change of chunker.
pub fn extended_back(
    text: &str,
    offs: &TokenOffsets,
    chunks: &[Span],
    overlap: usize,
) -> Vec<Span> {
    chunks
        .iter()
        .map(|c| {
            let first = offs.first_at_or_after(c.start);
            let back = first.saturating_sub(overlap);
            let start = if back < first {
                crate::chunk::fixed::word_start_at_or_before(text, offs.starts[back], 0)
            } else {
                c.start
            };
            Span::new(start.min(c.start), c.end)
        })
        .collect()
}

/// Windows of `width` tokens starting every `stride` tokens from token `first`, snapped back to
/// word starts; the last window reaches the end of the text.
pub fn token_windows(
    text: &str,
    offs: &TokenOffsets,
    width: usize,
    stride: usize,
    first: usize,
) -> Vec<Span> {
    let n = offs.len();
    let mut out = Vec::new();
    let mut i = first;
    while i < n {
        let start = word_start_at_or_before(text, offs.starts[i], 0);
        let last = (i + width).min(n) - 1;
        out.push(Span::new(start, offs.ends[last]));
        if i + width >= n {
            break;
        }
        i = i.saturating_add(stride.max(1));
    }
    out
}

/// Link each pointer span to the units of the same document it overlaps.
pub fn link(doc: DocId, spans: Vec<Span>, units: &[Unit]) -> Vec<Pointer> {
    spans
        .into_iter()
        .map(|span| Pointer {
            doc,
            span,
            links: units
                .iter()
                .enumerate()
                .filter(|(_, u)| u.doc == doc && u.span.overlaps(&span))
                .map(|(i, _)| UnitId(i as u32))
                .collect(),
            cut: None,
        })
        .filter(|p| !p.links.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> (String, TokenOffsets) {
        let text: String = (0..n).map(|i| format!("w{i} ")).collect();
        let mut o = TokenOffsets::default();
        let mut pos = 0;
        for i in 0..n {
            let len = format!("w{i}").len();
            o.starts.push(pos);
            o.ends.push(pos + len);
            pos += len + 1;
        }
        (text, o)
    }

    #[test]
    fn overlap_repeats_the_given_tokens() {
        let (text, o) = words(25);
        let spans = overlapping_spans(&text, &o, 10, 2);
        // Starts every 8 tokens: 0, 8, 16; the last reaches the end.
        let firsts: Vec<usize> = spans.iter().map(|s| o.first_at_or_after(s.start)).collect();
        assert_eq!(firsts, vec![0, 8, 16]);
        assert_eq!(o.count_in(spans[0].start, spans[0].end), 10);
        assert_eq!(spans.last().map(|s| s.end), Some(text.len()));
    }

    #[test]
    fn windows_cover_the_text_and_link_to_overlapped_units() {
        let (text, o) = words(20);
        let w = token_windows(&text, &o, 8, 4, 0);
        let firsts: Vec<usize> = w.iter().map(|s| o.first_at_or_after(s.start)).collect();
        assert_eq!(firsts, vec![0, 4, 8, 12]);
        assert_eq!(w.last().map(|s| s.end), Some(o.ends[19]));
        let units = [
            Unit {
                doc: DocId(0),
                span: Span::new(0, o.starts[10]),
                tokens: 10,
            },
            Unit {
                doc: DocId(0),
                span: Span::new(o.starts[10], text.len()),
                tokens: 10,
            },
        ];
        let ptrs = link(DocId(0), w, &units);
        assert_eq!(ptrs[0].links, vec![UnitId(0)]);
        assert_eq!(ptrs[1].links, vec![UnitId(0), UnitId(1)]);
        assert_eq!(ptrs[3].links, vec![UnitId(1)]);
    }
}
