//! Read the retrieval steps of production traces into one plain form.
//!
//! A *traced query* is what an application's retriever did for one question: the question, the
//! documents it returned in order (with scores where the framework gives them), the reranker's
//! order where a reranker ran, and the ids and metadata that tie it to a run. This crate reads
//! them as the tools teams already run write them:
//!
//! - OpenInference spans (`openinference.span.kind` = `RETRIEVER` / `RERANKER`) as OTLP JSON
//!   (`resourceSpans[].scopeSpans[].spans[]`, one request per file or per line, as a
//!   collector's file exporter writes), as JSONL of spans, or as a Phoenix server's REST pages;
//! - OpenTelemetry GenAI spans carrying `gen_ai.retrieval.documents`;
//! - LangSmith runs (`run_type: "retriever"`), JSON or JSONL;
//! - Langfuse observations of type `RETRIEVER`;
//! - LangChain `astream_events` v2 dumps (`on_retriever_end`).
//!
//! The format is detected per record and named; a file with no record of any known shape is
//! refused with what was expected. Every bound (line size, documents per step, document size,
//! question length, steps kept) is a constant below, and what passes one is counted and named,
//! never dropped silently. Text is returned as written: a front end neutralises it before it
//! reaches a terminal. Metadata keys that name secrets are redacted here.
//!
//! ```
//! let line = r#"{"run_type":"retriever","id":"r1","trace_id":"t1","inputs":{"query":"why?"},
//!   "outputs":{"documents":[{"page_content":"because","metadata":{"source":"a.md","start_index":0}}]}}"#;
//! let read = trace_read::read_bytes(line.replace('\n', " ").as_bytes()).unwrap();
//! assert_eq!(read.queries.len(), 1);
//! assert_eq!(read.queries[0].question, "why?");
//! assert_eq!(read.queries[0].retrieved[0].content.as_ref(), "because");
//! assert_eq!(read.formats(), vec![trace_read::TraceFormat::LangSmith]);
//! ```

mod assemble;
mod attrs;
mod records;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::Arc;

use serde::Serialize;

/// Longest line (or whole single-document file) read, in bytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
/// Documents kept per retrieval step; the rest are counted.
pub const MAX_DOCUMENTS_PER_STEP: usize = 1_000;
/// Longest document text kept, in bytes: a longer one is kept by its length only and cannot be
/// placed (it is named with why).
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;
/// Longest question, in characters (the same bound `seamscope query` has).
pub const MAX_QUESTION_CHARS: usize = 2_000;
/// Retrieval steps kept from one source; past it the rest are counted, not read.
pub const MAX_QUERIES: usize = 200_000;
/// Problems listed one by one; past it they are counted.
pub const MAX_PROBLEMS_LISTED: usize = 100;

/// The shape a record was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// OTLP JSON (`resourceSpans`) carrying OpenInference spans.
    OtlpJson,
    /// Spans one per record, OpenInference attributes (flat or nested): JSONL exports and a
    /// Phoenix server's REST pages.
    OpenInferenceSpans,
    /// OpenTelemetry GenAI spans (`gen_ai.retrieval.documents`).
    GenAi,
    /// LangSmith runs.
    LangSmith,
    /// Langfuse observations.
    Langfuse,
    /// LangChain `astream_events` v2 events.
    LangChainEvents,
}

impl TraceFormat {
    /// The format's name as the user's tool calls it.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::OtlpJson => "OTLP JSON (OpenInference spans)",
            TraceFormat::OpenInferenceSpans => "OpenInference spans",
            TraceFormat::GenAi => "OpenTelemetry GenAI spans",
            TraceFormat::LangSmith => "LangSmith runs",
            TraceFormat::Langfuse => "Langfuse observations",
            TraceFormat::LangChainEvents => "LangChain astream_events (v2)",
        }
    }
}

/// One document a retriever (or reranker) returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrievedDocument {
    /// The document's id as the store gave it, if any.
    pub id: Option<String>,
    /// Its text (shared between the steps that returned the same text). Empty when it was over
    /// [`MAX_DOCUMENT_BYTES`] (see `length`).
    pub content: Arc<str>,
    /// Its length in bytes as written in the trace.
    pub length: usize,
    /// The score the store or reranker gave, if any (higher or lower is better depending on the
    /// store: only the order is used).
    pub score: Option<f64>,
    /// Its metadata (`source`, `start_index`, `page`, …), secrets redacted.
    pub metadata: BTreeMap<String, serde_json::Value>,
}

impl RetrievedDocument {
    /// Whether its text was too long to keep.
    pub fn too_long(&self) -> bool {
        self.length > MAX_DOCUMENT_BYTES
    }

