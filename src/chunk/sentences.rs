//! Sentence packing: whole sentences join a chunk until the next would pass the token budget.
//!
//! Sentences are found with UAX #29 (the `unicode-segmentation` crate) inside each prose block,
//! with the block's soft line breaks read as spaces, so a sentence wrapped over two lines stays
//! one sentence. Where prose blocks come from depends on the document:
//! - Markdown: the [`markdown`](super::markdown) outline's paragraphs and list items; every other
//!   non-blank line (a heading, a table row, a line of a fenced block) is a unit of its own.
//! - Plain text: paragraphs (split at blank lines and list items).
//! - Code: every non-blank line is a unit; there are no sentences.
//!
//! Blank lines join the unit before them, so only a document's first chunk can start with one.
//! A sentence over the budget is cut at word starts, and a single word over it at token starts.

use unicode_segmentation::UnicodeSegmentation;

use super::Chunker;
use super::markdown::{Dialect, Outline, ProseBlock, lines, outline};
use super::pack::{Packer, pieces_between};
use crate::corpus::{DocKind, Document, Span};
use crate::tokens::TokenOffsets;

/// Chunks of whole sentences, at most `tokens` tokens each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentencePacking {
    /// The most tokens a chunk may hold.
    pub tokens: usize,
}

impl Chunker for SentencePacking {
    fn name(&self) -> String {
        format!("sentence-{}", self.tokens)
    }

    fn cut(&self, doc: &Document, offsets: &TokenOffsets) -> Vec<Span> {
        let mut packer = Packer::new(&doc.text, offsets, self.tokens);
        for piece in sentence_pieces(doc) {
            packer.push(piece);
        }
        packer.finish()
    }
}

/// The outline a document's kind calls for: Markdown scanning, plain paragraphs, or none (code).
pub fn outline_for(doc: &Document) -> Option<Outline> {
    match doc.kind {
        DocKind::Markdown => Some(outline(&doc.text, Dialect::Markdown)),
        DocKind::Text => Some(outline(&doc.text, Dialect::Plain)),
        DocKind::Code => None,
    }
}

/// Contiguous pieces covering `doc`, each a sentence or a non-prose line (with the blank lines
/// after it).
pub fn sentence_pieces(doc: &Document) -> Vec<Span> {
    pieces_between(
        &unit_starts(&doc.text, outline_for(doc).as_ref()),
        doc.text.len(),
    )
}

/// Where each unit starts: every non-blank line that does not continue a prose block, and every
/// sentence start inside a prose block. `None` for `outline` means code: every non-blank line.
pub fn unit_starts(text: &str, outline: Option<&Outline>) -> Vec<usize> {
    let prose: &[ProseBlock] = outline.map_or(&[], |o| o.prose.as_slice());
    let mut starts = Vec::new();
    let mut block = 0;
    for line in lines(text) {
        if text[line.start..line.end].trim().is_empty() {
            continue;
        }
        while block < prose.len() && prose[block].span.end < line.start {
            block += 1;
        }
        let continues = prose
            .get(block)
            .is_some_and(|b| b.span.start < line.start && line.start <= b.span.end);
        if !continues {
            starts.push(line.start);
        }
    }
    for b in prose {
        starts.extend(prose_sentences(text, b).iter().skip(1).map(|s| s.start));
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// The sentences of a prose block, trimmed of surrounding whitespace, in order.
///
/// The first sentence starts at the block's content (after any list marker).
pub fn prose_sentences(text: &str, block: &ProseBlock) -> Vec<Span> {
    let base = block.content_start;
    let slice = &text[base..block.span.end];
    // Soft line breaks read as spaces; both are one byte, so offsets are unchanged.
    let flat: String = slice
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    flat.split_sentence_bound_indices()
        .filter_map(|(i, s)| {
            let lead = s.len() - s.trim_start().len();
            let trimmed = s.trim();
            (!trimmed.is_empty())
                .then(|| Span::new(base + i + lead, base + i + lead + trimmed.len()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::pack::tests::words;
    use crate::corpus::DocId;

    fn doc(path: &str, text: &str) -> Document {
        let kind = match path.rsplit('.').next() {
            Some("md") => DocKind::Markdown,
            Some("py") => DocKind::Code,
            _ => DocKind::Text,
        };
        Document {
            id: DocId(0),
            path: path.into(),
            text: text.into(),
            kind,
            source: crate::extract::TextSource::plain(),
        }
    }

    fn texts<'t>(text: &'t str, spans: &[Span]) -> Vec<&'t str> {
        spans.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn wrapped_sentences_stay_whole() {
        let d = doc("a.txt", "One two\nthree. Four five.\n\nSix.");
        assert_eq!(
            texts(&d.text, &sentence_pieces(&d)),
            ["One two\nthree. ", "Four five.\n\n", "Six."]
        );
    }

    #[test]
    fn markdown_lines_outside_prose_are_units() {
        let d = doc("a.md", "# H\nText one. Two.\n- a b. C\n```\nx\n```\n");
        assert_eq!(
            texts(&d.text, &sentence_pieces(&d)),
            [
                "# H\n",
                "Text one. ",
                "Two.\n",
                "- a b. ",
                "C\n",
                "```\n",
                "x\n",
                "```\n"
            ]
        );
    }

    #[test]
    fn code_is_cut_at_lines() {
        let d = doc("a.py", "def f():\n    return 1. \n\nx = 2\n");
        assert_eq!(
            texts(&d.text, &sentence_pieces(&d)),
            ["def f():\n", "    return 1. \n\n", "x = 2\n"]
        );
    }

    #[test]
    fn packs_whole_sentences() {
        let d = doc("a.txt", "A b c. D e. F g h i j. K.");
        let spans = SentencePacking { tokens: 5 }.cut(&d, &words(&d.text));
        assert_eq!(
            texts(&d.text, &spans),
            ["A b c. D e. ", "F g h i j. ", "K."]
        );
    }
}
