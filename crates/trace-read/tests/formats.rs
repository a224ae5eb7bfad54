//! Each format read from a small record of its shape (the real producers' output is read by
//! seamscope's own tests, which run an instrumented application): the question, the documents in
//! order with scores and metadata, the question id, the reranker's order, and what is refused.

use serde_json::json;
use trace_read::{TraceError, TraceFormat, read_bytes};

fn otlp_request() -> serde_json::Value {
    let s = |k: &str, v: &str| json!({"key": k, "value": {"stringValue": v}});
    json!({"resourceSpans": [{"resource": {"attributes": [s("service.name", "app")]},
    "scopeSpans": [{"scope": {"name": "openinference.instrumentation.langchain"}, "spans": [
      {"traceId": "t1", "spanId": "c1", "name": "RunnableSequence", "startTimeUnixNano": "1",
       "attributes": [s("openinference.span.kind", "CHAIN"), s("metadata", "{\"question_id\": \"A01\"}")]},
      {"traceId": "t1", "spanId": "r1", "parentSpanId": "c1", "name": "VectorStoreRetriever", "startTimeUnixNano": "2",
       "attributes": [
          s("openinference.span.kind", "RETRIEVER"),
          s("input.value", "Why stale reads?"),
          s("retrieval.documents.0.document.content", "first chunk"),
          s("retrieval.documents.0.document.metadata", "{\"source\": \"a.md\", \"start_index\": 0}"),
          {"key": "retrieval.documents.0.document.score", "value": {"doubleValue": 0.9}},
          s("retrieval.documents.1.document.content", "second chunk"),
          s("retrieval.documents.1.document.id", "d2"),
          s("retrieval.documents.1.document.metadata", "{\"source\": \"b.md\", \"start_index\": 100, \"api_key\": \"sk-live\"}")
       ]},
      {"traceId": "t1", "spanId": "k1", "parentSpanId": "c1", "name": "Rerank",
       "attributes": [
          s("openinference.span.kind", "RERANKER"),
          s("reranker.query", "Why stale reads?"),
          s("reranker.input_documents.0.document.content", "first chunk"),
          s("reranker.input_documents.1.document.content", "second chunk"),
          s("reranker.output_documents.0.document.content", "second chunk"),
          s("reranker.output_documents.1.document.content", "first chunk")
       ]}
    ]}]}]})
}

#[test]
fn otlp_json_one_request_per_line_with_a_reranker() {
    let text = format!("{}\n{}\n", otlp_request(), otlp_request());
    let read = read_bytes(text.as_bytes()).unwrap();
    assert_eq!(read.formats(), vec![TraceFormat::OtlpJson]);
    assert_eq!(read.spans, 6);
    assert_eq!(read.queries.len(), 2);
    let q = &read.queries[0];
    assert_eq!(q.question, "Why stale reads?");
    assert_eq!(
        q.question_id.as_deref(),
        Some("A01"),
        "from the chain span of its trace"
    );
    assert_eq!(q.retrieved.len(), 2);
    assert_eq!(q.retrieved[0].content.as_ref(), "first chunk");
    assert_eq!(q.retrieved[0].score, Some(0.9));
    assert_eq!(q.retrieved[0].meta_str("source"), Some("a.md"));
    assert_eq!(q.retrieved[1].meta_u64("start_index"), Some(100));
    assert_eq!(q.retrieved[1].id.as_deref(), Some("d2"));
    assert_eq!(q.retrieved[1].meta_str("api_key"), Some("[redacted]"));
    let sent: Vec<&str> = q.sent().iter().map(|d| d.content.as_ref()).collect();
    assert_eq!(
        sent,
        ["second chunk", "first chunk"],
        "the reranker's order is what was sent"
    );
    // The same text returned twice is held once.
    assert!(std::sync::Arc::ptr_eq(
        &read.queries[0].retrieved[0].content,
        &read.queries[1].retrieved[0].content
    ));
}

#[test]
fn one_pretty_printed_document_reads_as_well() {
    let text = serde_json::to_string_pretty(&otlp_request()).unwrap();
    let read = read_bytes(text.as_bytes()).unwrap();
    assert_eq!(read.queries.len(), 1);
}

