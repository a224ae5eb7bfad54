//! From records to traced queries: retrieval steps kept, reranker steps matched to the retrieval
//! of the same trace, question ids taken from the step's metadata or its trace's, document texts
//! shared, secrets in metadata redacted.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::attrs::{self, Attrs};
use crate::records::{Record, field};
use crate::{
    Feedback, MAX_DOCUMENT_BYTES, MAX_DOCUMENTS_PER_STEP, MAX_QUERIES, MAX_QUESTION_CHARS,
    RetrievedDocument, TraceError, TraceFormat, TraceRead, TracedQuery,
};

/// Metadata keys that carry a question's id, in the order looked for.
const QUESTION_ID_KEYS: [&str; 4] = ["question_id", "qid", "example_id", "query_id"];

/// A reranker step, matched to its trace's retrieval at the end.
struct RerankStep {
    trace_id: String,
    query: Option<String>,
    input: Vec<RetrievedDocument>,
    output: Vec<RetrievedDocument>,
}

/// Everything read so far.
#[derive(Default)]
pub struct Collector {
    /// What the caller gets back.
    pub read: TraceRead,
    rerankers: Vec<RerankStep>,
    /// Question ids found in any span of a trace (by trace id).
    trace_question_ids: HashMap<String, HashSet<String>>,
    /// Document texts, shared.
    texts: HashSet<Arc<str>>,
    /// Each span's parent, by hashed `(trace, span)` ids: 16 bytes a span however long the ids.
    parents: HashMap<u64, u64>,
}

/// A span's key: its trace and its own id, hashed.
fn key(trace_id: &str, span_id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    trace_id.hash(&mut h);
    span_id.hash(&mut h);
    h.finish()
}

impl Collector {
    /// Keep a retrieval step (or count it past the bound).
    fn keep(&mut self, query: TracedQuery) {
        if self.read.queries.len() >= MAX_QUERIES {
            self.read.queries_left_out += 1;
            return;
        }
        self.read.queries.push(query);
    }

    /// Note that span `span_id` of `trace_id` ran inside `parent`.
    fn link(&mut self, trace_id: &str, span_id: &str, parent: Option<&str>) {
        if let Some(parent) = parent.filter(|p| !p.is_empty() && *p != span_id) {
            self.parents
                .insert(key(trace_id, span_id), key(trace_id, parent));
        }
    }

    /// Drop the retrieval steps that ran inside another retrieval step of their trace, keeping
    /// the outermost: what the application went on with.
    fn drop_nested(&mut self) {
        let steps: HashSet<u64> = self
            .read
            .queries
            .iter()
            .map(|q| key(&q.trace_id, &q.span_id))
            .collect();
        let parents = &self.parents;
        let inside_another = |q: &TracedQuery| {
            let mut at = key(&q.trace_id, &q.span_id);
            // Bounded: a cycle in hostile ids ends the walk.
            for _ in 0..1000 {
                match parents.get(&at) {
                    Some(p) if steps.contains(p) => return true,
                    Some(p) => at = *p,
                    None => return false,
                }
            }
            false
        };
        let before = self.read.queries.len();
        let kept: Vec<TracedQuery> = std::mem::take(&mut self.read.queries)
            .into_iter()
            .filter(|q| !inside_another(q))
            .collect();
        self.read.nested_steps += before - kept.len();
        self.read.queries = kept;
    }

    fn count(&mut self, format: TraceFormat) {
        self.read.spans += 1;
        *self.read.format_counts.entry(format).or_default() += 1;
    }

    /// A text, shared with the same text seen before.
    fn text(&mut self, s: &str) -> Arc<str> {
        if let Some(t) = self.texts.get(s) {
            return t.clone();
        }
        let t: Arc<str> = Arc::from(s);
        self.texts.insert(t.clone());
        t
    }

