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
                         OTLP before it has stored the spans), and logs a code evaluator's span
                         annotation on each retrieval: `retrieval_hit`, 1 ("hit") when the
                         documents hold all of the question's gold evidence, else 0 ("miss")
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
        [--chunk-tokens N] [--windowed] [--hybrid] [--model-dir DIR] [--seamscope-layout FILE]

The chunk size is in characters; 700 (735 chunks of sample-corpus/, 118 tokens at the median) keeps
every chunk within MiniLM's 256-token window (241 at most; 800 would give four over it), which the
embedding server enforces: it refuses a longer text rather than cutting it.

The white paper's regime (chunks of about 1,024 tokens, as seamscope's default layout has), still a
plain LangChain app:
  --chunk-tokens N   the same RecursiveCharacterTextSplitter (no overlap, add_start_index=True, the
                     same `source` and `start_index` metadata) with chunk_size N counted in the
                     embedding model's tokens: its length_function is the model's tokenizer.json
                     (`tokenizers`; truncation and padding off, special tokens not counted, words
                     over 100 characters cut as seamscope's tokens::bound_long_words and
                     scripts/embed-server.py cut them), so "N tokens" means what it means to
                     seamscope's chunker. (from_huggingface_tokenizer would need a `transformers`
                     tokenizer; a length function over `tokenizers` counts the same tokens.)
  --windowed         embed through WindowedEmbeddings, a langchain_core Embeddings around the same
                     OpenAIEmbeddings client, as seamscope embeds a long text (DESIGN.md §2, src/
                     embed.rs plan_windows and windows_that_fit): a text that fits the model's
                     window (256 tokens with [CLS] and [SEP], so 254 of text) is sent as it is; a
                     longer one is cut into the fewest windows that cover it evenly with equal
                     overlap, each the original text sliced from its first token's start to its
                     last token's end, each embedded by the service, and its vector is the L2-
                     normalised sum (mean) of theirs. Questions are sent as they are. So
                     seamscope's replay of the app's retrieval can be exact.
  --hybrid           retrieve as a hybrid app does: langchain-community's BM25Retriever and the
                     vector store's retriever (k each) fused by langchain-classic's
                     EnsembleRetriever (weighted RRF, c = 60), the first k of the fused list sent by
                     a small wrapper retriever. OpenInference writes four retriever spans per
                     question, each inside the one before; seamscope reads the outermost.
  --seamscope-layout FILE
                     the app's chunks are seamscope's own layout instead of the splitter's: FILE is
                     what `seamscope chunks CORPUS --json` prints (each chunk's document and byte
                     span), turned into Documents with the same `source` and `start_index`
                     (characters) metadata. The white paper's setting: a team that cut its
                     corpus as seamscope does and deployed chunks only. Its chunks are up to 1,024
                     tokens, so it needs --windowed.
  --model-dir DIR    the model folder with tokenizer.json (what `seamscope setup --dry-run --json`
                     names as cpu.model_dir); needed by the two flags above.

    python scripts/trace-app.py sample-corpus --embed-url http://127.0.0.1:PORT \\
        --chunk-tokens 1024 --windowed --model-dir DIR --cuts cuts.jsonl ...

