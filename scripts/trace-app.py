"""A small LangChain retrieval app over a corpus folder, instrumented as teams instrument theirs, so
that seamscope's trace readers are tested on traces real tools wrote (never hand-written ones).

The app: every document of the folder (as scripts/dump-cuts.py reads them: all files but hidden
ones and questions.jsonl, as text) cut by LangChain's RecursiveCharacterTextSplitter
(add_start_index=True, no overlap: a chunks-only app, the setting Seams is meant to improve),
embedded through an OpenAI-compatible embedding service (langchain-openai's OpenAIEmbeddings,
e.g. scripts/embed-server.py on loopback) into an InMemoryVectorStore, and a chunks-only retriever
(k=5) in a small chain `retriever | format_docs`. It answers every question of
CORPUS/questions.jsonl (its `question`), the question's id in the run's metadata
(`{"question_id": ...}`), so the traces carry it.

Traced by the tools themselves:
  - OpenInference spans (openinference-instrumentation-langchain over the OpenTelemetry SDK):
      --otlp-json FILE   the spans as OTLP JSON, one ExportTraceServiceRequest per line (one per
                         export batch), as the OpenTelemetry Collector's file exporter writes them:
                         the SDK's own protobuf encoding (opentelemetry-exporter-otlp-proto-common)
                         turned into JSON by protobuf's json_format, with the OTLP/JSON rules
                         (lowerCamelCase names, enums as integers, int64 as strings, trace and
                         span ids as hex, not base64)
      --phoenix URL      the same spans sent over OTLP/HTTP (protobuf) to URL/v1/traces, e.g. a
                         Phoenix server (scripts/phoenix-server), into the project --project NAME;
                         then waits until Phoenix's REST API lists them all (Phoenix answers
                         OTLP before it has stored the spans)
  - LangSmith runs (langchain_core's run collector, each run as the LangSmith SDK posts it):
      --langsmith-jsonl FILE   one run per line, every run of every trace (the chain, its
                               retriever and its format_docs step), each with id, trace_id,
                               parent_run_id, dotted_order, run_type, inputs, outputs, times and
                               extra.metadata
  - the splitter's chunks as a cuts file for `seamscope --cuts` (as scripts/dump-cuts.py writes
    one): --cuts FILE

    python scripts/trace-app.py CORPUS --embed-url http://127.0.0.1:PORT
        [--otlp-json FILE] [--phoenix URL [--project NAME]] [--langsmith-jsonl FILE]
        [--cuts FILE] [--limit N] [--chunk-size 700] [--k 5] [--model all-MiniLM-L6-v2]

The chunk size is in characters; 700 (735 chunks of sample-corpus/, 118 tokens at the median) keeps
every chunk within MiniLM's 256-token window (241 at most; 800 would give four over it), which the
embedding server enforces: it refuses a longer text rather than cutting it.
"""

import argparse
import base64
import json
import os
import pathlib
import sys
import time

from google.protobuf.json_format import MessageToDict
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.context import collect_runs
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import OpenAIEmbeddings
from langchain_text_splitters import RecursiveCharacterTextSplitter
from langsmith._internal._serde import dumps_json
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.semconv.resource import ResourceAttributes
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

# The files read as documents: everything but hidden files and question sets (as dump-cuts.py).
SKIP = {"questions.jsonl"}


class SentSpans(SpanProcessor):
    """Counts the spans of each trace, so --phoenix can wait until the server holds them all."""

    def __init__(self):
        self.per_trace = {}

    def on_end(self, span):
        trace_id = format(span.context.trace_id, "032x")
        self.per_trace[trace_id] = self.per_trace.get(trace_id, 0) + 1


def wait_for_phoenix(url, project, sent, timeout_s=120):
    """Waits until Phoenix's REST API lists every span sent: it answers OTLP before it has stored
    the spans. Raises TimeoutError after timeout_s."""
    import urllib.error
    import urllib.parse
    import urllib.request

    want = sum(sent.per_trace.values())
    deadline = time.monotonic() + timeout_s
    while True:
        seen, cursor = 0, None
        while True:
            query = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            page_url = (f"{url.rstrip('/')}/v1/projects/{urllib.parse.quote(project, safe='')}"
                        f"/spans?{urllib.parse.urlencode(query)}")
            try:
                with urllib.request.urlopen(page_url, timeout=30) as response:
                    page = json.load(response)
            except urllib.error.HTTPError as e:
                if e.code != 404:  # 404: the project is not there yet
                    raise
                page = {"data": [], "next_cursor": None}
            seen += sum(1 for span in page["data"] if span["context"]["trace_id"] in sent.per_trace)
            cursor = page.get("next_cursor")
            if not cursor:
                break
        if seen >= want:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"Phoenix at {url} lists {seen} of the {want} spans sent")
        time.sleep(0.5)