    /// A document from its content, id, score and metadata.
    fn document(
        &mut self,
        content: &str,
        id: Option<String>,
        score: Option<f64>,
        metadata: BTreeMap<String, Value>,
    ) -> RetrievedDocument {
        let length = content.len();
        let content = if length > MAX_DOCUMENT_BYTES {
            Arc::from("")
        } else {
            self.text(content)
        };
        RetrievedDocument {
            id,
            content,
            length,
            score,
            metadata: redact(metadata),
        }
    }

    /// Documents under an OpenInference prefix (`retrieval.documents`,
    /// `reranker.output_documents`).
    fn oi_documents(&mut self, attrs: &Attrs, prefix: &str) -> (Vec<RetrievedDocument>, usize) {
        let all = attrs::numbered(attrs, prefix);
        let left_out = all.len().saturating_sub(MAX_DOCUMENTS_PER_STEP);
        let docs = all
            .iter()
            .take(MAX_DOCUMENTS_PER_STEP)
            .map(|d| {
                let content = attrs::str_of(d, "document.content").unwrap_or("");
                let id = d.get("document.id").and_then(id_string);
                let score = d.get("document.score").and_then(number);
                let metadata = attrs::object_at(d, "document.metadata");
                self.document(content, id, score, metadata)
            })
            .collect();
        (docs, left_out)
    }

    /// Documents written as objects (`page_content` / `pageContent` / `content` / `text`,
    /// `metadata`, `id`, `score`), LangChain's serialised form (`kwargs`) opened.
    fn object_documents(&mut self, list: &[Value]) -> (Vec<RetrievedDocument>, usize) {
        let left_out = list.len().saturating_sub(MAX_DOCUMENTS_PER_STEP);
        let docs = list
            .iter()
            .take(MAX_DOCUMENTS_PER_STEP)
            .map(|d| {
                let d = d.get("kwargs").unwrap_or(d);
                let content = match d {
                    Value::String(s) => s.as_str(),
                    _ => field(
                        d,
                        &[
                            "page_content",
                            "pageContent",
                            "content",
                            "text",
                            "document.content",
                        ],
                    )
                    .unwrap_or(""),
                };
                let metadata: BTreeMap<String, Value> = d
                    .get("metadata")
                    .and_then(Value::as_object)
                    .map(|m| m.clone().into_iter().collect())
                    .unwrap_or_default();
                let id = d.get("id").and_then(id_string);
                let score = d
                    .get("score")
                    .and_then(number)
                    .or_else(|| metadata.get("score").and_then(number))
                    .or_else(|| metadata.get("relevance_score").and_then(number));
                self.document(content, id, score, metadata)
            })
            .collect();
        (docs, left_out)
    }

    /// Note the question ids a span's metadata names, for its trace.
    fn note_trace_metadata(&mut self, trace_id: &str, metadata: &BTreeMap<String, Value>) {
        if let Some(id) = question_id(metadata) {
            self.trace_question_ids
                .entry(trace_id.to_string())
                .or_default()
                .insert(id);
        }
    }

    /// A question checked against the bound; `None` (and a problem noted) when it fails it.
    fn question(&mut self, question: Option<String>, at: &str) -> Option<String> {
        let Some(q) = question.filter(|q| !q.trim().is_empty()) else {
            self.read
                .problem(at.to_string(), "a retrieval step with no question".into());
            return None;
        };
        let chars = q.chars().count();
        if chars > MAX_QUESTION_CHARS {
            self.read.problem(
                at.to_string(),
                format!(
                    "a question of {chars} characters, over the {MAX_QUESTION_CHARS}-character limit; not read"
                ),
            );
            return None;
        }
        Some(q)
    }

