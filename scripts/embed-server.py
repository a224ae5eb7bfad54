#!/usr/bin/env python3
"""A loopback embedding and rerank server for testing seamscope's `openai:URL` embedder and
`rerank:URL` reranker clients, serving the pinned all-MiniLM-L6-v2 int8 model through ONNX Runtime.

It computes what seamscope's own embedder computes: tokenizer.json with its built-in truncation and
padding switched off and words over 100 characters cut into pieces WordPiece reads (as
seamscope's tokens::bound_long_words does), the model's `last_hidden_state` mean-pooled over the attention mask, then
L2-normalised. A text over the window (256 tokens unless --window) is refused with 400, as a
real service refuses it; it is never cut.

    scripts/embed-server.py [--model-dir DIR] [--port P] [--require-key ENVVAR] [--quiet]
                            [--model-name NAME] [--window TOKENS] [--threads N]

The model folder defaults to where `seamscope setup` installs it (SEAMSCOPE_MODEL_DIR, else
SEAMSCOPE_DATA_DIR/model, else ~/.local/share/seamscope/model); a data folder set in seamscope's
settings file is not read here: `seamscope setup --dry-run --json` names the folder exactly.

The first line on stdout is the port it listens on (useful with --port 0); logs go to stderr.

Endpoints (127.0.0.1 only):
    POST /v1/embeddings, /embeddings   OpenAI shape: {"model", "input": str | [str],
                                       "encoding_format"?: "float" | "base64", "dimensions"?}
    POST /rerank                       TEI shape: {"query", "texts", "raw_scores"?, "return_text"?}
                                       -> [{"index", "score"}], best first
    POST /v1/rerank, /v2/rerank        Cohere / Jina shape: {"model"?, "query", "documents":
                                       [str | {"text"}], "top_n"?, "return_documents"?}
                                       -> {"results": [{"index", "relevance_score"}], ...}
    POST /v1/chat/completions          OpenAI chat shape, answered by an EXTRACTIVE STAND-IN (below)
    GET  /health, /v1/models, /stats   liveness, the served model, counters over all requests
    GET  /faults/<scenario>/stats      counters of one scenario (below)

RERANKING HERE IS NOT A RERANKER. No cross-encoder model is available offline, so a rerank score is
the cosine between the MiniLM embeddings of the query and the text (TEI's `raw_scores: false`, the
default, maps it to 0..1 as (cos + 1) / 2). It tests the protocol and the plumbing of a rerank
client, not the quality of any reranking.

THE CHAT ENDPOINT IS NOT A LANGUAGE MODEL. No LLM is available offline. It answers the request
seamscope's contextual retrieval sends (a `<document title="…">…</document>` and a
`<chunk>…</chunk>` in the last user message) with an extractive context: the document's title,
the last Markdown heading above the chunk, and the document's first sentence. Any other chat
request gets the first sentence of its last message. `usage` counts words (prompt: every
message's; completion: the reply's). It tests the protocol, the cache and the cost counting of a
contextual-retrieval client, and gives the sample's contextual rows reproducible figures; it says
nothing of what a real model would write.

Fault injection. Any endpoint above is also served under `/faults/<scenario>/<spec>/`, e.g.
`POST /faults/retry-429/429:2:0.2/v1/embeddings`. Counters are kept per scenario id, so tests
running in parallel against one server do not disturb each other. A spec is one or more terms
joined by `+`, applied in order to each request of the scenario:

    429:N:RA       the first N requests answer 429 with `Retry-After: RA` (seconds, may be
                   fractional like 0.2; `retry-after-ms` is sent too, as OpenAI does)
    429:N          the same without either header (for the client's own backoff)
    500:N          the first N requests answer 500
    503every:K     every K-th request answers 503
    slow:N:SECS    the first N requests wait SECS before they are answered
    drop:N         the first N requests: the body is read, then the connection is closed with no
                   response at all
    fail400:K      the K-th request to reach it answers 400 (one request of many fails for good)
    echo401        every request answers 401 with a body that echoes the Authorization header
                   it carried, as real services do ("Incorrect API key provided: Bearer sk-…")
    redirect:CODE  every request answers CODE (301, 302, 307, 308) with `Location:` the same
                   endpoint at the server's root, plus `?key=redirect-secret`
    dim:D          vectors have D dimensions instead of 384 (cut, or padded with zeros)
    dimafter:N:D   the first N requests get correct vectors, the later ones D dimensions
    count          no fault: the requests are only counted

"The first N" counts the requests that reach that term: a request answered by an earlier term
(429, 500, 503, drop) does not reach the later ones. So `429:2:0+500:1` answers 429, 429, 500,
then normally. Faults are decided when a request arrives (before authentication and before the
body is checked), so "the first N" are the first N to arrive even under concurrency.

`GET /faults/<scenario>/stats` (and `GET /stats` over everything) returns JSON: requests, status
(count per HTTP status), dropped, inputs (texts in the requests received), inputs_embedded,
tokens (tokens embedded), max_batch (most texts in one request), max_in_flight (most requests of
the scenario being handled at once) and arrivals (seconds since the scenario's first request, for
checking backoff; the first 1,000).

Errors have OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, on every endpoint:
a model name other than the served one answers 404; a missing or wrong `Authorization: Bearer`
key, when started with --require-key ENVVAR (the key is the value of that variable), answers 401;
bad JSON or a bad field answers 400 with a message. An empty input list or an empty string is
refused with 400 (as OpenAI does), and `dimensions` other than 384 too (the model cannot shorten
its vectors).
"""