#[test]
fn spans_with_nested_attributes_as_a_rest_page() {
    let page = json!({"data": [{
        "name": "retrieve", "context": {"trace_id": "t9", "span_id": "s9"}, "parent_id": null,
        "start_time": "2026-12-07T00:00:00Z",
        "span_kind": "RETRIEVER",
        "attributes": {"input": {"value": "q?"},
            "metadata": {"question_id": "B02"},
            "retrieval": {"documents": [{"document": {"content": "x", "metadata": {"source": "a.md"}}}]}}
    }], "next_cursor": null});
    let read = read_bytes(page.to_string().as_bytes()).unwrap();
    assert_eq!(read.formats(), vec![TraceFormat::OpenInferenceSpans]);
    let q = &read.queries[0];
    assert_eq!((q.trace_id.as_str(), q.span_id.as_str()), ("t9", "s9"));
    assert_eq!(q.question_id.as_deref(), Some("B02"));
    assert_eq!(q.retrieved[0].meta_str("source"), Some("a.md"));
}

#[test]
fn langsmith_runs_langfuse_observations_and_langchain_events() {
    let runs = [
        json!({"id": "root", "trace_id": "root", "run_type": "chain", "inputs": {}, "extra": {"metadata": {"question_id": "C03"}}}),
        json!({"id": "r", "trace_id": "root", "parent_run_id": "root", "run_type": "retriever",
               "events": [{"name": "start", "time": "2026-12-07T02:32:50+00:00"}],
               "inputs": {"query": "who?"}, "feedback_stats": {"correctness": {"n": 1, "avg": 0.0}},
               "outputs": {"documents": [{"page_content": "p", "metadata": {"source": "a.md", "start_index": 5}, "type": "Document"}]}}),
    ];
    let text: Vec<String> = runs.iter().map(|r| r.to_string()).collect();
    let read = read_bytes(text.join("\n").as_bytes()).unwrap();
    assert_eq!(read.formats(), vec![TraceFormat::LangSmith]);
    let q = &read.queries[0];
    assert_eq!(q.question_id.as_deref(), Some("C03"));
    assert_eq!(q.feedback[0].score, Some(0.0));
    assert_eq!(q.retrieved[0].meta_u64("start_index"), Some(5));

    let obs = json!([{"id": "o", "traceId": "t", "type": "RETRIEVER", "input": {"query": "what?"},
        "output": [{"pageContent": "doc", "metadata": {"source": "b.md"}}]}]);
    let read = read_bytes(obs.to_string().as_bytes()).unwrap();
    assert_eq!(read.formats(), vec![TraceFormat::Langfuse]);
    assert_eq!(read.queries[0].retrieved[0].content.as_ref(), "doc");

    let events = [
        json!({"event": "on_retriever_start", "run_id": "e", "data": {"input": {"query": "when?"}}}),
        json!({"event": "on_retriever_end", "run_id": "e", "parent_ids": ["p"], "metadata": {"qid": 7},
               "data": {"input": {"query": "when?"}, "output": [
                  {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"],
                   "kwargs": {"page_content": "then", "metadata": {"source": "c.md"}}}]}}),
    ];
    let text: Vec<String> = events.iter().map(|r| r.to_string()).collect();
    let read = read_bytes(text.join("\n").as_bytes()).unwrap();
    assert_eq!(read.formats(), vec![TraceFormat::LangChainEvents]);
    let q = &read.queries[0];
    assert_eq!(
        (q.trace_id.as_str(), q.question_id.as_deref()),
        ("p", Some("7"))
    );
    assert_eq!(q.retrieved[0].content.as_ref(), "then");
}

#[test]
fn genai_spans_with_documents_as_json() {
    let span = json!({"traceId": "g", "spanId": "g1", "name": "retrieval",
    "attributes": [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "retrieval"}},
        {"key": "gen_ai.retrieval.query.text", "value": {"stringValue": "how?"}},
        {"key": "gen_ai.retrieval.documents", "value": {"stringValue": "[{\"id\": \"1\", \"content\": \"so\", \"score\": 0.3}]"}}
    ]});
    let req = json!({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]});
    let read = read_bytes(req.to_string().as_bytes()).unwrap();
    assert_eq!(read.formats(), vec![TraceFormat::GenAi]);
    assert_eq!(read.queries[0].retrieved[0].score, Some(0.3));
}