    /// A span of an OTLP request or a JSONL/REST export.
    pub fn span(&mut self, record: Record, format: TraceFormat, at: &str) {
        let kind =
            attrs::str_of(&record.attrs, "openinference.span.kind").map(str::to_ascii_uppercase);
        let genai = record
            .attrs
            .keys()
            .any(|k| k.starts_with("gen_ai.retrieval.documents"));
        let format = if genai && kind.is_none() {
            TraceFormat::GenAi
        } else {
            format
        };
        self.count(format);
        let metadata = attrs::object_at(&record.attrs, "metadata");
        self.note_trace_metadata(&record.trace_id, &metadata);
        self.link(
            &record.trace_id,
            &record.span_id,
            record.parent_id.as_deref(),
        );
        let at = format!("{at}, span {}", record.span_id);
        match kind.as_deref() {
            Some("RETRIEVER") => {
                let question = self.question(oi_input(&record.attrs), &at);
                let (retrieved, left_out) = self.oi_documents(&record.attrs, "retrieval.documents");
                if let Some(question) = question {
                    self.keep(TracedQuery {
                        trace_id: record.trace_id,
                        span_id: record.span_id,
                        question,
                        question_id: question_id(&metadata),
                        start_time: record.start_time,
                        retrieved,
                        documents_left_out: left_out,
                        reranked: None,
                        feedback: Vec::new(),
                        format,
                    });
                }
            }
            Some("RERANKER") => {
                let (input, _) = self.oi_documents(&record.attrs, "reranker.input_documents");
                let (output, _) = self.oi_documents(&record.attrs, "reranker.output_documents");
                let query = attrs::str_of(&record.attrs, "reranker.query").map(str::to_string);
                self.rerankers.push(RerankStep {
                    trace_id: record.trace_id,
                    query,
                    input,
                    output,
                });
            }
            _ if genai => {
                let question = self.question(
                    [
                        "gen_ai.retrieval.query.text",
                        "gen_ai.retrieval.query",
                        "gen_ai.prompt",
                    ]
                    .iter()
                    .find_map(|k| attrs::str_of(&record.attrs, k).map(str::to_string))
                    .or_else(|| oi_input(&record.attrs)),
                    &at,
                );
                let (retrieved, left_out) = match record.attrs.get("gen_ai.retrieval.documents") {
                    Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                        Ok(Value::Array(list)) => self.object_documents(&list),
                        _ => {
                            self.read.problem(
                                at.clone(),
                                "gen_ai.retrieval.documents is not a JSON array".into(),
                            );
                            (Vec::new(), 0)
                        }
                    },
                    _ => {
                        // Flattened: gen_ai.retrieval.documents.N.{content,id,score,metadata…}.
                        let list: Vec<Value> =
                            attrs::numbered(&record.attrs, "gen_ai.retrieval.documents")
                                .into_iter()
                                .map(|d| Value::Object(unflatten(d)))
                                .collect();
                        self.object_documents(&list)
                    }
                };
                if let Some(question) = question {
                    self.keep(TracedQuery {
                        trace_id: record.trace_id,
                        span_id: record.span_id,
                        question,
                        question_id: question_id(&metadata),
                        start_time: record.start_time,
                        retrieved,
                        documents_left_out: left_out,
                        reranked: None,
                        feedback: Vec::new(),
                        format,
                    });
                }
            }
            _ => {}
        }
    }

    /// A LangSmith run.
    pub fn langsmith(&mut self, run: &Value, at: &str) {
        self.count(TraceFormat::LangSmith);
        let id = run.get("id").and_then(id_string).unwrap_or_default();
        let trace_id = run
            .get("trace_id")
            .and_then(id_string)
            .unwrap_or_else(|| id.clone());
        let metadata = object_map(
            run.pointer("/extra/metadata")
                .or_else(|| run.get("metadata")),
        );
        self.note_trace_metadata(&trace_id, &metadata);
        let parent = run.get("parent_run_id").and_then(id_string);
        self.link(&trace_id, &id, parent.as_deref());
        if run.get("run_type").and_then(Value::as_str) != Some("retriever") {
            return;
        }
        let at = format!("{at}, run {id}");
        let question = self.question(input_text(run.get("inputs")), &at);
        let list = run
            .pointer("/outputs/documents")
            .or_else(|| run.pointer("/outputs/output"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let (retrieved, left_out) = self.object_documents(&list);
        let feedback = run
            .get("feedback_stats")
            .and_then(Value::as_object)
            .map(|stats| {
                stats
                    .iter()
                    .map(|(name, s)| Feedback {
                        name: name.clone(),
                        score: s.get("avg").and_then(number).or_else(|| number(s)),
                        label: None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let Some(question) = question {
            self.keep(TracedQuery {
                trace_id,
                span_id: id,
                question,
                question_id: question_id(&metadata),
                start_time: run.get("start_time").and_then(id_string),
                retrieved,
                documents_left_out: left_out,
                reranked: None,
                feedback,
                format: TraceFormat::LangSmith,
            });
        }
    }

    /// A Langfuse observation.
    pub fn langfuse(&mut self, obs: &Value, at: &str) {
        self.count(TraceFormat::Langfuse);
        let id = obs.get("id").and_then(id_string).unwrap_or_default();
        let trace_id = obs
            .get("traceId")
            .or_else(|| obs.get("trace_id"))
            .and_then(id_string)
            .unwrap_or_default();
        let metadata = object_map(obs.get("metadata"));
        self.note_trace_metadata(&trace_id, &metadata);
        let parent = obs
            .get("parentObservationId")
            .or_else(|| obs.get("parent_observation_id"))
            .and_then(id_string);
        self.link(&trace_id, &id, parent.as_deref());
        if !obs
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case("RETRIEVER"))
        {
            return;
        }
        let at = format!("{at}, observation {id}");
        let question = self.question(input_text(obs.get("input")), &at);
        let list = document_list(obs.get("output"));
        let (retrieved, left_out) = self.object_documents(&list);
        if let Some(question) = question {
            self.keep(TracedQuery {
                trace_id,
                span_id: id,
                question,
                question_id: question_id(&metadata),
                start_time: obs.get("startTime").and_then(id_string),
                retrieved,
                documents_left_out: left_out,
                reranked: None,
                feedback: Vec::new(),
                format: TraceFormat::Langfuse,
            });
        }
    }

    /// A LangChain `astream_events` v2 event.
    pub fn langchain_event(&mut self, event: &Value, at: &str) {
        self.count(TraceFormat::LangChainEvents);
        if event.get("event").and_then(Value::as_str) != Some("on_retriever_end") {
            return;
        }
        let run_id = event.get("run_id").and_then(id_string).unwrap_or_default();
        let trace_id = event
            .get("parent_ids")
            .and_then(Value::as_array)
            .and_then(|p| p.first())
            .and_then(id_string)
            .unwrap_or_else(|| run_id.clone());
        let parent = event
            .get("parent_ids")
            .and_then(Value::as_array)
            .and_then(|p| p.last())
            .and_then(id_string);
        self.link(&trace_id, &run_id, parent.as_deref());
        let metadata = object_map(event.get("metadata"));
        let at = format!("{at}, event {run_id}");
        let question = self.question(input_text(event.pointer("/data/input")), &at);
        let list = document_list(event.pointer("/data/output"));
        let (retrieved, left_out) = self.object_documents(&list);
        if let Some(question) = question {
            self.keep(TracedQuery {
                trace_id,
                span_id: run_id,
                question,
                question_id: question_id(&metadata),
                start_time: None,
                retrieved,
                documents_left_out: left_out,
                reranked: None,
                feedback: Vec::new(),
                format: TraceFormat::LangChainEvents,
            });
        }
    }

    /// Match rerankers, fill question ids from the trace, and say what was read.
    pub fn finish(mut self) -> Result<TraceRead, TraceError> {
        if self.read.spans == 0 {
            let first = self
                .read
                .problems
                .first()
                .map(|p| format!("; first: {}: {}", p.at, p.why))
                .unwrap_or_default();
            return Err(TraceError::UnknownShape {
                records: self.read.records,
                first,
            });
        }
        if self.read.queries.is_empty() && self.read.queries_left_out == 0 {
            let formats: Vec<&str> = self.read.formats().iter().map(|f| f.name()).collect();
            return Err(TraceError::NoRetrieval {
                spans: self.read.spans,
                formats: formats.join(", "),
            });
        }
        self.drop_nested();
        for step in std::mem::take(&mut self.rerankers) {
            let found = self.read.queries.iter_mut().find(|q| {
                q.trace_id == step.trace_id
                    && q.reranked.is_none()
                    && (step.query.as_deref().is_none_or(|r| r == q.question)
                        || same_texts(&step.input, &q.retrieved))
            });
            match found {
                Some(q) => q.reranked = Some(step.output),
                None => self.read.problem(
                    format!("trace {}", step.trace_id),
                    "a reranker step with no retrieval step in its trace; not read".into(),
                ),
            }
        }
        for q in &mut self.read.queries {
            if q.question_id.is_none()
                && let Some(ids) = self.trace_question_ids.get(&q.trace_id)
                && ids.len() == 1
            {
                q.question_id = ids.iter().next().cloned();
            }
        }
        Ok(self.read)
    }
}

fn same_texts(a: &[RetrievedDocument], b: &[RetrievedDocument]) -> bool {
    let a: HashSet<&str> = a.iter().map(|d| d.content.as_ref()).collect();
    b.iter().all(|d| a.contains(d.content.as_ref()))
}

/// An OpenInference input: `input.value`, opened when it is JSON (`{"query": …}`).
fn oi_input(attrs: &Attrs) -> Option<String> {
    let value = attrs::str_of(attrs, "input.value")?;
    let json = attrs::str_of(attrs, "input.mime_type").is_some_and(|m| m.contains("json"));
    if (json || value.trim_start().starts_with('{'))
        && let Ok(v) = serde_json::from_str::<Value>(value)
        && let Some(q) = input_text(Some(&v))
    {
        return Some(q);
    }
    Some(value.to_string())
}

/// The documents of an output written as a list, or as `{"documents": [...]}`.
fn document_list(output: Option<&Value>) -> Vec<Value> {
    match output {
        Some(Value::Array(list)) => list.clone(),
        Some(out) => out
            .get("documents")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// A JSON object as a map (empty when it is absent or not an object).
fn object_map(value: Option<&Value>) -> BTreeMap<String, Value> {
    value
        .and_then(Value::as_object)
        .map(|m| m.clone().into_iter().collect())
        .unwrap_or_default()
}

/// A question from an input written as a string or as `{"query"|"input"|"question": …}`.
fn input_text(input: Option<&Value>) -> Option<String> {
    match input? {
        Value::String(s) => Some(s.clone()),
        v @ Value::Object(_) => {
            field(v, &["query", "input", "question", "text"]).map(str::to_string)
        }
        _ => None,
    }
}

/// A question id from metadata.
fn question_id(metadata: &BTreeMap<String, Value>) -> Option<String> {
    QUESTION_ID_KEYS
        .iter()
        .find_map(|k| metadata.get(*k).and_then(id_string))
}

/// An id written as a string or a number.
fn id_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A number written as a number or a string.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Dotted keys back into a nested object (one record of a flattened list).
fn unflatten(flat: Attrs) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for (key, value) in flat {
        let mut parts = key.split('.').peekable();
        let mut at = &mut out;
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                at.insert(part.to_string(), value);
                break;
            }
            let entry = at
                .entry(part.to_string())
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(serde_json::Map::new());
            }
            match entry {
                Value::Object(map) => at = map,
                _ => break,
            }
        }
    }
    out
}

/// Whether a metadata key names a secret.
fn secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "secret",
        "token",
        "api_key",
        "apikey",
        "authorization",
        "credential",
        "cookie",
        "private_key",
    ]
    .iter()
    .any(|s| k.contains(s))
}

/// Metadata with secrets redacted: values under keys that name one, and values that look like
/// a bearer token or an API key.
fn redact(metadata: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    metadata
        .into_iter()
        .map(|(k, v)| {
            let looks_secret = v.as_str().is_some_and(|s| {
                let s = s.trim();
                s.starts_with("Bearer ") || s.starts_with("sk-") || s.starts_with("lsv2_")
            });
            if secret_key(&k) || looks_secret {
                (k, Value::String("[redacted]".into()))
            } else {
                (k, v)
            }
        })
        .collect()
}
