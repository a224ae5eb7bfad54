//! The Seams baseline: disjoint chunks of a fixed number of tokens, cut without looking at meaning.
//!
//! Each cut is moved back to the start of the word it falls in, so no word is split. Chunks are
//! contiguous: together they cover the whole document, so every non-whitespace byte is in one chunk.

use super::Chunker;
use crate::corpus::{Document, Span};
use crate::tokens::TokenOffsets;

/// Fixed-size chunks of at most `tokens` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedTokens {
    /// The most tokens a chunk may hold (default 1,024).
    pub tokens: usize,
}

impl Chunker for FixedTokens {
    fn name(&self) -> String {
        format!("fixed-{}", self.tokens)
    }

    fn cut(&self, doc: &Document, offsets: &TokenOffsets) -> Vec<Span> {
        cut_fixed(&doc.text, offsets, self.tokens)
    }
}

/// Cut `text` into contiguous spans of at most `max_tokens` tokens each, moving each cut back to
/// a word start. A single word longer than a chunk is cut at a token boundary instead.
pub fn cut_fixed(text: &str, offsets: &TokenOffsets, max_tokens: usize) -> Vec<Span> {
    let max_tokens = max_tokens.max(1);
    let mut spans = Vec::new();
    let mut start = 0usize;
    let mut first_token = 0usize;
    while offsets.len() - first_token > max_tokens {
        let token_cut = offsets.starts[first_token + max_tokens];
        let word_cut = word_start_at_or_before(text, token_cut, start);
        let cut = if word_cut > start {
            word_cut
        } else {
            token_cut
        };
        spans.push(Span::new(start, cut));
        first_token = offsets.first_at_or_after(cut);
        start = cut;
    }
    spans.push(Span::new(start, text.len()));
    spans
}

/// The start of the whitespace-delimited word holding byte `pos`, not going below `floor`.
pub fn word_start_at_or_before(text: &str, pos: usize, floor: usize) -> usize {
    let before = &text[floor..pos];
    match before.char_indices().rev().find(|(_, c)| c.is_whitespace()) {
        Some((i, c)) => floor + i + c.len_utf8(),
        None => floor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offsets of a whitespace tokenizer: one token per word.
    fn words(text: &str) -> TokenOffsets {
        TokenOffsets::of_words(text)
    }

    #[test]
    fn cuts_every_n_words_and_tiles() {
        let text = "a b c d e f g";
        let spans = cut_fixed(text, &words(text), 3);
        let parts: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(parts, vec!["a b c ", "d e f ", "g"]);
    }

    #[test]
    fn short_text_is_one_chunk() {
        let text = "  only two  ";
        assert_eq!(cut_fixed(text, &words(text), 10), vec![Span::new(0, 12)]);
    }

    #[test]
    fn cut_moves_back_to_word_start() {
        // Sub-word tokens: "stale-reads" is three tokens; a cut at "-" moves back to "stale".
        let text = "x stale-reads y";
        let o = TokenOffsets {
            starts: vec![0, 2, 7, 8, 14],
            ends: vec![1, 7, 8, 13, 15],
        };
        let spans = cut_fixed(text, &o, 3);
        assert_eq!(spans[0], Span::new(0, 2));
        assert_eq!(&text[spans[1].start..spans[1].end], "stale-reads ");
    }

    #[test]
    fn giant_word_is_cut_at_token_boundary() {
        let text = "abcdef";
        let o = TokenOffsets {
            starts: vec![0, 2, 4],
            ends: vec![2, 4, 6],
        };
        assert_eq!(
            cut_fixed(text, &o, 1),
            vec![Span::new(0, 2), Span::new(2, 4), Span::new(4, 6)]
        );
    }
}
