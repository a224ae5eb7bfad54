//! The `given` chunker: chunks read from a cuts file that the user's own splitter wrote
//! (plain JSON Lines, LangChain `Document`s or LlamaIndex nodes; see [`records`]).
//!
//! Given chunks are the user's and are kept as they are: they may overlap (a splitter's
//! `chunk_overlap`), leave gaps (text no chunk holds, shown as uncovered) and be of any size.
//! Two things are refused, each naming the lines: the same span twice, and a chunk lying wholly
//! inside another (a hierarchy of chunks: dump one level). Everything is checked when the cuts
//! are placed, before anything is embedded; an error names the file, the record and the reason.

// Placing returns a plain problem per record, once per file and before any work: its size does
// not matter, and the public error ([`CutsError`]) boxes it.
#![allow(clippy::result_large_err)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Chunker;
use crate::corpus::{Corpus, DocId, Document, Span};
use crate::tokens::TokenOffsets;

pub mod docs;
mod pages;

pub use crate::cuts::records;
pub use crate::cuts::{CutsError, CutsFormat, CutsProblem, OffsetUnit, RecordAt};

/// Chunks given by a cuts file, placed in the documents of one corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenCuts {
    /// The file they came from.
    pub file: PathBuf,
    /// The format it was read as.
    pub format: CutsFormat,
    /// Byte spans by document path, in document order.
    spans: HashMap<String, Vec<Span>>,
    /// Records read.
    pub records: usize,
    /// A short hash of every placed span (document path, start, end): part of the chunker's
    /// name, so indexes are keyed by the cuts, and a changed file gets new indexes.
    pub hash: String,
}

/// One record placed: its byte span in a document.
#[derive(Debug, Clone, Copy)]
struct Placed {
    doc: DocId,
    span: Span,
    at: RecordAt,
}

impl GivenCuts {
    /// Read the cuts file at `file` (a regular file, or a link to one, of at most
    /// [`crate::files::CUTS_LIMIT`] bytes) and place every record in `corpus`.
    pub fn load(file: &Path, corpus: &Corpus) -> Result<GivenCuts, CutsError> {
        let fail = |at: Option<RecordAt>, problem| CutsError {
            file: file.to_path_buf(),
            at,
            problem: Box::new(problem),
        };
        // A regular file within its limit: `/dev/zero` once filled memory, a FIFO hung here.
        let content = crate::files::read_named_text(file, crate::files::CUTS_LIMIT)
            .map_err(|e| fail(None, CutsProblem::Read(e.to_string())))?;
        Self::parse(file, &content, corpus)
    }

    /// Place the cuts of a file's `content` (read from `file`, which names it in errors).
    pub fn parse(file: &Path, content: &str, corpus: &Corpus) -> Result<GivenCuts, CutsError> {
        let fail = |at: Option<RecordAt>, problem| CutsError {
            file: file.to_path_buf(),
            at,
            problem: Box::new(problem),
        };
        let (format, raw) = records::read_records(content).map_err(|(at, p)| fail(at, p))?;
        let mut matcher = docs::DocMatcher::new(corpus);
        let mut chars: HashMap<DocId, Vec<usize>> = HashMap::new();
        let mut previous: HashMap<DocId, usize> = HashMap::new();
        let mut placed = Vec::with_capacity(raw.len());
        for cut in &raw {
            let at = Some(cut.at);
            let doc = matcher.find(&cut.doc).map_err(|p| fail(at, p))?;
            let document = corpus.doc(doc);
            let table = chars
                .entry(doc)
                .or_insert_with(|| char_starts(&document.text));
            let (cut, page_start) = pages::from_document_start(cut, document, table);
            // The previous chunk of the document, if it lies on this record's page (a record on
            // a page is looked for from that page's first byte on).
            let previous_here = previous.get(&doc).copied().filter(|p| *p >= page_start);
            let span =
                place(&cut, document, table, previous_here, page_start).map_err(|p| fail(at, p))?;
            previous.insert(doc, span.start);
            placed.push(Placed {
                doc,
                span,
                at: cut.at,
            });
        }
        placed.sort_by_key(|p| (p.doc, p.span.start, p.span.end));
        check_nesting(&placed, corpus).map_err(|(at, p)| fail(Some(at), p))?;
        let mut spans: HashMap<String, Vec<Span>> = HashMap::new();
        let mut h = blake3::Hasher::new();
        for p in &placed {
            let path = &corpus.doc(p.doc).path;
            h.update(&(path.len() as u64).to_le_bytes());
            h.update(path.as_bytes());
            h.update(&(p.span.start as u64).to_le_bytes());
            h.update(&(p.span.end as u64).to_le_bytes());
            spans.entry(path.clone()).or_default().push(p.span);
        }
        Ok(GivenCuts {
            file: file.to_path_buf(),
            format,
            spans,
            records: placed.len(),
            hash: h.finalize().to_hex()[..12].to_string(),
        })
    }

