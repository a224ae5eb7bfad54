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

use serde::Serialize;

use super::Chunker;
use crate::corpus::{Corpus, DocId, Document, Span};
use crate::tokens::TokenOffsets;

pub mod docs;
pub mod records;

/// Which tool's output a cuts file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CutsFormat {
    /// `{"doc", "start", "end"}` records.
    Plain,
    /// LangChain `Document`s.
    LangChain,
    /// LlamaIndex nodes.
    LlamaIndex,
}

impl std::fmt::Display for CutsFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CutsFormat::Plain => "plain",
            CutsFormat::LangChain => "LangChain",
            CutsFormat::LlamaIndex => "LlamaIndex",
        })
    }
}

/// What a record's offsets count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OffsetUnit {
    /// Bytes of the UTF-8 text (seamscope's own unit).
    #[default]
    Bytes,
    /// Characters (Unicode scalar values), as Python's `str` indexes them.
    Chars,
}

impl OffsetUnit {
    fn name(self) -> &'static str {
        match self {
            OffsetUnit::Bytes => "byte",
            OffsetUnit::Chars => "character",
        }
    }
}

/// Where a record is in its file: a line of JSON Lines, or an item of one JSON array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RecordAt {
    /// Line number, from 1.
    Line(usize),
    /// Item number in the array, from 1.
    Item(usize),
}

impl std::fmt::Display for RecordAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordAt::Line(n) => write!(f, "line {n}"),
            RecordAt::Item(n) => write!(f, "item {n} of the array"),
        }
    }
}

/// Why a cuts file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CutsProblem {
    /// The file could not be read.
    #[error("cannot read it: {0}")]
    Read(String),
    /// The file holds no records.
    #[error("it holds no records: write one JSON object per line, or one JSON array of them")]
    NoRecords,
    /// A line is not JSON.
    #[error("not JSON: {0}")]
    Json(String),
    /// A record is not a JSON object.
    #[error("not a JSON object")]
    NotAnObject,
    /// A record fits no format.
    #[error(
        "not a cuts record: expected {{\"doc\", \"start\", \"end\"}}, a LangChain Document (page_content, metadata.source) or a LlamaIndex node (metadata.file_path, start_char_idx, end_char_idx)"
    )]
    UnknownRecord,
    /// A record in another format than the first.
    #[error("a {this} record, but {first_at} made this a {first} file: one file holds one format")]
    MixedFormats {
        /// This record's format.
        this: CutsFormat,
        /// The file's format.
        first: CutsFormat,
        /// The record that set it.
        first_at: RecordAt,
    },
    /// `{"offsets": ...}` after the first record.
    #[error("an {{\"offsets\": ...}} header must be the first record")]
    LateHeader,
    /// A field the record needs is missing.
    #[error("`{0}` is missing")]
    MissingField(&'static str),
    /// A field has the wrong kind of value.
    #[error("`{field}` {why}")]
    BadField {
        /// The field.
        field: &'static str,
        /// What is wrong.
        why: String,
    },
    /// No document matches the record's name.
    #[error("no document of the corpus is `{name}` (the corpus holds {known})")]
    NoDocument {
        /// The name in the record.
        name: String,
        /// Some of the corpus paths.
        known: String,
    },
    /// Several documents match the record's name.
    #[error("`{name}` could be any of {candidates}: give more of its path")]
    AmbiguousDocument {
        /// The name in the record.
        name: String,
        /// The documents it could be.
        candidates: String,
    },
    /// The record names a file the corpus left out.
    #[error("`{name}` is {path}, which the corpus left out: {reason}")]
    SkippedDocument {
        /// The name in the record.
        name: String,
        /// The file's corpus path.
        path: String,
        /// Why it was left out.
        reason: String,
    },
    /// `start >= end`.
    #[error("start {start} is not before end {end}: a chunk holds at least one {unit}", unit = unit.name())]
    EmptySpan {
        /// Start as given.
        start: usize,
        /// End as given.
        end: usize,
        /// What they count.
        unit: OffsetUnit,
    },
    /// An offset past the end of the document.
    #[error("{field} {offset} is past the end of {doc}, which has {len} {unit}s", unit = unit.name())]
    PastEnd {
        /// `start` or `end`.
        field: &'static str,
        /// The offset as given.
        offset: usize,
        /// The document.
        doc: String,
        /// Its length in `unit`s.
        len: usize,
        /// What the offsets count.
        unit: OffsetUnit,
    },
    /// A byte offset inside a multi-byte character.
    #[error(
        "{field} {offset} falls inside a multi-byte character of {doc}: byte offsets must fall between characters (if the file counts characters, say so with \"offsets\": \"chars\")"
    )]
    NotCharBoundary {
        /// `start` or `end`.
        field: &'static str,
        /// The offset.
        offset: usize,
        /// The document.
        doc: String,
    },
    /// The record's text is not the document's text at its span.
    #[error("its text is not the text of {doc} at {unit}s {start}..{end}: the record has {given:?}, the document {found:?}{hint}", unit = unit.name())]
    TextMismatch {
        /// The document.
        doc: String,
        /// Start as given.
        start: usize,
        /// End (given or implied by the text's length).
        end: usize,
        /// What they count.
        unit: OffsetUnit,
        /// The start of the record's text.
        given: String,
        /// The start of the document's text there.
        found: String,
        /// What may explain it.
        hint: String,
    },
    /// A record without offsets whose text is not in the document.
    #[error("its text {given:?} is not in {doc}{after}")]
    TextNotFound {
        /// The document.
        doc: String,
        /// The start of the record's text.
        given: String,
        /// `after the previous chunk (byte N)` when the search started there.
        after: String,
    },
    /// The same span as another record.
    #[error("the same span of {doc} (bytes {start}..{end}) as {other}: each chunk once")]
    Duplicate {
        /// The document.
        doc: String,
        /// Byte start.
        start: usize,
        /// Byte end.
        end: usize,
        /// The other record.
        other: RecordAt,
    },
    /// A span wholly inside another record's.
    #[error(
        "its span of {doc} (bytes {start}..{end}) lies wholly inside the chunk of {outer}: given chunks may overlap but not nest (dump one level of a hierarchy)"
    )]
    Nested {
        /// The document.
        doc: String,
        /// Byte start.
        start: usize,
        /// Byte end.
        end: usize,
        /// The record holding it.
        outer: RecordAt,
    },
}

