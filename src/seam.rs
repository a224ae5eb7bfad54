//! Seams: one small search window over every cut between two adjacent chunks, linked to both.
//!
//! Seam text is only a pointer for search. It is never returned as evidence.

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkId;
use crate::corpus::{DocId, Span};

/// Index of a seam in a corpus-wide seam table; defined with the retrieval stages in the `seams`
/// crate.
pub use seams::SeamId;

/// One seam window: the text around the cut between `left` and `right`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seam {
    /// Position in the corpus-wide seam table.
    pub id: SeamId,
    /// The document both chunks belong to.
    pub doc: DocId,
    /// The chunk that ends at the cut.
    pub left: ChunkId,
    /// The chunk that starts at the cut.
    pub right: ChunkId,
    /// The byte position of the cut: the right chunk's start when the chunks touch; for given
    /// chunks that overlap or leave a gap, the middle of the overlap or of the gap (see
    /// [`cut_between`]).
    pub cut: usize,
    /// Byte span of the window; it lies inside `left ∪ right`.
    pub span: Span,
    /// Tokens of the window that lie in the left chunk.
    pub left_tokens: u32,
    /// Tokens of the window that lie in the right chunk.
    pub right_tokens: u32,
}

use unicode_segmentation::UnicodeSegmentation;

use crate::chunk::Chunk;
use crate::corpus::Corpus;
use crate::tokens::TokenOffsets;

/// Sentence edges of a text (UAX #29), as ascending byte offsets including 0 and `text.len()`.
pub fn sentence_edges(text: &str) -> Vec<usize> {
    let mut edges: Vec<usize> = text
        .split_sentence_bound_indices()
        .map(|(i, _)| i)
        .collect();
    edges.push(text.len());
    edges.dedup();
    edges
}

/// Where the seam between two neighbouring chunks of one text is centred.
///
/// Chunks that touch (every built-in chunker) are cut where the right one begins. Given chunks
/// may overlap (a splitter's `chunk_overlap`): the cut is then the middle of the shared text,
/// moved back to a word start inside it, so each chunk keeps its side. Given chunks may also
/// leave a gap (text no chunk holds, usually the whitespace a splitter stripped): the cut is the
/// middle of the gap.
pub fn cut_between(text: &str, left: Span, right: Span) -> usize {
    if right.start == left.end {
        return right.start;
    }
    let (from, to) = if right.start < left.end {
        (right.start, left.end.min(right.end))
    } else {
        (left.end, right.start)
    };
    let mid = crate::chunk::pack::floor_char_boundary(text, from + (to - from) / 2).max(from);
    if right.start < left.end {
        crate::chunk::fixed::word_start_at_or_before(text, mid, from)
    } else {
        mid
    }
}

/// Build one seam per cut between adjacent chunks of the same document.
///
/// Each window takes the last `k` tokens of the left chunk and the first `k` tokens of the right
/// chunk, then grows outward to the nearest sentence edges (never past either chunk), so each side
/// keeps at least `k` tokens unless its chunk is shorter. Growth stops at a word start after
/// `2k` extra tokens, so a text without sentence edges (minified code, tables) cannot turn a seam
/// into two whole chunks.
pub fn build_seams(
    corpus: &Corpus,
    offsets: &[TokenOffsets],
    chunks: &[Chunk],
    k: usize,
) -> Vec<Seam> {
    let mut seams = Vec::new();
    let mut edges_cache: Option<(crate::corpus::DocId, Vec<usize>)> = None;
    for pair in chunks.windows(2) {
        let (left, right) = (&pair[0], &pair[1]);
        if left.doc != right.doc {
            continue;
        }
        let doc = corpus.doc(left.doc);
        let offs = &offsets[left.doc.0 as usize];
        if edges_cache.as_ref().map(|(d, _)| *d) != Some(left.doc) {
            edges_cache = Some((left.doc, sentence_edges(&doc.text)));
        }
        let edges = edges_cache
            .as_ref()
            .map(|(_, e)| e.as_slice())
            .unwrap_or(&[]);
        let cut = cut_between(&doc.text, left.span, right.span);
        let span = seam_window_at(&doc.text, offs, edges, left.span, right.span, cut, k);
        seams.push(Seam {
            id: SeamId(seams.len() as u32),
            doc: left.doc,
            left: left.id,
            right: right.id,
            cut,
            span,
            left_tokens: offs.count_in(span.start, cut) as u32,
            right_tokens: offs.count_in(cut, span.end) as u32,
        });
    }
    seams
}

/// The window around the cut between `left` and `right` (adjacent spans of one text that touch:
/// the cut is where `right` begins).
pub fn seam_window(
    text: &str,
    offs: &TokenOffsets,
    edges: &[usize],
    left: Span,
    right: Span,
    k: usize,
) -> Span {
    seam_window_at(text, offs, edges, left, right, right.start, k)
}