    /// A metadata value as a string (`source`, `file_path`, …).
    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).and_then(|v| v.as_str())
    }

    /// A metadata value as a whole number (`start_index`, `page`), given as a number or a string.
    pub fn meta_u64(&self, key: &str) -> Option<u64> {
        match self.metadata.get(key)? {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

/// A score or label a person or an evaluator attached to a traced query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feedback {
    /// Its name (`correctness`, `user_score`, …).
    pub name: String,
    /// Its score, where it has one.
    pub score: Option<f64>,
    /// Its label, where it has one.
    pub label: Option<String>,
}

/// One retrieval step of an application: a question and what came back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TracedQuery {
    /// The trace (LangSmith: the root run) it belongs to.
    pub trace_id: String,
    /// The retriever span's (run's, observation's, event's) own id.
    pub span_id: String,
    /// The question as the retriever received it.
    pub question: String,
    /// A question id the application put in the run's metadata (`question_id`, `qid`,
    /// `example_id`), if any.
    pub question_id: Option<String>,
    /// When it started (as written: RFC 3339 or nanoseconds since the epoch), if given.
    pub start_time: Option<String>,
    /// The documents the retriever returned, in its order.
    pub retrieved: Vec<RetrievedDocument>,
    /// Documents past [`MAX_DOCUMENTS_PER_STEP`], counted.
    pub documents_left_out: usize,
    /// The reranker's order of those documents, where a reranker ran in the same trace.
    pub reranked: Option<Vec<RetrievedDocument>>,
    /// Feedback and annotations on the query or its trace.
    pub feedback: Vec<Feedback>,
    /// The format it was read from.
    pub format: TraceFormat,
}

impl TracedQuery {
    /// What the application sent on: the reranker's order where one ran, else the retriever's.
    pub fn sent(&self) -> &[RetrievedDocument] {
        self.reranked.as_deref().unwrap_or(&self.retrieved)
    }
}

/// Something in the source that was not read, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// Where: `line 12`, `line 3, span 7`, `record 4`.
    pub at: String,
    /// Why it was not read.
    pub why: String,
}

/// What a source held.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TraceRead {
    /// The retrieval steps, in the source's order (by start time within a trace).
    pub queries: Vec<TracedQuery>,
    /// Records read (lines of JSONL, elements of a JSON array, pages).
    pub records: usize,
    /// Spans (runs, observations, events) seen, retrieval or not.
    pub spans: usize,
    /// Retrieval steps seen past [`MAX_QUERIES`], not read.
    pub queries_left_out: usize,
    /// Retrieval steps that ran inside another retrieval step of the same trace (the lists an
    /// `EnsembleRetriever` or a fusion retriever fuses, a wrapper's inner retriever): read as
    /// part of the outer step, whose documents are what the application went on with, and not
    /// as queries of their own.
    pub nested_steps: usize,
    /// What was not read, the first [`MAX_PROBLEMS_LISTED`] of them.
    pub problems: Vec<Problem>,
    /// How many problems there were in all.
    pub problem_count: usize,
    /// How many records of each format were read.
    pub format_counts: BTreeMap<TraceFormat, usize>,
}

impl TraceRead {
    /// The formats read, most records first.
    pub fn formats(&self) -> Vec<TraceFormat> {
        let mut formats: Vec<(TraceFormat, usize)> =
            self.format_counts.iter().map(|(f, n)| (*f, *n)).collect();
        formats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        formats.into_iter().map(|(f, _)| f).collect()
    }

    /// Note a problem (listed up to [`MAX_PROBLEMS_LISTED`], counted always).
    pub fn problem(&mut self, at: String, why: String) {
        self.problem_count += 1;
        if self.problems.len() < MAX_PROBLEMS_LISTED {
            self.problems.push(Problem { at, why });
        }
    }
}

/// A source that could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read.
    #[error("cannot read the traces: {0}")]
    Io(#[from] std::io::Error),
    /// Nothing in it has a known shape.
    #[error(
        "no trace of a known shape in it ({records} records read{first}); expected OTLP JSON (`resourceSpans[].scopeSpans[].spans[]` with OpenInference attributes), JSONL of OpenInference spans (`attributes` with `openinference.span.kind`), LangSmith runs (`run_type`, `inputs`, `outputs`), Langfuse observations (`type: RETRIEVER`) or LangChain astream_events v2 (`event: on_retriever_end`)"
    )]
    UnknownShape {
        /// Records read.
        records: usize,
        /// The first problem, said as `; first: …`.
        first: String,
    },
    /// Known records, but no retrieval step among them.
    #[error(
        "{spans} spans read ({formats}) but none is a retrieval step: no RETRIEVER span, retriever run, RETRIEVER observation or on_retriever_end event; is the application's retriever instrumented?"
    )]
    NoRetrieval {
        /// Spans read.
        spans: usize,
        /// The formats seen.
        formats: String,
    },
}

/// Read a whole source held in memory (a file's bytes, a server's page).
pub fn read_bytes(bytes: &[u8]) -> Result<TraceRead, TraceError> {
    read(std::io::Cursor::new(bytes))
}

/// Read a source: JSONL (a record per line) or one JSON document (an OTLP request, an array of
/// records, a page with `data`), whichever it is.
pub fn read(reader: impl BufRead) -> Result<TraceRead, TraceError> {
    let mut collector = assemble::Collector::default();
    records::each_record(reader, &mut collector)?;
    collector.finish()
}

/// Read several sources (Phoenix's pages, several files) as one.
pub fn read_all<R: BufRead>(sources: impl IntoIterator<Item = R>) -> Result<TraceRead, TraceError> {
    let mut collector = assemble::Collector::default();
    for source in sources {
        records::each_record(source, &mut collector)?;
    }
    collector.finish()
}
