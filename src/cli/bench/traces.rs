//! `seamscope bench traces`: reading a large trace file. Writes `--spans` spans as OTLP JSON, one
//! export request of 500 spans per line as a collector's file exporter writes them (a chain span
//! and a retriever span per trace, five documents of the corpus' own text per retrieval, with
//! `source` and `start_index` metadata), then times reading it back and placing every document,
//! with the process's peak memory before and after.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use seamscope::corpus::Corpus;

use super::super::GlobalArgs;

/// Spans per export request (a line of the file).
const SPANS_PER_LINE: usize = 500;
/// Documents per retrieval.
const DOCUMENTS: usize = 5;
/// Characters per document (LangChain's common 4,000-character chunks are about 1,000 tokens).
const DOCUMENT_CHARS: usize = 1_000;

#[derive(serde::Serialize)]
struct TracesBench {
    spans: usize,
    retrievals: usize,
    file_bytes: u64,
    read_seconds: f64,
    place_seconds: f64,
    distinct_documents: usize,
    placed: usize,
    peak_rss_before_bytes: Option<u64>,
    peak_rss_after_bytes: Option<u64>,
}

/// Run the bench on `corpus` with `spans` spans.
pub fn run(global: &GlobalArgs, corpus: &Path, spans: usize, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let docs = Corpus::load(corpus, &seamscope::places::load_options(&settings))?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("spans.otlp.jsonl");
    write_spans(&docs, &file, spans)?;
    let file_bytes = std::fs::metadata(&file)?.len();
    let before = peak_rss();
    let started = Instant::now();
    let read = seamscope::traces::read_file(&file)?;
    let read_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let prepared = seamscope::traces::prepare(read, &docs);
    let place_seconds = started.elapsed().as_secs_f64();
    let after = peak_rss();
    let counts = prepared.placements.counts();
    let report = TracesBench {
        spans: prepared.read.spans,
        retrievals: prepared.read.queries.len(),
        file_bytes,
        read_seconds,
        place_seconds,
        distinct_documents: counts.distinct,
        placed: counts.distinct - counts.not_placed,
        peak_rss_before_bytes: before,
        peak_rss_after_bytes: after,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    let mb = |b: Option<u64>| b.map_or("-".to_string(), |b| format!("{:.0} MB", b as f64 / 1e6));
    outln!(
        "traces: {} spans ({} retrievals of {DOCUMENTS} documents) in {:.0} MB of OTLP JSON lines",
        report.spans,
        report.retrievals,
        file_bytes as f64 / 1e6
    )?;
    outln!(
        "  read    {:.2} s ({:.0} spans/s)",
        read_seconds,
        report.spans as f64 / read_seconds.max(1e-9)
    )?;
    outln!(
        "  place   {:.2} s ({} distinct documents, {} placed)",
        place_seconds,
        report.distinct_documents,
        report.placed
    )?;
    outln!(
        "  memory  peak resident {} after reading and placing ({} before)",
        mb(after),
        mb(before)
    )?;
    Ok(())
}

/// Write `spans` spans (half chains, half retrievers) to `path`.
fn write_spans(docs: &Corpus, path: &Path, spans: usize) -> anyhow::Result<()> {
    // The corpus cut into documents of about DOCUMENT_CHARS characters, as an app's splitter would.
    let mut pieces: Vec<(String, usize, String)> = Vec::new();
    for d in &docs.documents {
        let chars: Vec<(usize, char)> = d.text.char_indices().collect();
        for (i, window) in chars.chunks(DOCUMENT_CHARS).enumerate() {
            let start = window[0].0;
            let end = window.last().map_or(start, |(b, c)| b + c.len_utf8());
            pieces.push((
                d.path.clone(),
                i * DOCUMENT_CHARS,
                d.text[start..end].to_string(),
            ));
        }
    }
    anyhow::ensure!(
        !pieces.is_empty(),
        "the corpus holds no text to build spans from"
    );
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let s = |k: &str, v: &str| serde_json::json!({"key": k, "value": {"stringValue": v}});
    let mut line: Vec<serde_json::Value> = Vec::with_capacity(SPANS_PER_LINE);
    let flush = |line: &mut Vec<serde_json::Value>,
                 out: &mut std::io::BufWriter<std::fs::File>|
     -> anyhow::Result<()> {
        if line.is_empty() {
            return Ok(());
        }
        let request = serde_json::json!({"resourceSpans": [{"resource": {"attributes": [s("service.name", "bench")]},
            "scopeSpans": [{"scope": {"name": "openinference.instrumentation.langchain"}, "spans": std::mem::take(line)}]}]});
        writeln!(out, "{request}")?;
        Ok(())
    };
    for n in 0..spans {
        let trace = format!("{:032x}", n / 2);
        let span = format!("{n:016x}");
        if n % 2 == 0 {
            line.push(serde_json::json!({"traceId": trace, "spanId": span, "name": "RunnableSequence",
                "attributes": [s("openinference.span.kind", "CHAIN"), s("input.value", "a question"),
                               s("metadata", &format!("{{\"question_id\": \"q{}\"}}", n / 2))]}));
        } else {
            let mut attrs = vec![
                s("openinference.span.kind", "RETRIEVER"),
                s(
                    "input.value",
                    &format!("question number {n} about the corpus"),
                ),
            ];
            for j in 0..DOCUMENTS {
                let (source, start, text) = &pieces[(n * 7 + j * 13) % pieces.len()];
                let prefix = format!("retrieval.documents.{j}.document");
                attrs.push(s(&format!("{prefix}.content"), text));
                attrs.push(s(
                    &format!("{prefix}.metadata"),
                    &serde_json::json!({"source": source, "start_index": start}).to_string(),
                ));
                attrs.push(serde_json::json!({"key": format!("{prefix}.score"), "value": {"doubleValue": 1.0 - j as f64 / 10.0}}));
            }
            line.push(serde_json::json!({"traceId": trace, "spanId": span, "parentSpanId": format!("{:016x}", n - 1),
                "name": "VectorStoreRetriever", "attributes": attrs}));
        }
        if line.len() == SPANS_PER_LINE {
            flush(&mut line, &mut out)?;
        }
    }
    flush(&mut line, &mut out)?;
    out.flush()?;
    Ok(())
}

/// This process's peak resident memory so far, in bytes.
#[cfg(unix)]
fn peak_rss() -> Option<u64> {
    // SAFETY: `rusage` is a plain C struct of integers, for which all zero bytes is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a live local for the duration of the call.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0;
    let kib = u64::try_from(usage.ru_maxrss).ok()?;
    ok.then(|| {
        if cfg!(target_os = "macos") {
            kib
        } else {
            kib * 1024
        }
    })
}

/// Not known here.
#[cfg(not(unix))]
fn peak_rss() -> Option<u64> {
    None
}