/// The window around `cut`, a point between `left.start` and `right.end` ([`cut_between`]): `k`
/// tokens each side of it, grown outward to sentence edges, never leaving `left.start..right.end`.
pub fn seam_window_at(
    text: &str,
    offs: &TokenOffsets,
    edges: &[usize],
    left: Span,
    right: Span,
    cut: usize,
    k: usize,
) -> Span {
    let cut_tok = offs.first_at_or_after(cut);
    let left_first = offs.first_at_or_after(left.start);
    let right_end_tok = offs.first_at_or_after(right.end);

    // Raw window: k tokens each side, clamped to the chunks.
    let start_tok = cut_tok.saturating_sub(k).max(left_first);
    let raw_start = if start_tok < cut_tok {
        offs.starts[start_tok]
    } else {
        cut
    };
    let end_tok = (cut_tok + k).min(right_end_tok);
    let raw_end = if end_tok > cut_tok {
        offs.ends[end_tok - 1]
    } else {
        cut
    };

    // Grow outward to sentence edges, limited to the chunks and to 2k extra tokens.
    let limit_start_tok = start_tok.saturating_sub(2 * k).max(left_first);
    let limit_start = if limit_start_tok < cut_tok {
        offs.starts[limit_start_tok].min(raw_start)
    } else {
        raw_start
    };
    let start = match edges.iter().rev().find(|&&e| e <= raw_start) {
        Some(&e) if e >= limit_start.max(left.start) => e,
        _ => crate::chunk::fixed::word_start_at_or_before(text, limit_start, left.start),
    };
    let limit_end_tok = (end_tok + 2 * k).min(right_end_tok);
    let limit_end = if limit_end_tok > cut_tok {
        offs.ends[limit_end_tok - 1].max(raw_end)
    } else {
        raw_end
    };
    let end = match edges.iter().find(|&&e| e >= raw_end) {
        Some(&e) if e <= limit_end.min(right.end) => e,
        _ => word_end_at_or_after(text, limit_end.min(right.end), right.end),
    };
    // Whitespace at either end holds no tokens; trim it so the window reads cleanly.
    let inner = &text[start..end];
    let trimmed_start = start + (inner.len() - inner.trim_start().len());
    let trimmed_end = end - (inner.len() - inner.trim_end().len());
    if trimmed_start <= cut && cut <= trimmed_end {
        Span::new(trimmed_start, trimmed_end)
    } else {
        Span::new(start, end)
    }
}

/// The end of the whitespace-delimited word holding the byte before `pos`, not going past `ceiling`.
fn word_end_at_or_after(text: &str, pos: usize, ceiling: usize) -> usize {
    match text[pos..ceiling]
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
    {
        Some((i, _)) => pos + i,
        None => ceiling,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten words `w0 … w9`, one token each, and their token offsets.
    fn words() -> (String, TokenOffsets) {
        let text: String = (0..10).map(|i| format!("w{i} ")).collect();
        (text.clone(), TokenOffsets::of_words(&text))
    }

    #[test]
    fn touching_chunks_are_cut_where_the_right_one_starts() {
        let (text, _) = words();
        assert_eq!(cut_between(&text, Span::new(0, 9), Span::new(9, 30)), 9);
    }

    #[test]
    fn overlapping_chunks_are_cut_in_the_middle_of_the_overlap_at_a_word_start() {
        let (text, offs) = words();
        // Left holds w0..w6 (bytes 0..20), right w4..w9 (12..30): they share w4 w5 w6, bytes 12..20.
        let (left, right) = (Span::new(0, 20), Span::new(12, 30));
        let cut = cut_between(&text, left, right);
        assert_eq!(
            cut, 15,
            "w5 starts at byte 15, the word holding the middle (16)"
        );
        let window = seam_window_at(&text, &offs, &sentence_edges(&text), left, right, cut, 1);
        // One token each side of the cut (w4 | w5), grown by at most 2k tokens each way, as
        // there is no sentence edge near.
        assert_eq!(&text[window.start..window.end], "w2 w3 w4 w5 w6 w7");
        assert!(left.start <= window.start && window.end <= right.end);
    }

    #[test]
    fn a_gap_is_cut_in_its_middle_and_the_window_spans_it() {
        let (text, offs) = words();
        // Left w0..w2 (0..8), right w5..w9 (15..30): w3 w4 lie in neither.
        let (left, right) = (Span::new(0, 8), Span::new(15, 30));
        let cut = cut_between(&text, left, right);
        assert_eq!(cut, 11);
        let window = seam_window_at(&text, &offs, &sentence_edges(&text), left, right, cut, 1);
        assert!(window.start <= 9 && window.end >= 14, "{window:?}");
        assert!(left.start <= window.start && window.end <= right.end);
    }
}
