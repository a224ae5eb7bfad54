//! The recursive splitter: a piece over the budget is split at paragraph breaks, a part still
//! over it at line breaks, then at sentence ends, then at word starts (and a single word over the
//! budget at token starts). The leaves are then packed greedily, so cuts fall at the coarsest
//! boundary that lets every chunk fit.
//!
//! Separators stay with the text before them: a paragraph keeps its trailing blank lines, a line
//! its terminator, a sentence its trailing spaces. Sentence ends here are raw UAX #29 bounds
//! within one line, as in the usual recursive character splitters; no Markdown is read.

use unicode_segmentation::UnicodeSegmentation;

use super::Chunker;
use super::markdown::lines;
use super::pack::{Packer, split_words};
use crate::corpus::{Document, Span};
use crate::tokens::TokenOffsets;

/// Recursive paragraph → line → sentence → word chunks of at most `tokens` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recursive {
    /// The most tokens a chunk may hold.
    pub tokens: usize,
}

impl Chunker for Recursive {
    fn name(&self) -> String {
        format!("recursive-{}", self.tokens)
    }

    fn cut(&self, doc: &Document, offsets: &TokenOffsets) -> Vec<Span> {
        cut_recursive(&doc.text, offsets, self.tokens)
    }
}

/// Cut `text` recursively and pack the leaves into chunks of at most `max` tokens.
pub fn cut_recursive(text: &str, offsets: &TokenOffsets, max: usize) -> Vec<Span> {
    let mut leaves = Vec::new();
    split(
        text,
        offsets,
        Span::new(0, text.len()),
        Level::Paragraph,
        max.max(1),
        &mut leaves,
    );
    let mut packer = Packer::new(text, offsets, max);
    for leaf in leaves {
        packer.push(leaf);
    }
    packer.finish()
}

/// The separators tried, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Paragraph,
    Line,
    Sentence,
    Word,
}

fn split(
    text: &str,
    offsets: &TokenOffsets,
    span: Span,
    level: Level,
    max: usize,
    out: &mut Vec<Span>,
) {
    if offsets.count_in(span.start, span.end) <= max {
        out.push(span);
        return;
    }
    let (bounds, next) = match level {
        Level::Paragraph => (paragraph_starts(text, span), Level::Line),
        Level::Line => (line_starts(text, span), Level::Sentence),
        Level::Sentence => (sentence_starts(text, span), Level::Word),
        Level::Word => {
            out.extend(split_words(text, offsets, span, max));
            return;
        }
    };
    let mut prev = span.start;
    for b in bounds.into_iter().chain([span.end]) {
        if b > prev {
            split(text, offsets, Span::new(prev, b), next, max, out);
            prev = b;
        }
    }
}

/// Starts of paragraphs inside `span`: non-blank lines that follow a blank line.
fn paragraph_starts(text: &str, span: Span) -> Vec<usize> {
    let mut out = Vec::new();
    let mut after_blank = false;
    for l in lines(&text[span.start..span.end]) {
        let blank = text[span.start + l.start..span.start + l.end]
            .trim()
            .is_empty();
        if !blank && after_blank && l.start > 0 {
            out.push(span.start + l.start);
        }
        after_blank = blank;
    }
    out
}

/// Starts of lines inside `span`, after its first.
fn line_starts(text: &str, span: Span) -> Vec<usize> {
    lines(&text[span.start..span.end])
        .iter()
        .skip(1)
        .map(|l| span.start + l.start)
        .collect()
}

/// Sentence starts (UAX #29) inside `span`, after its first.
fn sentence_starts(text: &str, span: Span) -> Vec<usize> {
    text[span.start..span.end]
        .split_sentence_bound_indices()
        .skip(1)
        .map(|(i, _)| span.start + i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::pack::tests::words;

    fn cut(text: &str, max: usize) -> Vec<&str> {
        cut_recursive(text, &words(text), max)
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect()
    }

    #[test]
    fn paragraphs_first() {
        // Paragraphs of 3, 2 and 3 words; budget 5: the first two share a chunk.
        assert_eq!(
            cut("a b c\n\nd e\n\nf g h", 5),
            ["a b c\n\nd e\n\n", "f g h"]
        );
    }

    #[test]
    fn then_lines_then_sentences_then_words() {
        let text = "a b\nc d\n\nE f. G h i j k l m.";
        // The first paragraph fits whole (4); the second (8) splits at its sentence end, and
        // "G h i j k l m." (6) at words.
        assert_eq!(
            cut(text, 4),
            ["a b\nc d\n\n", "E f. ", "G h i j ", "k l m."]
        );
        // Budget 3: the first paragraph is split at its line break.
        assert_eq!(
            cut(text, 3),
            ["a b\n", "c d\n\n", "E f. ", "G h i ", "j k l ", "m."]
        );
    }
}