import argparse
import base64
import hashlib
import json
import math
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# The default window, in tokens: MiniLM was trained on 256 (seamscope's default window too).
WINDOW = 256
# Texts per ONNX Runtime run, as seamscope's embedder batches them.
RUN_BATCH = 16
# The name the server answers to unless --model-name says otherwise.
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
# The largest request body accepted.
MAX_BODY = 64 * 1024 * 1024
# Arrival times kept per scenario.
MAX_ARRIVALS = 1000
SCENARIO_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
# The endpoints served at the root and under a fault prefix.
EMBED_PATHS = {"/v1/embeddings", "/embeddings"}
TEI_RERANK_PATHS = {"/rerank"}
COHERE_RERANK_PATHS = {"/v1/rerank", "/v2/rerank"}
CHAT_PATHS = {"/v1/chat/completions", "/chat/completions"}
DOCUMENT = re.compile(r'<document title="([^"]*)">\n?(.*?)</document>', re.S)
CHUNK = re.compile(r"<chunk>\n?(.*?)</chunk>", re.S)


def default_model_dir() -> Path:
    """Where `seamscope setup` installs the model: SEAMSCOPE_MODEL_DIR, else the data directory's
    `model/` (SEAMSCOPE_DATA_DIR, else the platform's data directory, as `directories` finds it)."""
    if os.environ.get("SEAMSCOPE_MODEL_DIR"):
        return Path(os.environ["SEAMSCOPE_MODEL_DIR"])
    if os.environ.get("SEAMSCOPE_DATA_DIR"):
        return Path(os.environ["SEAMSCOPE_DATA_DIR"]) / "model"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "seamscope" / "model"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "seamscope" / "model"


class TooLong(Exception):
    """A text has more tokens than the window."""

    def __init__(self, index: int, tokens: int, window: int):
        super().__init__(
            f"input[{index}] has {tokens} tokens, more than the model's window of {window}; "
            "split the text before sending it"
        )


def bound_long_words(tokenizer_json: str) -> str:
    """What seamscope's tokens::bound_long_words does: a WordPiece model turns a word over
    max_input_chars_per_word (100) into one [UNK], so a last pre-tokenization step cuts every
    word into pieces of at most that many characters; shorter words are untouched."""
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