/// A cuts file that cannot be used: the file, the record when one is to blame, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cuts file {}{}: {problem}", crate::text::safe_name(&.file.display().to_string()), .at.map(|a| format!(", {a}")).unwrap_or_default())]
pub struct CutsError {
    /// The file.
    pub file: PathBuf,
    /// The record, when one is to blame.
    pub at: Option<RecordAt>,
    /// What is wrong.
    pub problem: Box<CutsProblem>,
}

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
    /// Read the cuts file at `file` and place every record in `corpus`.
    pub fn load(file: &Path, corpus: &Corpus) -> Result<GivenCuts, CutsError> {
        let fail = |at: Option<RecordAt>, problem| CutsError {
            file: file.to_path_buf(),
            at,
            problem: Box::new(problem),
        };
        let content = std::fs::read_to_string(file)
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
            let from = previous.get(&doc).copied().unwrap_or(0);
            let span = place(cut, document, table, from).map_err(|p| fail(at, p))?;
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

/// The byte span of one record in its document. `table` is the document's [`char_starts`];
/// `from` is the byte start of the previous record of the same document, where a search for a
/// record without offsets begins.
fn place(
    cut: &records::RawCut,
    doc: &Document,
    table: &[usize],
    from: usize,
) -> Result<Span, CutsProblem> {
    let text = &doc.text;
    let path = doc.path.clone();
    let Some(start) = cut.start else {
        // No offsets: find the text, at or after the previous chunk's start.
        let given = cut.text.as_deref().unwrap_or_default();
        return match text.get(from..).and_then(|t| t.find(given)) {
            Some(i) if !given.is_empty() => Ok(Span::new(from + i, from + i + given.len())),
            _ => Err(CutsProblem::TextNotFound {
                doc: path,
                given: preview(given),
                after: if from > 0 {
                    format!(" after the previous chunk of that document (byte {from})")
                } else {
                    String::new()
                },
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
        let hint = if text.contains("\r\n") && !given.contains('\r') {
            "; the document has CRLF line ends, which Python's text mode reads as LF: open it with newline=\"\" before splitting".to_string()
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