    /// No cuts at all (what [`super::ChunkerKind::build`] gives for `given` without a file).
    pub fn none() -> GivenCuts {
        GivenCuts {
            file: PathBuf::new(),
            format: CutsFormat::Plain,
            spans: HashMap::new(),
            records: 0,
            hash: "none".to_string(),
        }
    }

    /// The placed spans of the document at `path`, in order (none when the file gives it none).
    pub fn spans_of(&self, path: &str) -> &[Span] {
        self.spans.get(path).map(Vec::as_slice).unwrap_or(&[])
    }

    /// How many documents of the corpus have at least one given chunk.
    pub fn documents(&self) -> usize {
        self.spans.len()
    }
}

/// Places records one at a time, each on its own (no previous chunk to look after): the
/// documents a traced retriever returned, which come in the order of a ranking, not of a file.
pub struct RecordPlacer<'a> {
    corpus: &'a Corpus,
    matcher: docs::DocMatcher<'a>,
    chars: HashMap<DocId, Vec<usize>>,
}

impl<'a> RecordPlacer<'a> {
    /// A placer over `corpus`.
    pub fn new(corpus: &'a Corpus) -> Self {
        RecordPlacer {
            corpus,
            matcher: docs::DocMatcher::new(corpus),
            chars: HashMap::new(),
        }
    }

    /// The document and byte span of `cut`, by its document name and offsets (from its page,
    /// where it names one), its text checked against the span; or by its text, searched from
    /// the start of the document (or of its page).
    pub fn place(&mut self, cut: &records::RawCut) -> Result<(DocId, Span), CutsProblem> {
        let doc = self.matcher.find(&cut.doc)?;
        let document = self.corpus.doc(doc);
        let table = self
            .chars
            .entry(doc)
            .or_insert_with(|| char_starts(&document.text));
        let (cut, page_start) = pages::from_document_start(cut, document, table);
        let span = place(&cut, document, table, None, page_start)?;
        Ok((doc, span))
    }
}

impl Chunker for GivenCuts {
    fn name(&self) -> String {
        format!("given-{}", self.hash)
    }

    fn cut(&self, doc: &Document, _offsets: &TokenOffsets) -> Vec<Span> {
        self.spans_of(&doc.path).to_vec()
    }
}

/// Byte offset of every character of `text`, then `text.len()`: character `i` starts at
/// `table[i]`.
fn char_starts(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect()
}

/// The first few characters of a text, for a message.
fn preview(text: &str) -> String {
    const N: usize = 40;
    let mut p: String = text.chars().take(N).collect();
    if text.chars().nth(N).is_some() {
        p.push('…');
    }
    p
}

/// What may explain a record's text that does not match its document: Python's text mode
/// reads CRLF line ends as LF, so a splitter's text has none of the document's `\r` (and its
/// offsets count one character fewer per line end). `searched`: the text was looked for, so
/// only a text holding a line end can have missed for this reason.
fn crlf_hint(text: &str, given: &str, searched: bool) -> Option<&'static str> {
    (text.contains("\r\n") && !given.contains('\r') && (!searched || given.contains('\n'))).then_some(
        "; the document has CRLF line ends, which Python's text mode reads as LF: open it with newline=\"\" before splitting",
    )
}

