//! Greedy packing: consecutive pieces of a text join one chunk until the next would pass the token
//! budget. Shared by the sentence, recursive and structure-aware chunkers.
//!
//! Token counts are additive over contiguous spans (a token belongs to the span it starts in), so
//! the sum of the pieces' counts is exactly the count of the chunk they form.

use crate::corpus::Span;
use crate::tokens::TokenOffsets;

use super::fixed::word_start_at_or_before;

/// Builds contiguous chunks from contiguous pieces, none over the budget.
pub(crate) struct Packer<'a> {
    text: &'a str,
    offsets: &'a TokenOffsets,
    max: usize,
    spans: Vec<Span>,
    start: usize,
    end: usize,
    tokens: usize,
}

impl<'a> Packer<'a> {
    /// A packer for `text` with chunks of at most `max` tokens (at least 1).
    pub fn new(text: &'a str, offsets: &'a TokenOffsets, max: usize) -> Self {
        Packer {
            text,
            offsets,
            max: max.max(1),
            spans: Vec::new(),
            start: 0,
            end: 0,
            tokens: 0,
        }
    }

    /// Tokens starting inside `span`.
    pub fn count(&self, span: Span) -> usize {
        self.offsets.count_in(span.start, span.end)
    }

    /// Add the next piece (it must start where the previous one ended). A piece that does not fit
    /// starts a new chunk; a piece over the budget on its own is split at word starts (and, for a
    /// single word over the budget, at token starts).
    pub fn push(&mut self, piece: Span) {
        debug_assert_eq!(piece.start, self.end, "pieces must be contiguous");
        let t = self.count(piece);
        if self.tokens + t <= self.max {
            self.end = piece.end;
            self.tokens += t;
            return;
        }
        self.cut();
        if t <= self.max {
            self.end = piece.end;
            self.tokens = t;
            return;
        }
        // Over the budget alone: the current chunk holds no tokens, so it joins the first part.
        let parts = split_words(
            self.text,
            self.offsets,
            Span::new(self.start, piece.end),
            self.max,
        );
        let Some((last, full)) = parts.split_last() else {
            return;
        };
        self.spans.extend_from_slice(full);
        self.start = last.start;
        self.end = last.end;
        self.tokens = self.count(*last);
    }

    /// End the current chunk here, unless it holds no tokens yet.
    pub fn cut(&mut self) {
        if self.tokens > 0 {
            self.spans.push(Span::new(self.start, self.end));
            self.start = self.end;
            self.tokens = 0;
        }
    }

    /// The chunks, the last one running to the end of the text.
    pub fn finish(mut self) -> Vec<Span> {
        if self.start < self.text.len() || self.spans.is_empty() {
            self.spans.push(Span::new(self.start, self.text.len()));
        } else if let Some(last) = self.spans.last_mut() {
            last.end = self.text.len();
        }
        self.spans
    }
}

/// Cut `span` into contiguous parts of at most `max` tokens, each cut moved back to a word start;
/// a single word over the budget is cut at token starts.
///
/// The one exception to the budget: when more than `max` tokens start at the same byte (a cut
/// cannot fall between them), the part holding them is longer.
pub(crate) fn split_words(text: &str, offsets: &TokenOffsets, span: Span, max: usize) -> Vec<Span> {
    let max = max.max(1);
    let mut out = Vec::new();
    let mut start = span.start;
    let last = offsets.first_at_or_after(span.end);
    loop {
        let first = offsets.first_at_or_after(start);
        if last - first <= max {
            out.push(Span::new(start, span.end));
            return out;
        }
        let token_cut = floor_char_boundary(text, offsets.starts[first + max]);
        let word_cut = word_start_at_or_before(text, token_cut, start);
        let mut cut = if word_cut > start {
            word_cut
        } else {
            token_cut
        };
        if cut <= start {
            cut = offsets.starts[first..last]
                .iter()
                .map(|&s| floor_char_boundary(text, s))
                .find(|&s| s > start)
                .unwrap_or(span.end);
        }
        out.push(Span::new(start, cut));
        start = cut;
        if start >= span.end {
            return out;
        }
    }
}

/// The largest char boundary at or before `pos`.
pub(crate) fn floor_char_boundary(text: &str, pos: usize) -> usize {
    let mut p = pos.min(text.len());
    while !text.is_char_boundary(p) {
        p -= 1;
    }
    p
}

/// Pieces between consecutive `edges` (sorted, deduplicated, within the text), covering the text.
pub(crate) fn pieces_between(edges: &[usize], len: usize) -> Vec<Span> {
    let mut bounds: Vec<usize> = edges
        .iter()
        .copied()
        .filter(|&e| e > 0 && e < len)
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    let mut out = Vec::with_capacity(bounds.len() + 1);
    let mut prev = 0;
    for b in bounds {
        out.push(Span::new(prev, b));
        prev = b;
    }
    out.push(Span::new(prev, len));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One token per whitespace-delimited word.
    pub(crate) fn words(text: &str) -> TokenOffsets {
        TokenOffsets::of_words(text)
    }

    fn parts<'t>(text: &'t str, spans: &[Span]) -> Vec<&'t str> {
        spans.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn packs_pieces_greedily() {
        let text = "a b. c d e. f. g h i j k l";
        let o = words(text);
        let mut p = Packer::new(text, &o, 4);
        for piece in pieces_between(&[5, 12, 15], text.len()) {
            p.push(piece);
        }
        // "a b. " (2) + "c d e. " (3) does not fit; "f. " joins "c d e. "; the last piece (6)
        // is over the budget and is split at words.
        assert_eq!(
            parts(text, &p.finish()),
            ["a b. ", "c d e. f. ", "g h i j ", "k l"]
        );
    }

    #[test]
    fn leading_whitespace_joins_the_first_part_of_a_long_piece() {
        let text = "  one two three";
        let o = words(text);
        let mut p = Packer::new(text, &o, 2);
        p.push(Span::new(0, 2));
        p.push(Span::new(2, text.len()));
        assert_eq!(parts(text, &p.finish()), ["  one two ", "three"]);
    }

    #[test]
    fn tokens_at_one_byte_cannot_be_separated() {
        let text = "xy z";
        let o = TokenOffsets {
            starts: vec![0, 0, 0, 3],
            ends: vec![1, 2, 2, 4],
        };
        assert_eq!(
            split_words(text, &o, Span::new(0, 4), 2),
            vec![Span::new(0, 3), Span::new(3, 4)]
        );
    }
}
