//! The Seams baseline: disjoint chunks of a fixed number of tokens, cut without looking at meaning.
//!
//! Each cut is moved back to the start of the word it falls in, so no word is split, unless that
//! word runs back more than [`MAX_WORD_MOVE`] bytes (a URL, a hash, a long code run: no word a
//! reader reads as one), which is cut at the token boundary instead, so a cut never drifts far from
//! where the token count put it. Chunks are contiguous: together they cover the whole document,
//! so every non-whitespace byte is in one chunk.

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

/// The furthest a cut moves back to the start of its word, in bytes: a longer unbroken run is cut
/// at the token boundary. English words and code identifiers are shorter; runs past it are URLs,
/// paths, hashes and encoded blobs.
pub const MAX_WORD_MOVE: usize = 40;

/// Cut `text` into contiguous spans of at most `max_tokens` tokens each, moving each cut back to
/// a word start at most [`MAX_WORD_MOVE`] bytes away; a longer word (or one longer than a chunk)
/// is cut at a token boundary instead.
pub fn cut_fixed(text: &str, offsets: &TokenOffsets, max_tokens: usize) -> Vec<Span> {
    let max_tokens = max_tokens.max(1);
    let mut spans = Vec::new();
    let mut start = 0usize;
    let mut first_token = 0usize;
    while offsets.len() - first_token > max_tokens {
        let token_cut = offsets.starts[first_token + max_tokens];
        let word_cut = word_start_at_or_before(text, token_cut, start);
        let cut = if word_cut > start && token_cut - word_cut <= MAX_WORD_MOVE {
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

/// How far back from its token boundary each cut of a fixed layout moved to reach a word start,
/// in bytes, one per cut (every span but the last): what [`cut_fixed`] did to `spans`.
pub fn cut_moves(offsets: &TokenOffsets, spans: &[Span], max_tokens: usize) -> Vec<usize> {
    let max_tokens = max_tokens.max(1);
    let cuts = spans.len().saturating_sub(1);
    spans[..cuts]
        .iter()
        .map(|span| {
            let first = offsets.first_at_or_after(span.start);
            offsets
                .starts
                .get(first + max_tokens)
                .map_or(0, |&token_cut| token_cut.saturating_sub(span.end))
        })
        .collect()
}

/// How a fixed layout's cuts moved back to word starts: how many cuts, how many moved, and how
/// far (bytes), against the bound [`MAX_WORD_MOVE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CutMoveSummary {
    /// Cuts in the layout (between two chunks of one document).
    pub cuts: usize,
    /// Cuts that moved back at all.
    pub moved: usize,
    /// The median move of the cuts that moved, in bytes.
    pub median_bytes: usize,
    /// The 90th percentile of those moves.
    pub p90_bytes: usize,
    /// The largest move.
    pub max_bytes: usize,
    /// The most a cut may move ([`MAX_WORD_MOVE`]).
    pub bound_bytes: usize,
}

impl std::fmt::Display for CutMoveSummary {
    /// `18 of 70 cuts moved back to a word start: median 5 B, p90 8 B, max 15 B (at most 40 B: a
    /// longer run is cut at a token)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} cuts moved back to a word start: median {} B, p90 {} B, max {} B (at most {} B: a longer run is cut at a token)",
            self.moved,
            self.cuts,
            self.median_bytes,
            self.p90_bytes,
            self.max_bytes,
            self.bound_bytes
        )
    }
}

impl CutMoveSummary {
    /// The summary of the moves of every cut.
    pub fn of(moves: &[usize]) -> CutMoveSummary {
        let mut moved: Vec<usize> = moves.iter().copied().filter(|m| *m > 0).collect();
        moved.sort_unstable();
        let at = |q: f64| {
            moved
                .get(((moved.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0)
        };
        CutMoveSummary {
            cuts: moves.len(),
            moved: moved.len(),
            median_bytes: at(0.5),
            p90_bytes: at(0.9),
            max_bytes: moved.last().copied().unwrap_or(0),
            bound_bytes: MAX_WORD_MOVE,
        }
    }
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
    fn a_cut_moves_back_to_its_word_but_a_long_run_is_cut_at_the_token() {
        // Word-level tokens, but one "word" is a 120-byte URL: the cut inside it stays at the
        // token boundary rather than moving 100 bytes back.
        let url = format!("https://example.com/{}", "a".repeat(100));
        let text = format!("one two {url} three four");
        let mut offsets = words(&text);
        // Split the URL into tokens of 10 bytes, as a sub-word tokenizer would.
        let at = text.find("https").unwrap();
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        for (s, e) in offsets.starts.iter().zip(&offsets.ends) {
            if *s == at {
                let mut p = at;
                while p < at + url.len() {
                    starts.push(p);
                    ends.push((p + 10).min(at + url.len()));
                    p += 10;
                }
            } else {
                starts.push(*s);
                ends.push(*e);
            }
        }
        offsets.starts = starts;
        offsets.ends = ends;
        // The 8th token is 50 bytes into the URL: too far to move back.
        let spans = cut_fixed(&text, &offsets, 7);
        assert_eq!(
            spans[0].end,
            at + 50,
            "cut inside the URL, at its token boundary"
        );
        assert_eq!(cut_moves(&offsets, &spans, 7)[0], 0);
        // 40 bytes in: moved back to the URL's start, and the move is reported.
        let spans = cut_fixed(&text, &offsets, 6);
        assert_eq!(spans[0].end, at);
        assert_eq!(cut_moves(&offsets, &spans, 6)[0], 40);
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