On sample-corpus/ that gives 90 chunks (955 tokens at the median, 1,022 at most, 90 at least: a
document's last piece) embedded as 340 windows (most chunks four).
"""

import argparse
import base64
import json
import os
import pathlib
import sys
import time

import numpy as np
from google.protobuf.json_format import MessageToDict
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
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
from tokenizers import Tokenizer

# The files read as documents: everything but hidden files and question sets (as dump-cuts.py).
SKIP = {"questions.jsonl"}
# The model's window in tokens, special tokens included (MiniLM's 256, seamscope's default and
# scripts/embed-server.py's).
WINDOW = 256


def bound_long_words(tokenizer_json):
    """What seamscope's tokens::bound_long_words does (and scripts/embed-server.py): a WordPiece
    model turns a word over max_input_chars_per_word (100) into one [UNK], so a last
    pre-tokenization step cuts every word into pieces of at most that many characters; shorter
    words are untouched."""
    value = json.loads(tokenizer_json)
    model = value.get("model") or {}
    if model.get("type") != "WordPiece":
        return tokenizer_json
    limit = max(1, min(int(model.get("max_input_chars_per_word") or 100), 100_000))
    split = {"type": "Split", "pattern": {"Regex": "[\\s\\S]{1,%d}" % limit},
             "behavior": "Isolated", "invert": False}
    pre = value.get("pre_tokenizer")
    if pre is None:
        value["pre_tokenizer"] = split
    elif pre.get("type") == "Sequence":
        pre["pretokenizers"].append(split)
    else:
        value["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [pre, split]}
    return json.dumps(value)


class TokenCounter:
    """The embedding model's tokenizer as seamscope counts with it: tokenizer.json (long words
    bounded) with truncation and padding off, special tokens not counted."""

    def __init__(self, model_dir):
        path = pathlib.Path(model_dir) / "tokenizer.json"
        self.tokenizer = Tokenizer.from_str(bound_long_words(path.read_text(encoding="utf-8")))
        # tokenizer.json ships with truncation and padding at 128: both would cap every count.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        post = self.tokenizer.post_processor
        self.special_tokens = post.num_special_tokens_to_add(False) if post else 0

    def count(self, text):
        """Tokens in `text`, without special tokens (the splitter's length function)."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def offsets(self, text):
        """(start, end) of every token of `text` in characters, kept monotone as seamscope
        keeps them."""
        starts, ends = [], []
        for s, e in self.tokenizer.encode(text, add_special_tokens=False).offsets:
            s = max(s, starts[-1] if starts else 0)
            starts.append(s)
            ends.append(max(e, s))
        return starts, ends


def plan_windows(starts, ends, text_len, window):
    """seamscope's embed::plan_windows: the fewest windows of at most `window` tokens covering a
    text of len(starts) tokens, all the same length, neighbours overlapping equally; (start, end)
    in characters."""
    t = len(starts)
    window = max(window, 1)
    if t <= window:
        return [(0, text_len)]
    n = -(-t // window)
    spans = []
    for i in range(n):
        first = (i * (t - window) + (n - 1) // 2) // (n - 1)
        spans.append((starts[first], ends[first + window - 1]))
    return spans


def windows_that_fit(counter, text, window):
    """seamscope's embed::windows_that_fit: plan_windows, planned narrower until every window,
    counted again on its own, fits (a window cut inside a word can count a few more tokens)."""
    starts, ends = counter.offsets(text)
    planned = max(window, 1)
    while True:
        spans = plan_windows(starts, ends, len(text), planned)
        if len(spans) == 1 or planned == 1:
            return spans
        longest = max(counter.count(text[s:e]) for s, e in spans)
        if longest <= window:
            return spans
        planned = max(planned - (longest - window), 1)


class WindowedEmbeddings(Embeddings):
    """Another Embeddings embeds each text as seamscope embeds a long one: a text within the
    window as it is, a longer one as the L2-normalised mean of its windows' vectors."""

    def __init__(self, inner, counter, window=WINDOW):
        self.inner = inner
        self.counter = counter
        # The window in tokens of text: the model's, less the special tokens it adds.
        self.window = max(window - counter.special_tokens, 1)
        self.windows = 0

    def embed_documents(self, texts):
        pieces, owners = [], []
        for i, text in enumerate(texts):
            for s, e in windows_that_fit(self.counter, text, self.window):
                pieces.append(text[s:e])
                owners.append(i)
        self.windows += len(pieces)
        vectors = self.inner.embed_documents(pieces) if pieces else []
        sums = [None] * len(texts)
        counts = [0] * len(texts)
        for owner, vector in zip(owners, vectors):
            v = np.asarray(vector, dtype=np.float32)
            sums[owner] = v if sums[owner] is None else sums[owner] + v
            counts[owner] += 1
        out = []
        for v, n in zip(sums, counts):
            if n > 1:
                v = v / np.float32(max(np.linalg.norm(v), 1e-12))
            out.append([float(x) for x in v])
        return out

    def embed_query(self, text):
        # Questions are short: sent as they are.
        return self.inner.embed_query(text)


class SentSpans(SpanProcessor):
    """Counts the spans of each trace, so --phoenix can wait until the server holds them all."""

    def __init__(self):
        self.per_trace = {}
        self.retrievers = {}  # span id -> (parent span id, question id, [(source, start, text)])

    def on_end(self, span):
        trace_id = format(span.context.trace_id, "032x")
        self.per_trace[trace_id] = self.per_trace.get(trace_id, 0) + 1
        attrs = span.attributes or {}
        if attrs.get("openinference.span.kind") == "RETRIEVER":
            docs, i = [], 0
            while f"retrieval.documents.{i}.document.content" in attrs:
                meta = json.loads(attrs.get(f"retrieval.documents.{i}.document.metadata", "{}"))
                docs.append((meta.get("source"), meta.get("start_index"),
                             attrs[f"retrieval.documents.{i}.document.content"]))
                i += 1
            question_id = json.loads(attrs.get("metadata", "{}")).get("question_id")
            parent = format(span.parent.span_id, "016x") if span.parent else None
            self.retrievers[format(span.context.span_id, "016x")] = (parent, question_id, docs)

    def outermost(self):
        """The retriever spans not inside another: what the app sent, by span id."""
        return {sid: r for sid, r in self.retrievers.items() if r[0] not in self.retrievers}


def holds_evidence(corpus, question, docs):
    """Whether the documents hold every character of the question's gold spans that is not white
    space (a splitter drops the white space between its chunks). Gold spans are byte offsets;
    start_index counts characters."""
    text = (corpus / question["doc"]).read_text(encoding="utf-8")
    covered = set()
    for source, start, content in docs:
        if source == question["doc"] and start is not None:
            covered.update(range(start, start + len(content)))
    raw = text.encode("utf-8")
    for span in question["spans"]:
        first = len(raw[: span["start"]].decode("utf-8"))
        last = len(raw[: span["end"]].decode("utf-8"))
        if any(not text[i].isspace() and i not in covered for i in range(first, last)):
            return False
    return True


def annotate_in_phoenix(url, sent, corpus, questions):
    """A code evaluator's verdict on each retrieval, logged to Phoenix as a span annotation, as a
    team with a golden dataset logs one: `retrieval_hit`, score 1 (label "hit") when the app's
    documents hold all of the gold evidence, else 0 ("miss")."""
    import urllib.request

    by_id = {q["id"]: q for q in questions}
    data = []
    for span_id, (_, question_id, docs) in sent.outermost().items():
        if question_id in by_id:
            hit = holds_evidence(corpus, by_id[question_id], docs)
            data.append({"span_id": span_id, "name": "retrieval_hit", "annotator_kind": "CODE",
                         "result": {"label": "hit" if hit else "miss", "score": 1.0 if hit else 0.0}})
    request = urllib.request.Request(
        f"{url.rstrip('/')}/v1/span_annotations?sync=true", method="POST",
        data=json.dumps({"data": data}).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
    return len(data)


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


def seamscope_layout(root, path):
    """The chunks `seamscope chunks CORPUS --json` lists (document, byte span), as Documents with
    the splitter's metadata: `source` relative to the corpus folder and `start_index` in
    characters."""
    with open(path, encoding="utf-8") as f:
        layout = json.load(f)
    texts = {}
    chunks = []
    for c in layout["chunks"]:
        doc = c["doc"]
        if doc not in texts:
            texts[doc] = (root / doc).read_bytes()
        data = texts[doc]
        chunks.append(Document(
            page_content=data[c["start"]:c["end"]].decode("utf-8"),
            metadata={"source": doc, "start_index": len(data[:c["start"]].decode("utf-8"))},
        ))
    if not chunks:
        sys.exit(f"trace-app: {path} lists no chunks")
    return chunks


class TopK(BaseRetriever):
    """The first `k` documents of another retriever (EnsembleRetriever returns every document
    either list found): what the app sends. Its span is the outermost retriever span."""

    inner: BaseRetriever
    k: int

    def _get_relevant_documents(self, query, *, run_manager):
        return self.inner.invoke(query, config={"callbacks": run_manager.get_child()})[: self.k]


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
    ap.add_argument("--chunk-tokens", type=int,
                    help="chunks of at most N tokens of the embedding model (instead of "
                         "--chunk-size characters); needs --model-dir")
    ap.add_argument("--windowed", action="store_true",
                    help="embed a text over the model's window as seamscope does: the normalised "
                         "mean of its even, equally overlapping windows; needs --model-dir")
    ap.add_argument("--hybrid", action="store_true",
                    help="retrieve as a hybrid app does: BM25Retriever and the vector store's "
                         "retriever (k each) fused by EnsembleRetriever (RRF, c = 60), the first k sent")
    ap.add_argument("--seamscope-layout", type=pathlib.Path,
                    help="the app's chunks from `seamscope chunks CORPUS --json` (a file) instead "
                         "of the splitter's; needs --windowed")
    ap.add_argument("--model-dir", type=pathlib.Path,
                    help="the model folder with tokenizer.json (seamscope setup --dry-run --json: "
                         "cpu.model_dir)")
    args = ap.parse_args()
    if (args.chunk_tokens is not None or args.windowed) and args.model_dir is None:
        ap.error("--chunk-tokens and --windowed count the model's tokens: name its folder with "
                 "--model-dir (seamscope setup --dry-run --json: cpu.model_dir)")
    if args.seamscope_layout is not None and not args.windowed:
        ap.error("--seamscope-layout: seamscope's chunks are up to 1,024 tokens, over the model's "
                 "window; embed them as seamscope does with --windowed")
    if args.chunk_tokens is not None and args.chunk_tokens < 1:
        ap.error("--chunk-tokens must be at least 1")
    counter = TokenCounter(args.model_dir) if args.model_dir is not None else None
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
    if args.chunk_tokens is not None:
        splitter = RecursiveCharacterTextSplitter(
            length_function=counter.count, chunk_size=args.chunk_tokens, chunk_overlap=0,
            add_start_index=True,
        )
    else:
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=args.chunk_size, chunk_overlap=0, add_start_index=True
        )
    if args.seamscope_layout is not None:
        chunks = seamscope_layout(args.corpus, args.seamscope_layout)
    else:
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
    if args.windowed:
        embeddings = WindowedEmbeddings(embeddings, counter)
    store = InMemoryVectorStore(embeddings)
    store.add_documents(chunks)
    retriever = store.as_retriever(search_kwargs={"k": args.k})
    if args.hybrid:
        import warnings

        from langchain_classic.retrievers import EnsembleRetriever

        with warnings.catch_warnings():  # "langchain-community is being sunset": still the home of BM25Retriever
            warnings.simplefilter("ignore", DeprecationWarning)
            from langchain_community.retrievers import BM25Retriever

        bm25 = BM25Retriever.from_documents(chunks, k=args.k)
        ensemble = EnsembleRetriever(retrievers=[bm25, retriever], weights=[0.5, 0.5])
        retriever = TopK(inner=ensemble, k=args.k)
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
    annotated = 0
    if args.phoenix:
        wait_for_phoenix(args.phoenix, args.project, sent)
        annotated = annotate_in_phoenix(args.phoenix, sent, args.corpus, questions)
    stored = time.monotonic()

    if args.langsmith_jsonl:
        with open(args.langsmith_jsonl, "wb") as out:
            for root in runs:
                for run in all_runs(root):
                    # What RunTree.post() hands the LangSmith client, serialised as it does.
                    out.write(dumps_json(run._get_dicts_safe()) + b"\n")
    sys.stderr.write(
        f"trace-app: {len(chunks)} chunks indexed in {indexed - started:.1f}s"
        + (f" ({embeddings.windows} windows embedded)" if args.windowed else "")
        + f", {len(questions)} questions answered in {answered - indexed:.1f}s"
        + (f", all {sum(sent.per_trace.values())} spans stored by Phoenix and {annotated} annotated"
           f" {stored - answered:.1f}s later" if args.phoenix else "") + "\n"
    )


if __name__ == "__main__":
    main()