#[test]
fn unknown_shapes_broken_lines_and_no_retrieval_are_named() {
    let err = read_bytes(b"{\"hello\": 1}\n[1, 2]\n").unwrap_err();
    assert!(
        matches!(err, TraceError::UnknownShape { records: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("expected OTLP JSON"), "{err}");

    let chain_only = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "t", "spanId": "s", "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "LLM"}}]}]}]}]});
    let err = read_bytes(chain_only.to_string().as_bytes()).unwrap_err();
    assert!(
        err.to_string().contains("none is a retrieval step"),
        "{err}"
    );

    // A broken line among good ones: named, the rest read.
    let text = format!("{}\n{{broken\n{}\n", otlp_request(), otlp_request());
    let read = read_bytes(text.as_bytes()).unwrap();
    assert_eq!(read.queries.len(), 2);
    assert_eq!(read.problem_count, 1);
    assert_eq!(read.problems[0].at, "line 2");
}

#[test]
fn bounds_on_questions_and_documents() {
    let long_q = "x".repeat(trace_read::MAX_QUESTION_CHARS + 1);
    let big_doc = "y".repeat(trace_read::MAX_DOCUMENT_BYTES + 1);
    let runs = [
        json!({"id": "a", "run_type": "retriever", "inputs": {"query": long_q}, "outputs": {"documents": []}}),
        json!({"id": "b", "run_type": "retriever", "inputs": {"query": "ok?"},
               "outputs": {"documents": [{"page_content": big_doc, "metadata": {}}]}}),
    ];
    let text: Vec<String> = runs.iter().map(|r| r.to_string()).collect();
    let read = read_bytes(text.join("\n").as_bytes()).unwrap();
    assert_eq!(read.queries.len(), 1, "the over-long question is not read");
    assert!(
        read.problems[0]
            .why
            .contains("over the 2000-character limit"),
        "{:?}",
        read.problems
    );
    let d = &read.queries[0].retrieved[0];
    assert!(d.too_long() && d.content.is_empty() && d.length == trace_read::MAX_DOCUMENT_BYTES + 1);
}

/// A retriever span for `nested_retrieval_steps_are_read_as_part_of_the_outer_one`.
fn retriever_span(id: &str, parent: &str, doc: &str) -> serde_json::Value {
    let s = |k: &str, v: &str| json!({"key": k, "value": {"stringValue": v}});
    json!({"traceId": "t9", "spanId": id, "parentSpanId": parent, "name": id,
           "attributes": [s("openinference.span.kind", "RETRIEVER"), s("input.value", "Why?"),
                          s("retrieval.documents.0.document.content", doc)]})
}

#[test]
fn nested_retrieval_steps_are_read_as_part_of_the_outer_one() {
    // A hybrid app: its own top-k retriever around an EnsembleRetriever around BM25 and the
    // vector store, each a retriever span inside the one before (OpenInference writes them so).
    let request = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        retriever_span("bm25", "ensemble", "keyword hit"),
        retriever_span("vector", "ensemble", "vector hit"),
        retriever_span("ensemble", "topk", "fused list"),
        retriever_span("topk", "chain", "what was sent"),
    ]}]}]});
    let read = read_bytes(format!("{request}\n").as_bytes()).unwrap();
    assert_eq!(read.queries.len(), 1, "one question, one query");
    assert_eq!(read.queries[0].span_id, "topk");
    assert_eq!(
        read.queries[0].retrieved[0].content.as_ref(),
        "what was sent"
    );
    assert_eq!(read.nested_steps, 3);
    // The same shape as LangSmith runs (parent_run_id), and a cycle in hostile ids ends.
    let run = |id: &str, parent: &str| {
        json!({"id": id, "trace_id": "t9", "parent_run_id": parent, "run_type": "retriever",
               "inputs": {"query": "Why?"},
               "outputs": {"documents": [{"page_content": id, "metadata": {}}]}})
    };
    let runs = [
        run("inner", "outer"),
        run("outer", "root"),
        run("a", "b"),
        run("b", "a"),
    ];
    let text: String = runs.iter().map(|r| format!("{r}\n")).collect();
    let read = read_bytes(text.as_bytes()).unwrap();
    let kept: Vec<&str> = read.queries.iter().map(|q| q.span_id.as_str()).collect();
    assert_eq!(
        kept,
        ["outer"],
        "a and b each run inside the other: neither is outermost"
    );
    assert_eq!(read.nested_steps, 3);
}
