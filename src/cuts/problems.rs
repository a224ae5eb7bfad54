//! What a cuts file is (its format, its offset unit, a record's place in it) and what can be
//! wrong with one, each problem worded for the user.

use std::path::PathBuf;

use serde::Serialize;

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
    #[error("its text {given:?} is not in {doc}{after}{hint}")]
    TextNotFound {
        /// The document.
        doc: String,
        /// The start of the record's text.
        given: String,
        /// `after the start of the previous chunk (byte N)` when the search started there.
        after: String,
        /// What may explain it (CRLF line ends read as LF), or empty.
        hint: String,
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
// Everything a problem names (document names from the file, corpus paths) goes through
// safe_name here, once, so no cuts file can write to the terminal.
#[error("cuts file {}{}: {}", crate::text::safe_name(&.file.display().to_string()), .at.map(|a| format!(", {a}")).unwrap_or_default(), crate::text::safe_name(&.problem.to_string()))]
pub struct CutsError {
    /// The file.
    pub file: PathBuf,
    /// The record, when one is to blame.
    pub at: Option<RecordAt>,
    /// What is wrong.
    pub problem: Box<CutsProblem>,
}
