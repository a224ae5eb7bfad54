//! Search context: text put in front of a chunk or seam when it is embedded and keyword-indexed,
//! never when it is shown, cited or sent as evidence (the cheap form of contextual retrieval).
//!
//! Two kinds, both string operations on the document that never move a span:
//! - the **heading path** of the span's first byte (see [`heading`](super::heading)), then a blank
//!   line, so a claim far below its heading still names its subject;
//! - the **table header**: when a span begins inside a table, below its header row, the header
//!   and delimiter rows, so the rows it holds keep their column names.

use serde::{Deserialize, Serialize};

use super::heading::{heading_path, path_line};
use super::markdown::{Dialect, Outline, outline};
use crate::corpus::{DocKind, Document, Span};

/// Which context each search text carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchContext {
    /// Prefix the heading path (a setting: `heading_prefix`).
    pub heading_path: bool,
    /// Repeat a table's header into spans that begin inside it (the structure-aware chunker).
    pub table_header: bool,
}

impl SearchContext {
    /// Whether search texts are the exact spans.
    pub fn is_none(&self) -> bool {
        !self.heading_path && !self.table_header
    }
}

/// One document's structure, ready to give the search prefix of any span.
#[derive(Debug, Clone)]
pub struct DocContext<'a> {
    text: &'a str,
    context: SearchContext,
    outline: Option<Outline>,
}

impl<'a> DocContext<'a> {
    /// Read the structure of `doc` that `context` needs (Markdown only; other kinds get none).
    pub fn new(doc: &'a Document, context: SearchContext) -> Self {
        let outline = (doc.kind == DocKind::Markdown && !context.is_none())
            .then(|| outline(&doc.text, Dialect::Markdown));
        DocContext {
            text: &doc.text,
            context,
            outline,
        }
    }

    /// The text to put before `span` for search; empty when there is none.
    pub fn prefix(&self, span: Span) -> String {
        let Some(o) = &self.outline else {
            return String::new();
        };
        let mut out = String::new();
        if self.context.heading_path {
            let line = path_line(&heading_path(&o.headings, span.start));
            if !line.is_empty() {
                out.push_str(&line);
                out.push_str("\n\n");
            }
        }
        if self.context.table_header {
            let i = o.tables.partition_point(|t| t.span.start < span.start);
            if let Some(t) = i.checked_sub(1).map(|i| &o.tables[i])
                && span.start < t.span.end
            {
                out.push_str(&self.text[t.header.start..t.header.end]);
                out.push('\n');
                out.push_str(&self.text[t.delimiter.start..t.delimiter.end]);
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::DocId;

    fn md(text: &str) -> Document {
        Document {
            id: DocId(0),
            path: "a.md".into(),
            text: text.into(),
            kind: DocKind::Markdown,
            source: crate::extract::TextSource::plain(),
        }
    }

    const TEXT: &str = "# Q3 letter\n\n## Results\n\n| metric | value |\n|---|---|\n| revenue | +3% |\n| margin | 11.2% |\n\nRevenue grew.";

    #[test]
    fn heading_path_and_table_header_are_prefixed() {
        let d = md(TEXT);
        let both = DocContext::new(
            &d,
            SearchContext {
                heading_path: true,
                table_header: true,
            },
        );
        let margin = TEXT.find("| margin").unwrap_or(0);
        assert_eq!(
            both.prefix(Span::new(margin, TEXT.len())),
            "Q3 letter > Results\n\n| metric | value |\n|---|---|\n"
        );
        let revenue = TEXT.find("Revenue").unwrap_or(0);
        assert_eq!(
            both.prefix(Span::new(revenue, TEXT.len())),
            "Q3 letter > Results\n\n"
        );
        assert_eq!(both.prefix(Span::new(0, 5)), "");
        // A span that starts at the table's header needs no repeated header.
        let table = TEXT.find("| metric").unwrap_or(0);
        assert_eq!(
            both.prefix(Span::new(table, TEXT.len())),
            "Q3 letter > Results\n\n"
        );
    }

    #[test]
    fn each_kind_can_be_switched_off() {
        let d = md(TEXT);
        let margin = TEXT.find("| margin").unwrap_or(0);
        let headers_only = DocContext::new(
            &d,
            SearchContext {
                heading_path: false,
                table_header: true,
            },
        );
        assert_eq!(
            headers_only.prefix(Span::new(margin, TEXT.len())),
            "| metric | value |\n|---|---|\n"
        );
        let none = DocContext::new(&d, SearchContext::default());
        assert_eq!(none.prefix(Span::new(margin, TEXT.len())), "");
    }
}
