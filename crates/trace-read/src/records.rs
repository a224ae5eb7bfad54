//! Records out of a source, each classified by its shape: the source as JSONL (a record per
//! line) or one JSON document, and each record as an OTLP request, a span, a LangSmith run, a
//! Langfuse observation or a LangChain event (arrays and pages of them opened).

use std::io::{BufRead, Read};

use serde_json::Value;

use crate::assemble::Collector;
use crate::attrs::{self, Attrs};
use crate::{MAX_LINE_BYTES, TraceError, TraceFormat};

/// One span-like record in the common form the assembler reads.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// The trace it belongs to.
    pub trace_id: String,
    /// Its own id.
    pub span_id: String,
    /// The span it ran inside, if any.
    pub parent_id: Option<String>,
    /// When it started, as written.
    pub start_time: Option<String>,
    /// Its attributes (spans) or fields (runs, observations, events), flattened.
    pub attrs: Attrs,
}

/// Read every record of `reader` into `collector`.
pub fn each_record(mut reader: impl BufRead, collector: &mut Collector) -> Result<(), TraceError> {
    let mut line = Vec::new();
    let mut number = 0usize;
    let mut jsonl: Option<bool> = None;
    loop {
        line.clear();
        let read = read_bounded_line(&mut reader, &mut line)?;
        if read == 0 {
            break;
        }
        number += 1;
        if read > MAX_LINE_BYTES {
            collector.read.records += 1;
            collector.read.problem(
                format!("line {number}"),
                format!("over {} MiB; not read", MAX_LINE_BYTES / (1024 * 1024)),
            );
            jsonl = Some(true);
            continue;
        }
        let text = trim_ascii(&line);
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(text) {
            Ok(value) => {
                jsonl = Some(true);
                collector.read.records += 1;
                record(&value, &format!("line {number}"), collector);
            }
            Err(_) if jsonl.is_none() => {
                // Not a record on one line: one JSON document over several lines.
                let mut rest = line.clone();
                let limit = MAX_LINE_BYTES as u64 + 1;
                (&mut reader).take(limit).read_to_end(&mut rest)?;
                if rest.len() > MAX_LINE_BYTES {
                    return Err(TraceError::UnknownShape {
                        records: 0,
                        first: format!(
                            "; first: one JSON document over {} MiB (write JSONL, a record per line, for larger sources)",
                            MAX_LINE_BYTES / (1024 * 1024)
                        ),
                    });
                }
                collector.read.records += 1;
                match serde_json::from_slice::<Value>(&rest) {
                    Ok(value) => record(&value, "the document", collector),
                    Err(e) => collector.read.problem(
                        "the document".into(),
                        format!("not JSON, nor JSON lines: {e}"),
                    ),
                }
                return Ok(());
            }
            Err(e) => {
                collector.read.records += 1;
                collector
                    .read
                    .problem(format!("line {number}"), format!("not JSON: {e}"));
            }
        }
    }
    Ok(())
}

/// Read one line (its `\n` dropped) into `buf`, keeping at most [`MAX_LINE_BYTES`] + 1 bytes of
/// it: the length returned is the whole line's, so a longer one is known and passed over.
fn read_bounded_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0usize;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        total += chunk.len();
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            // Count the newline so an empty line still reads as a line.
            return Ok(total.max(1));
        }
    }
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}

/// Classify one record and hand what it holds to the collector.
fn record(value: &Value, at: &str, collector: &mut Collector) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                record(item, &format!("{at}, item {}", i + 1), collector);
            }
        }
        Value::Object(obj) => {
            // A record's own shape first: a LangSmith run holds an `events` list of its own,
            // which is not a page of records.
            if let Some(resources) = obj.get("resourceSpans").and_then(Value::as_array) {
                otlp(resources, at, collector);
            } else if obj.contains_key("run_type") {
                collector.langsmith(value, at);
            } else if obj.get("event").and_then(Value::as_str).is_some() {
                collector.langchain_event(value, at);
            } else if obj.get("type").and_then(Value::as_str).is_some()
                && (obj.contains_key("traceId") || obj.contains_key("trace_id"))
                && (obj.contains_key("input") || obj.contains_key("output"))
            {
                collector.langfuse(value, at);
            } else if obj.contains_key("attributes") {
                span(value, at, TraceFormat::OpenInferenceSpans, collector);
            } else if let Some(list) = ["data", "runs", "spans", "observations", "events"]
                .iter()
                .find_map(|k| obj.get(*k).and_then(Value::as_array))
            {
                for (i, item) in list.iter().enumerate() {
                    record(item, &format!("{at}, item {}", i + 1), collector);
                }
            } else {
                collector.read.problem(
                    at.to_string(),
                    "not a span, run, observation or event (no `resourceSpans`, `attributes`, `run_type`, `event` or `type` with `traceId`)".into(),
                );
            }
        }
        _ => collector
            .read
            .problem(at.to_string(), "a JSON value that is not an object".into()),
    }
}

/// An OTLP request's spans.
fn otlp(resources: &[Value], at: &str, collector: &mut Collector) {
    for resource in resources {
        let scopes = resource
            .get("scopeSpans")
            .or_else(|| resource.get("instrumentationLibrarySpans"))
            .and_then(Value::as_array);
        for scope in scopes.into_iter().flatten() {
            for s in scope
                .get("spans")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                span(s, at, TraceFormat::OtlpJson, collector);
            }
        }
    }
}

/// The first string field of `v` among `keys` (dotted keys look inside objects).
pub fn field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| {
        let mut at = v;
        for part in k.split('.') {
            at = at.get(part)?;
        }
        at.as_str().filter(|s| !s.is_empty())
    })
}

/// A span: its ids, name, start and attributes in the common form.
fn span(value: &Value, at: &str, format: TraceFormat, collector: &mut Collector) {
    let mut attrs = attrs::attributes(value.get("attributes").unwrap_or(&Value::Null));
    // Phoenix's REST API moves `openinference.span.kind` out of the attributes.
    if !attrs.contains_key("openinference.span.kind")
        && let Some(kind) = field(value, &["span_kind", "spanKind"])
    {
        attrs.insert(
            "openinference.span.kind".into(),
            Value::String(kind.to_string()),
        );
    }
    let record = Record {
        trace_id: field(
            value,
            &["traceId", "trace_id", "context.trace_id", "context.traceId"],
        )
        .unwrap_or("")
        .to_string(),
        span_id: field(
            value,
            &[
                "spanId",
                "span_id",
                "context.span_id",
                "context.spanId",
                "id",
            ],
        )
        .unwrap_or("")
        .to_string(),
        parent_id: field(
            value,
            &[
                "parentSpanId",
                "parent_span_id",
                "parent_id",
                "context.parent_id",
            ],
        )
        .map(str::to_string),
        start_time: value
            .get("startTimeUnixNano")
            .or_else(|| value.get("start_time"))
            .or_else(|| value.get("startTime"))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
        attrs,
    };
    collector.span(record, format, at);
}