class Model:
    """The tokenizer and the ONNX session; `embed` runs one request at a time (a lock), which on
    a small machine is faster than letting requests fight over the cores."""

    def __init__(self, model_dir: Path, threads: int, window: int):
        self.window = window
        self.tokenizer = Tokenizer.from_str(
            bound_long_words((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
        )
        # tokenizer.json ships with truncation and padding at 128 switched on: both off, so a
        # count is the true count and a long text is refused instead of cut.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.pad_id = self.tokenizer.token_to_id("[PAD]") or 0
        onnx = (model_dir / "model.onnx").read_bytes()
        self.sha256 = hashlib.sha256(onnx).hexdigest()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(onnx, options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.lock = threading.Lock()
        self.dim = int(self.embed(["dimension probe"])[0].shape[1])

    def embed(self, texts: list[str]) -> tuple[np.ndarray, list[int]]:
        """Unit vectors for `texts` (float32, one row each) and each text's token count."""
        with self.lock:
            encodings = self.tokenizer.encode_batch(texts)
            counts = [len(e.ids) for e in encodings]
            for i, n in enumerate(counts):
                if n > self.window:
                    raise TooLong(i, n, self.window)
            rows: list[np.ndarray | None] = [None] * len(texts)
            # Similar lengths run together, so little padding is computed.
            order = sorted(range(len(texts)), key=lambda i: counts[i])
            for start in range(0, len(order), RUN_BATCH):
                batch = order[start : start + RUN_BATCH]
                width = max(counts[i] for i in batch)
                ids = np.full((len(batch), width), self.pad_id, dtype=np.int64)
                mask = np.zeros((len(batch), width), dtype=np.int64)
                types = np.zeros((len(batch), width), dtype=np.int64)
                for row, i in enumerate(batch):
                    e = encodings[i]
                    ids[row, : counts[i]] = e.ids
                    mask[row, : counts[i]] = e.attention_mask
                    types[row, : counts[i]] = e.type_ids
                feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
                feed = {k: v for k, v in feed.items() if k in self.inputs}
                (hidden,) = self.session.run(["last_hidden_state"], feed)
                # Mean over the real tokens only, then unit length.
                weights = mask[:, :, None].astype(np.float32)
                summed = (hidden * weights).sum(axis=1)
                pooled = summed / np.maximum(weights.sum(axis=1), 1.0)
                norms = np.linalg.norm(pooled, axis=1, keepdims=True)
                pooled = pooled / np.maximum(norms, 1e-12)
                for row, i in enumerate(batch):
                    rows[i] = pooled[row]
            return np.vstack(rows).astype(np.float32), counts


class ApiError(Exception):
    """An error answered with OpenAI's error shape."""

    def __init__(self, status: int, message: str, kind: str, code: str | None = None, param=None):
        super().__init__(message)
        self.status, self.kind, self.code, self.param = status, kind, code, param

    def body(self) -> dict:
        error = {"message": str(self), "type": self.kind, "param": self.param, "code": self.code}
        return {"error": error}


def bad_request(message: str, param: str | None = None) -> ApiError:
    return ApiError(400, message, "invalid_request_error", None, param)


# ---- fault specs ------------------------------------------------------------------------------

# Each term: its name, the number of numeric arguments, and which are integers.
FAULT_TERMS = {
    "429": (2, (True, False)),
    "500": (1, (True,)),
    "503every": (1, (True,)),
    "slow": (2, (True, False)),
    "drop": (1, (True,)),
    "fail400": (1, (True,)),
    "echo401": (0, ()),
    "redirect": (1, (True,)),
    "dim": (1, (True,)),
    "dimafter": (2, (True, True)),
    "count": (0, ()),
}


def parse_spec(spec: str) -> list[tuple[str, list[float], str]]:
    """`429:2:0.2+drop:1` -> [("429", [2, 0.2], "429:2:0.2"), ("drop", [1], "drop:1")]."""
    terms = []
    for text in spec.split("+"):
        name, *args = text.split(":")
        if name not in FAULT_TERMS:
            known = ", ".join(FAULT_TERMS)
            raise bad_request(f"unknown fault {text!r} in {spec!r}: one of {known}")
        arity, integers = FAULT_TERMS[name]
        # 429 may leave out RA: then no Retry-After is sent (the client's own backoff is tested).
        if len(args) != arity and not (name == "429" and len(args) == 1):
            raise bad_request(f"fault {text!r} takes {arity} argument(s) after {name!r}")
        values: list[float] = []
        for arg, integer in zip(args, integers):
            try:
                value = float(int(arg)) if integer else float(arg)
            except ValueError:
                raise bad_request(f"fault {text!r}: {arg!r} is not a number") from None
            if not math.isfinite(value) or value < 0 or (
                name in ("503every", "dim", "fail400") and value < 1
            ) or (name == "redirect" and int(value) not in (301, 302, 303, 307, 308)):
                raise bad_request(f"fault {text!r}: {arg!r} is out of range")
            values.append(value)
        terms.append((name, values, text))
    return terms


class Counters:
    """Request counters of one scenario (or of the whole server). Guarded by `Stats.lock`."""

    def __init__(self):
        self.requests = 0
        self.status: dict[str, int] = {}
        self.dropped = 0
        self.inputs = 0
        self.inputs_embedded = 0
        self.tokens = 0
        self.max_batch = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.first_at: float | None = None
        self.arrivals: list[float] = []
        # Requests that reached each fault term so far, by the term's place and text.
        self.reached: dict[str, int] = {}

    def as_json(self) -> dict:
        return {
            "requests": self.requests,
            "status": dict(sorted(self.status.items())),
            "dropped": self.dropped,
            "inputs": self.inputs,
            "inputs_embedded": self.inputs_embedded,
            "tokens": self.tokens,
            "max_batch": self.max_batch,
            "max_in_flight": self.max_in_flight,
            "arrivals": self.arrivals,
        }


class Plan:
    """What the faults decided for one request."""

    def __init__(self):
        self.delay = 0.0
        self.drop = False
        self.error: ApiError | None = None
        self.headers: dict[str, str] = {}
        self.dim: int | None = None


class Stats:
    """All counters, thread-safe: the server's and each scenario's."""

    def __init__(self):
        self.lock = threading.Lock()
        self.total = Counters()
        self.scenarios: dict[str, Counters] = {}

    def _each(self, scenario: str | None):
        yield self.total
        if scenario is not None:
            yield self.scenarios.setdefault(scenario, Counters())

    def arrive(self, scenario: str | None, inputs: int, spec, request=None) -> Plan:
        """Count a request in, and decide its faults (atomically, in arrival order)."""
        plan = Plan()
        with self.lock:
            now = time.monotonic()
            for c in self._each(scenario):
                c.requests += 1
                c.inputs += inputs
                c.max_batch = max(c.max_batch, inputs)
                c.in_flight += 1
                c.max_in_flight = max(c.max_in_flight, c.in_flight)
                if c.first_at is None:
                    c.first_at = now
                if len(c.arrivals) < MAX_ARRIVALS:
                    c.arrivals.append(round(now - c.first_at, 4))
            if scenario is None:
                return plan
            counters = self.scenarios[scenario]
            for place, (name, args, text) in enumerate(spec):
                key = f"{place}:{text}"
                counters.reached[key] = k = counters.reached.get(key, 0) + 1
                first_n = k <= args[0] if args else False
                label = f"injected fault {text} (request {k} to reach it in scenario {scenario})"
                if name == "slow" and first_n:
                    plan.delay += args[1]
                elif name == "drop" and first_n:
                    plan.drop = True
                elif name == "429" and first_n:
                    plan.error = ApiError(429, label, "rate_limit_error", "rate_limit_exceeded")
                    if len(args) == 2:  # as written in the spec: "0.2" stays "0.2"
                        seconds = text.split(":")[2]
                        plan.headers = {
                            "Retry-After": seconds,
                            "retry-after-ms": str(round(float(seconds) * 1000)),
                        }
                elif name == "500" and first_n:
                    plan.error = ApiError(500, label, "server_error", "internal_error")
                elif name == "503every" and k % int(args[0]) == 0:
                    plan.error = ApiError(503, label, "server_error", "overloaded")
                elif name == "fail400" and k == int(args[0]):
                    plan.error = ApiError(400, label, "invalid_request_error", "injected")
                elif name == "echo401" and request is not None:
                    sent = request.headers.get("Authorization", "(none)")
                    plan.error = ApiError(401, f"Incorrect API key provided: {sent}. You can "
                                          "find your API key at https://example.invalid/keys.",
                                          "invalid_request_error", "invalid_api_key")
                elif name == "redirect" and request is not None:
                    endpoint = request.path.split("/", 4)[-1]
                    plan.error = ApiError(int(args[0]), label, "redirect", "moved")
                    plan.headers = {"Location": f"http://127.0.0.1:{request.server.server_port}"
                                                f"/{endpoint}?key=redirect-secret"}
                elif name == "dim":
                    plan.dim = int(args[0])
                elif name == "dimafter" and not first_n:
                    plan.dim = int(args[1])
                if plan.drop or plan.error:
                    break
        return plan

    def leave(self, scenario: str | None, status: int | None, embedded: int = 0, tokens: int = 0):
        """Count a request out: its status (None: dropped) and what was embedded for it."""
        with self.lock:
            for c in self._each(scenario):
                c.in_flight -= 1
                if status is None:
                    c.dropped += 1
                else:
                    c.status[str(status)] = c.status.get(str(status), 0) + 1
                c.inputs_embedded += embedded
                c.tokens += tokens

    def snapshot(self, scenario: str | None) -> dict | None:
        with self.lock:
            if scenario is None:
                return dict(self.total.as_json(), scenarios=len(self.scenarios))
            counters = self.scenarios.get(scenario)
            return counters.as_json() if counters else None


# ---- the endpoints ----------------------------------------------------------------------------


def texts_of(value, field: str) -> list[str]:
    """A str or a non-empty list of non-empty str, as a list."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise bad_request(f"'{field}' must be a string or a non-empty list of strings", field)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise bad_request(
                f"'{field}[{i}]' is not a string (token arrays are not supported here)", field
            )
        if not item:
            raise bad_request(f"'{field}[{i}]' is an empty string", field)
    return items


def embed_or_400(model: Model, texts: list[str], field: str):
    try:
        return model.embed(texts)
    except TooLong as e:
        raise ApiError(400, str(e).replace("input", field, 1), "invalid_request_error",
                       "context_length_exceeded", field) from None


class App:
    """The served model and its name, the counters and the key."""

    def __init__(self, model: Model, name: str, key: str | None):
        self.model, self.name, self.key = model, name, key
        self.stats = Stats()

    def check_model(self, request: dict):
        asked = request.get("model")
        if asked is not None and asked != self.name:
            raise ApiError(404, f"model {asked!r} is not served here; this server serves "
                           f"{self.name!r}", "invalid_request_error", "model_not_found", "model")

    def embeddings(self, request: dict, dim: int | None) -> tuple[dict, int, int]:
        self.check_model(request)
        texts = texts_of(request.get("input"), "input")
        encoding = request.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            raise bad_request("'encoding_format' must be 'float' or 'base64'", "encoding_format")
        dimensions = request.get("dimensions")
        if dimensions is not None and dimensions != self.model.dim:
            raise bad_request(f"this model's vectors have {self.model.dim} dimensions and cannot "
                              f"be shortened; 'dimensions' {dimensions!r} is not supported",
                              "dimensions")
        vectors, counts = embed_or_400(self.model, texts, "input")
        if dim is not None:  # an injected wrong dimension: cut, or pad with zeros
            vectors = np.pad(vectors[:, :dim], ((0, 0), (0, max(0, dim - vectors.shape[1]))))
        data = []
        for i, v in enumerate(vectors.astype("<f4")):
            if encoding == "base64":
                embedding = base64.b64encode(v.tobytes()).decode()
            else:
                embedding = v.tolist()
            data.append({"object": "embedding", "index": i, "embedding": embedding})
        tokens = sum(counts)
        body = {"object": "list", "data": data, "model": self.name,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}
        return body, len(texts), tokens

    def cosines(self, query, texts: list[str], field: str) -> tuple[np.ndarray, int]:
        if not isinstance(query, str) or not query:
            raise bad_request("'query' must be a non-empty string", "query")
        vectors, counts = embed_or_400(self.model, [query, *texts], field)
        return vectors[1:] @ vectors[0], sum(counts)

    def tei_rerank(self, request: dict) -> tuple[list, int, int]:
        texts = texts_of(request.get("texts"), "texts")
        scores, tokens = self.cosines(request.get("query"), texts, "texts")
        if not request.get("raw_scores", False):
            scores = (scores + 1.0) / 2.0
        ranked = sorted(range(len(texts)), key=lambda i: -scores[i])
        body = [{"index": i, "score": float(scores[i])} for i in ranked]
        if request.get("return_text"):
            for entry in body:
                entry["text"] = texts[entry["index"]]
        return body, len(texts), tokens

    def cohere_rerank(self, request: dict) -> tuple[dict, int, int]:
        self.check_model(request)
        documents = request.get("documents")
        if isinstance(documents, list):
            documents = [d.get("text") if isinstance(d, dict) else d for d in documents]
        texts = texts_of(documents, "documents")
        top_n = request.get("top_n", len(texts))
        if not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1:
            raise bad_request("'top_n' must be a positive integer", "top_n")
        scores, tokens = self.cosines(request.get("query"), texts, "documents")
        ranked = sorted(range(len(texts)), key=lambda i: -scores[i])[:top_n]
        results = [{"index": i, "relevance_score": float(scores[i])} for i in ranked]
        if request.get("return_documents"):
            for entry in results:
                entry["document"] = {"text": texts[entry["index"]]}
        body = {"results": results, "model": self.name, "usage": {"total_tokens": tokens}}
        return body, len(texts), tokens


def first_sentence(text: str) -> str:
    """The first sentence of the first line of `text` that is not a heading or blank."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            match = re.match(r"(.+?[.!?])(\s|$)", line)
            return match.group(1) if match else line
    return ""


def extractive_context(content: str) -> str:
    """The stand-in's context for one chat message (see the module's doc)."""
    document, chunk = DOCUMENT.search(content), CHUNK.search(content)
    if not document or not chunk:
        return first_sentence(content)
    title, text = document.group(1), document.group(2)
    at = text.find(chunk.group(1).strip()[:200])
    above = text[:at] if at >= 0 else ""
    headings = [line.lstrip("#").strip() for line in above.splitlines() if line.startswith("#")]
    parts = [f"From {title}" + (f", section {headings[-1]}" if headings else "") + "."]
    lead = first_sentence(text)
    if lead:
        parts.append(lead)
    return " ".join(parts)


def chat(request: dict) -> tuple[dict, int]:
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages or not all(
        isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages
    ):
        raise bad_request("'messages' must be a non-empty list of {role, content} objects",
                          "messages")
    reply = extractive_context(messages[-1]["content"])
    prompt = sum(len(m["content"].split()) for m in messages)
    completion = len(reply.split())
    body = {"object": "chat.completion", "model": request.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}}
    return body, prompt


def request_inputs(request) -> int:
    """How many texts a request body carries, for the counters (0 when it is not understood)."""
    if not isinstance(request, dict):
        return 0
    if isinstance(request.get("messages"), list):
        return 1
    for field in ("input", "texts", "documents"):
        value = request.get(field)
        if isinstance(value, str):
            return 1
        if isinstance(value, list):
            return len(value)
    return 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as clients with a connection pool expect
    server_version = "seamscope-embed-server/1"
    timeout = 300  # a stalled client does not hold a thread for ever
    app: App  # set on the subclass made in main()
    quiet = False

    def log_message(self, format, *args):
        if not self.quiet:
            sys.stderr.write(f"embed-server: {self.address_string()} {format % args}\n")

    def send_json(self, status: int, body, headers: dict[str, str] | None = None):
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. timed out on a slow fault)

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
                if len(body) > MAX_BODY:
                    raise ApiError(413, "request body too large", "invalid_request_error")
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ApiError(413, "request body too large", "invalid_request_error")
        return self.rfile.read(length)

    def route(self) -> tuple[str | None, str | None, str]:
        """(scenario, spec, endpoint) of the request's path; no scenario outside /faults/."""
        path = self.path.split("?", 1)[0]
        if not path.startswith("/faults/"):
            return None, None, path
        parts = path.split("/", 4)  # "", "faults", scenario, spec, endpoint
        if len(parts) < 4 or not SCENARIO_ID.fullmatch(parts[2]):
            raise bad_request("fault paths are /faults/<scenario>/<spec>/<endpoint>, the "
                              "scenario made of letters, digits, '.', '_' and '-'")
        if len(parts) == 4:
            return parts[2], None, "/" + parts[3]
        return parts[2], parts[3], "/" + parts[4]

    def do_GET(self):
        try:
            scenario, spec, endpoint = self.route()
        except ApiError as e:
            return self.send_json(e.status, e.body())
        app = self.app
        if scenario is not None and spec is None and endpoint == "/stats":
            counters = app.stats.snapshot(scenario)
            if counters is None:
                return self.send_json(404, ApiError(404, f"no request has reached scenario "
                                                    f"{scenario!r} yet", "not_found").body())
            return self.send_json(200, counters)
        if scenario is None and endpoint == "/health":
            return self.send_json(200, {"status": "ok", "model": app.name, "dim": app.model.dim,
                                        "window": app.model.window,
                                        "model_sha256": app.model.sha256})
        if scenario is None and endpoint == "/stats":
            return self.send_json(200, app.stats.snapshot(None))
        if scenario is None and endpoint == "/v1/models":
            return self.send_json(200, {"object": "list", "data": [
                {"id": app.name, "object": "model", "owned_by": "seamscope-test"}]})
        self.send_json(404, ApiError(404, f"no GET {endpoint} here", "not_found").body())

    def do_POST(self):
        app = self.app
        try:
            scenario, spec, endpoint = self.route()
            terms = parse_spec(spec) if spec is not None else []
            body = self.read_body()
        except ApiError as e:
            self.close_connection = True  # the body may be unread
            return self.send_json(e.status, e.body())
        except ValueError:
            self.close_connection = True
            return self.send_json(400, bad_request("unreadable request body framing").body())
        if endpoint not in EMBED_PATHS | TEI_RERANK_PATHS | COHERE_RERANK_PATHS | CHAT_PATHS:
            missing = ApiError(404, f"no POST {endpoint} here", "not_found")
            return self.send_json(404, missing.body())
        try:
            request = json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            request = e
        plan = app.stats.arrive(scenario, request_inputs(request), terms, self)
        # Counted before the answer is written: a client that reads the stats right after its
        # last answer must see that request counted (a threaded server would otherwise race it).
        left = False

        def answer(status, body, headers=None, embedded=0, tokens=0):
            nonlocal left
            if not left:
                left = True
                app.stats.leave(scenario, status, embedded, tokens)
            self.send_json(status, body, headers)

        try:
            if plan.delay:
                time.sleep(plan.delay)
            if plan.drop:
                # The body is read: close without a byte of response, as a connection lost
                # mid-request looks to the client.
                left = True
                app.stats.leave(scenario, None, 0, 0)
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            try:
                if plan.error:
                    raise plan.error
                self.check_key()
                if isinstance(request, Exception):
                    raise bad_request(f"the body is not valid JSON: {request}")
                if not isinstance(request, dict):
                    raise bad_request("the body must be a JSON object")
                if endpoint in EMBED_PATHS:
                    body, embedded, tokens = app.embeddings(request, plan.dim)
                elif endpoint in CHAT_PATHS:
                    body, tokens = chat(request)
                    embedded = 0
                elif endpoint in TEI_RERANK_PATHS:
                    body, embedded, tokens = app.tei_rerank(request)
                else:
                    body, embedded, tokens = app.cohere_rerank(request)
                answer(200, body, embedded=embedded, tokens=tokens)
            except ApiError as e:
                answer(e.status, e.body(), plan.headers if e is plan.error else None)
        except Exception as e:  # never let one request take the server down
            if left:  # the answer was counted and (partly) written: nothing more to send
                self.log_error("after the answer: %r", e)
                return
            answer(500, ApiError(500, f"internal error: {e!r}", "server_error").body())
        finally:
            if not left:
                app.stats.leave(scenario, None, 0, 0)

    def check_key(self):
        if self.app.key is None:
            return
        given = self.headers.get("Authorization", "")
        if not given.startswith("Bearer ") or given[len("Bearer "):].strip() != self.app.key:
            raise ApiError(401, "missing or invalid API key: send 'Authorization: Bearer <key>'",
                           "invalid_request_error", "invalid_api_key")


class LoopbackServer(ThreadingHTTPServer):
    """A thread per connection; threads do not keep the process alive at exit."""

    daemon_threads = True
    # socketserver's backlog of 5 would drop connections of a client that opens many at once on
    # a busy machine (each dropped SYN retried a second later): a real service's is far deeper.
    request_queue_size = 128


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, default=None,
                        help="the model folder (default: where `seamscope setup` installs it)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--model-name", default=DEFAULT_MODEL_NAME,
                        help=f"the model name requests must use (default {DEFAULT_MODEL_NAME})")
    parser.add_argument("--require-key", metavar="ENVVAR",
                        help="require 'Authorization: Bearer <the value of ENVVAR>'")
    parser.add_argument("--window", type=int, default=WINDOW,
                        help=f"the most tokens a text may have (default {WINDOW})")
    parser.add_argument("--threads", type=int, default=0,
                        help="ONNX Runtime threads (default 0: one per core)")
    parser.add_argument("--quiet", action="store_true", help="no line per request on stderr")
    args = parser.parse_args()

    model_dir = args.model_dir or default_model_dir()
    missing = [f for f in ("model.onnx", "tokenizer.json") if not (model_dir / f).is_file()]
    if missing:
        sys.exit(f"embed-server: {model_dir} has no {' or '.join(missing)}: run `seamscope setup` "
                 "or give --model-dir")
    key = None
    if args.require_key:
        key = os.environ.get(args.require_key)
        if not key:
            sys.exit(f"embed-server: --require-key {args.require_key}: that variable is not set")
    app = App(Model(model_dir, args.threads, args.window), args.model_name, key)
    handler = type("BoundHandler", (Handler,), {"app": app, "quiet": args.quiet})
    server = LoopbackServer(("127.0.0.1", args.port), handler)
    print(server.server_address[1], flush=True)
    sys.stderr.write(f"embed-server: serving {args.model_name} ({model_dir}, {app.model.dim} "
                     f"dimensions) on http://127.0.0.1:{server.server_address[1]}\n")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