/// The byte span of one record in its document. `table` is the document's [`char_starts`];
/// `previous` is the byte start of the previous record of the same document: a record without
/// offsets is looked for after it (strictly, so two chunks of the same text, one after the
/// other, find the two places, as the splitter's own search for `start_index` does).
fn place(
    cut: &records::RawCut,
    doc: &Document,
    table: &[usize],
    previous: Option<usize>,
    floor: usize,
) -> Result<Span, CutsProblem> {
    let text = &doc.text;
    let path = doc.path.clone();
    let Some(start) = cut.start else {
        // No offsets: find the text after the previous chunk's start.
        let given = cut.text.as_deref().unwrap_or_default();
        let from = previous.map_or(floor, |p| {
            text[p..]
                .chars()
                .next()
                .map_or(text.len(), |c| p + c.len_utf8())
        });
        return match text.get(from..).and_then(|t| t.find(given)) {
            Some(i) if !given.is_empty() => Ok(Span::new(from + i, from + i + given.len())),
            _ => Err(CutsProblem::TextNotFound {
                doc: path,
                given: preview(given),
                after: match previous {
                    Some(p) => format!(
                        " after the start of the previous chunk of that document (byte {p})"
                    ),
                    None => String::new(),
                },
                hint: crlf_hint(text, given, true).unwrap_or_default().to_string(),
            }),
        };
    };
    let unit = cut.unit;
    let end = match (cut.end, &cut.text) {
        (Some(e), _) => e,
        (None, Some(t)) => match unit {
            OffsetUnit::Bytes => start + t.len(),
            OffsetUnit::Chars => start + t.chars().count(),
        },
        (None, None) => return Err(CutsProblem::MissingField("end")),
    };
    if start >= end {
        return Err(CutsProblem::EmptySpan { start, end, unit });
    }
    let len = match unit {
        OffsetUnit::Bytes => text.len(),
        OffsetUnit::Chars => table.len() - 1,
    };
    for (field, offset) in [("start", start), ("end", end)] {
        if offset > len {
            return Err(CutsProblem::PastEnd {
                field,
                offset,
                doc: path,
                len,
                unit,
            });
        }
        if unit == OffsetUnit::Bytes && !text.is_char_boundary(offset) {
            return Err(CutsProblem::NotCharBoundary {
                field,
                offset,
                doc: path,
            });
        }
    }
    let span = match unit {
        OffsetUnit::Bytes => Span::new(start, end),
        OffsetUnit::Chars => Span::new(table[start], table[end]),
    };
    if let Some(given) = &cut.text
        && doc.slice(span) != given
    {
        let hint = if let Some(hint) = crlf_hint(text, given, false) {
            hint.to_string()
        } else if unit == OffsetUnit::Bytes && !text.is_ascii() {
            "; if the offsets count characters, say so with \"offsets\": \"chars\"".to_string()
        } else {
            String::new()
        };
        return Err(CutsProblem::TextMismatch {
            doc: path,
            start,
            end,
            unit,
            given: preview(given),
            found: preview(doc.slice(span)),
            hint,
        });
    }
    Ok(span)
}

/// Refuse the same span twice and a span inside another. `placed` is sorted by document, start
/// and end, so a chunk nests in an earlier one exactly when it starts with it or ends no later
/// than the furthest end so far.
fn check_nesting(placed: &[Placed], corpus: &Corpus) -> Result<(), (RecordAt, CutsProblem)> {
    let mut furthest: Option<Placed> = None;
    for p in placed {
        let doc = || corpus.doc(p.doc).path.clone();
        if let Some(f) = furthest.filter(|f| f.doc == p.doc) {
            if f.span == p.span {
                let (first, second) = if line_of(f.at) < line_of(p.at) {
                    (f.at, p.at)
                } else {
                    (p.at, f.at)
                };
                return Err((
                    second,
                    CutsProblem::Duplicate {
                        doc: doc(),
                        start: p.span.start,
                        end: p.span.end,
                        other: first,
                    },
                ));
            }
            if f.span.contains(&p.span) {
                return Err((
                    p.at,
                    CutsProblem::Nested {
                        doc: doc(),
                        start: p.span.start,
                        end: p.span.end,
                        outer: f.at,
                    },
                ));
            }
            if p.span.contains(&f.span) {
                return Err((
                    f.at,
                    CutsProblem::Nested {
                        doc: doc(),
                        start: f.span.start,
                        end: f.span.end,
                        outer: p.at,
                    },
                ));
            }
        }
        furthest = Some(*p);
    }
    Ok(())
}

fn line_of(at: RecordAt) -> usize {
    match at {
        RecordAt::Line(n) | RecordAt::Item(n) => n,
    }
}

#[cfg(test)]
mod tests;