class OtlpJsonFileExporter(SpanExporter):
    """Spans as OTLP JSON lines, one ExportTraceServiceRequest per export, as the Collector's file
    exporter writes them."""

    def __init__(self, path):
        self.out = open(path, "w", encoding="utf-8")

    def export(self, spans):
        request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
        hex_ids(request)
        self.out.write(json.dumps(request, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()
        return SpanExportResult.SUCCESS

    def shutdown(self):
        self.out.close()


def hex_ids(node):
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping writes bytes as
    base64."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids(item)


def corpus_documents(root):
    """One Document per file, its `source` the path relative to the corpus folder."""
    paths = sorted(
        p for p in root.rglob("*")
        if p.is_file() and p.name not in SKIP
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    docs = []
    for path in paths:
        # newline="" keeps CRLF as it is, so character offsets match the file.
        with open(path, encoding="utf-8", newline="") as f:
            docs.append(Document(page_content=f.read(),
                                 metadata={"source": path.relative_to(root).as_posix()}))
    return docs


def format_docs(docs):
    """The context an LLM would be given: the retrieved chunks, in order."""
    return "\n\n".join(doc.page_content for doc in docs)


def all_runs(run):
    """A run and every run below it, parents first."""
    yield run
    for child in run.child_runs:
        yield from all_runs(child)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=pathlib.Path)
    ap.add_argument("--embed-url", required=True,
                    help="the OpenAI-compatible embedding service (its root; /v1 is added)")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="the embedding model's name")
    ap.add_argument("--chunk-size", type=int, default=700, help="characters per chunk")
    ap.add_argument("--k", type=int, default=5, help="chunks the retriever returns")
    ap.add_argument("--otlp-json", help="write the spans here as OTLP JSON lines")
    ap.add_argument("--phoenix", help="send the spans over OTLP/HTTP to this server (URL/v1/traces)")
    ap.add_argument("--project", default="seamscope-trace-app",
                    help="the project the spans belong to (openinference.project.name)")
    ap.add_argument("--langsmith-jsonl", help="write every LangSmith run here, one per line")
    ap.add_argument("--cuts", help="write the splitter's chunks here (a cuts file)")
    ap.add_argument("--limit", type=int, help="only the first N questions")
    args = ap.parse_args()
    # Never post runs to a LangSmith service: the runs are collected in this process only.
    os.environ["LANGSMITH_TRACING"] = "false"
    os.environ.pop("LANGCHAIN_TRACING_V2", None)

    # The instrumentation first, as an app does at start-up.
    provider = TracerProvider(resource=Resource.create({
        "service.name": "seamscope-trace-app",
        ResourceAttributes.PROJECT_NAME: args.project,
    }))
    if args.otlp_json:
        provider.add_span_processor(BatchSpanProcessor(OtlpJsonFileExporter(args.otlp_json)))
    sent = SentSpans()
    if args.phoenix:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(sent)
        endpoint = args.phoenix.rstrip("/") + "/v1/traces"
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    LangChainInstrumentor().instrument(tracer_provider=provider)

    started = time.monotonic()
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=args.chunk_size, chunk_overlap=0, add_start_index=True
    )
    chunks = splitter.split_documents(corpus_documents(args.corpus))
    if args.cuts:
        with open(args.cuts, "w", encoding="utf-8") as out:
            for chunk in chunks:
                out.write(json.dumps({"page_content": chunk.page_content,
                                      "metadata": chunk.metadata}) + "\n")
    embeddings = OpenAIEmbeddings(
        model=args.model,
        base_url=args.embed_url.rstrip("/") + "/v1",
        api_key="unused",  # a loopback service; a real app passes its key
        check_embedding_ctx_length=False,  # send the texts, not tiktoken tokens
    )
    store = InMemoryVectorStore(embeddings)
    store.add_documents(chunks)
    retriever = store.as_retriever(search_kwargs={"k": args.k})
    chain = retriever | RunnableLambda(format_docs)
    indexed = time.monotonic()

    with open(args.corpus / "questions.jsonl", encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    if args.limit is not None:
        questions = questions[: args.limit]
    runs = []
    for q in questions:
        with collect_runs() as collector:
            chain.invoke(q["question"], config={"metadata": {"question_id": q["id"]}})
        runs.extend(collector.traced_runs)
    answered = time.monotonic()
    provider.force_flush()
    provider.shutdown()
    if args.phoenix:
        wait_for_phoenix(args.phoenix, args.project, sent)
    stored = time.monotonic()

    if args.langsmith_jsonl:
        with open(args.langsmith_jsonl, "wb") as out:
            for root in runs:
                for run in all_runs(root):
                    # What RunTree.post() hands the LangSmith client, serialised as it does.
                    out.write(dumps_json(run._get_dicts_safe()) + b"\n")
    sys.stderr.write(
        f"trace-app: {len(chunks)} chunks indexed in {indexed - started:.1f}s, "
        f"{len(questions)} questions answered in {answered - indexed:.1f}s"
        + (f", all {sum(sent.per_trace.values())} spans stored by Phoenix {stored - answered:.1f}s later"
           if args.phoenix else "") + "\n"
    )


if __name__ == "__main__":
    main()
