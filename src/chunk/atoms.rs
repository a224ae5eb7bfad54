//! Atoms: pieces of a Markdown document that must arrive whole to be usable.
//!
//! Four classes, found with the [`markdown`](super::markdown) outline (pulldown-cmark):
//! - **fenced block**: opening fence line to closing fence line (a fence never closed runs to the
//!   end of its container: the document, or the list item or quote holding it), `~~~` and
//!   backtick fences alike;
//! - **table**: header row, delimiter row and every body row;
//! - **table row**: one body row (header and delimiter rows are labels, not data);
//! - **figure sentence**: a sentence of running text (a paragraph or list item, never a heading,
//!   table or fence) that holds an ASCII digit and at least [`FIGURE_MIN_WORDS`] words, where a
//!   word is a whitespace-separated run holding a letter or digit. Sentences are UAX #29
//!   sentences with soft line breaks read as spaces, trimmed of surrounding whitespace; a list
//!   item's marker (`1.`) is not part of its first sentence, so list numbers are not figures.
//!
//! Spans end before the last line's terminator. An atom is **kept whole** by a chunking when one
//! chunk's span contains it entirely. Documents that are not Markdown have no atoms.

use serde::{Deserialize, Serialize};

use super::markdown::{Dialect, outline};
use super::sentences::prose_sentences;
use crate::corpus::{DocKind, Document, Span};

/// Fewest words a figure sentence has.
pub const FIGURE_MIN_WORDS: usize = 10;

/// The kind of an atom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AtomClass {
    /// A fenced code block.
    Fence,
    /// A whole table.
    Table,
    /// One body row of a table.
    Row,
    /// A prose sentence carrying a number.
    FigureSentence,
}

impl AtomClass {
    /// Every class, in report order.
    pub const ALL: [AtomClass; 4] = [
        AtomClass::Fence,
        AtomClass::Table,
        AtomClass::Row,
        AtomClass::FigureSentence,
    ];

    /// The class's name in reports.
    pub fn label(self) -> &'static str {
        match self {
            AtomClass::Fence => "fenced block",
            AtomClass::Table => "table",
            AtomClass::Row => "table row",
            AtomClass::FigureSentence => "figure sentence",
        }
    }
}

/// One atom of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Atom {
    /// Its class.
    pub class: AtomClass,
    /// Its byte span.
    pub span: Span,
    /// For a table row, its table's header row (a row read without it has values but no labels).
    pub header: Option<Span>,
}

/// The atoms of `doc` (none unless it is Markdown), ordered by start, then class.
pub fn find_atoms(doc: &Document) -> Vec<Atom> {
    if doc.kind == DocKind::Markdown {
        markdown_atoms(&doc.text)
    } else {
        Vec::new()
    }
}

/// The atoms of `text` read as Markdown, ordered by start, then class.
pub fn markdown_atoms(text: &str) -> Vec<Atom> {
    let o = outline(text, Dialect::Markdown);
    let atom = |class, span| Atom {
        class,
        span,
        header: None,
    };
    let mut out: Vec<Atom> = o
        .fences
        .iter()
        .map(|f| atom(AtomClass::Fence, f.span))
        .collect();
    for t in &o.tables {
        out.push(atom(AtomClass::Table, t.span));
        out.extend(t.rows.iter().map(|r| Atom {
            class: AtomClass::Row,
            span: *r,
            header: Some(t.header),
        }));
    }
    for block in &o.prose {
        out.extend(
            prose_sentences(text, block)
                .into_iter()
                .filter(|s| is_figure_sentence(&text[s.start..s.end]))
                .map(|s| atom(AtomClass::FigureSentence, s)),
        );
    }
    out.sort_by_key(|a| (a.span.start, a.class));
    out
}

/// Whether a sentence is a figure sentence: an ASCII digit and at least [`FIGURE_MIN_WORDS`] words.
pub fn is_figure_sentence(sentence: &str) -> bool {
    sentence.bytes().any(|b| b.is_ascii_digit())
        && sentence
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count()
            >= FIGURE_MIN_WORDS
}

/// Whether one of `chunks` (one document's chunk spans, sorted by start) contains `atom` whole.
pub fn kept_whole(atom: Span, chunks: &[Span]) -> bool {
    holder(atom.start, chunks).is_some_and(|c| c.contains(&atom))
}

/// The last chunk (of `chunks`, sorted by start) that starts at or before `pos` and holds it.
pub fn holder(pos: usize, chunks: &[Span]) -> Option<&Span> {
    let i = chunks.partition_point(|c| c.start <= pos);
    chunks[..i].iter().rev().find(|c| pos < c.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str, class: AtomClass) -> Vec<&str> {
        markdown_atoms(text)
            .into_iter()
            .filter(|a| a.class == class)
            .map(|a| &text[a.span.start..a.span.end])
            .collect()
    }

    #[test]
    fn figure_sentences_need_a_digit_and_ten_words() {
        assert!(is_figure_sentence(
            "Revenue grew 3% that quarter and margin held at 11.2 percent."
        ));
        assert!(!is_figure_sentence("Revenue grew 3% that quarter."));
        assert!(!is_figure_sentence(
            "Revenue grew three percent that quarter and margin held at eleven."
        ));
        // Punctuation alone is not a word.
        assert!(!is_figure_sentence("a b c d e f g h - 9"));
    }

    #[test]
    fn list_numbers_are_not_figures_and_headings_are_not_prose() {
        let text = "# 2024 plan with many words in the title of this section\n\n\
                    1. Drain the traffic before promoting the replica and check the lag first.\n\
                    2. Wait 30 seconds before promoting the replica and then check the lag.\n";
        assert_eq!(
            of(text, AtomClass::FigureSentence),
            ["Wait 30 seconds before promoting the replica and then check the lag."]
        );
    }

    #[test]
    fn crlf_atoms_end_before_the_terminator() {
        let text = "| a | b |\r\n| - | - |\r\n| 1 | 2 |\r\n\r\n~~~\r\nx\r\n~~~\r\n";
        assert_eq!(
            of(text, AtomClass::Table),
            ["| a | b |\r\n| - | - |\r\n| 1 | 2 |"]
        );
        assert_eq!(of(text, AtomClass::Row), ["| 1 | 2 |"]);
        assert_eq!(of(text, AtomClass::Fence), ["~~~\r\nx\r\n~~~"]);
    }

    #[test]
    fn whole_means_inside_one_chunk() {
        let chunks = [Span::new(0, 10), Span::new(10, 20)];
        assert!(kept_whole(Span::new(2, 10), &chunks));
        assert!(kept_whole(Span::new(10, 12), &chunks));
        assert!(!kept_whole(Span::new(8, 12), &chunks));
        assert!(!kept_whole(Span::new(18, 25), &chunks));
    }
}
