"""scripts/embed-server.py, the loopback OpenAI-compatible service the openai: embedder's and
rerank: client's tests run against: its vectors against the ones seamscope itself computes, its
wire formats, and each injected fault doing what the script's docstring says."""

import base64
import concurrent.futures
import http.client
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "scripts" / "embed-server.py"
MODEL = "all-MiniLM-L6-v2"
KEY = "sk-test-embed-server"
DIM = 384
# Same model, same pooling: only float rounding (and batch padding) may differ.
MIN_COSINE = 0.999


class Server:
    """A running embed-server: its port, and requests to it."""

    def __init__(self, port: int):
        self.port = port

    def call(self, method, path, body=None, key=KEY, timeout=60.0, raw=None):
        """(status, headers, JSON body or None) of one request, on a connection of its own."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"}
            if key is not None:
                headers["Authorization"] = f"Bearer {key}"
            data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
            conn.request(method, path, data, headers)
            resp = conn.getresponse()
            payload = resp.read()
            return resp.status, resp.headers, json.loads(payload) if payload else None
        finally:
            conn.close()

    def post(self, path, body, **kw):
        return self.call("POST", path, body, **kw)

    def get(self, path):
        return self.call("GET", path)

    def embed(self, texts, path="/v1/embeddings", **extra):
        status, _, body = self.post(path, {"model": MODEL, "input": texts, **extra})
        assert status == 200, body
        return np.array([d["embedding"] for d in body["data"]], dtype=np.float32)


@pytest.fixture(scope="module")
def server(seamscope, tmp_path_factory):
    """The server on a free port, serving the model `seamscope setup` installed, with a key."""
    model_dir = json.loads(seamscope("setup", "--dry-run", "--json"))["cpu"]["model_dir"]
    log = tmp_path_factory.mktemp("embed-server") / "server.log"
    env = dict(os.environ, SEAMSCOPE_TEST_EMBED_KEY=KEY)
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--port", "0", "--model-dir", model_dir, "--quiet",
             "--require-key", "SEAMSCOPE_TEST_EMBED_KEY"],
            stdout=subprocess.PIPE, stderr=err, env=env, text=True,
        )
    try:
        first = proc.stdout.readline()  # the port, once the model is loaded
        if not first.strip().isdigit():
            proc.kill()
            pytest.fail(f"embed-server did not start: {first!r} {log.read_text()}")
        yield Server(int(first))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def scenario(name: str) -> str:
    """A scenario id no other test (or run) shares."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def text_of_tokens(n: int) -> str:
    """A text of exactly n tokens: [CLS], n - 2 words of one token each, [SEP]."""
    words = ["alpha", "beta", "cache", "word"]
    return " ".join(words[i % 4] for i in range(n - 2))


# ---- the vectors ---------------------------------------------------------------------------------


def test_vectors_match_seamscope_question_vectors(server, questions, reports):
    """Each sample question's vector from `seamscope query --json`, against the server's."""
    expected = np.array([r["question_vector"] for r in reports], dtype=np.float32)
    assert expected.shape == (len(questions), DIM) and len(questions) >= 2
    got = server.embed(questions)
    assert got.shape == expected.shape
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(got * expected, axis=1) / np.linalg.norm(expected, axis=1)
    assert cosines.min() >= MIN_COSINE, cosines
    # One at a time (no batch padding), through the other path: the same vectors.
    for question, vector in zip(questions[:2], got):
        single = server.embed(question, path="/embeddings")[0]
        assert float(single @ vector) >= 0.99999


def test_vectors_match_seamscope_chunk_vectors(server, seamscope, tmp_path):
    """Texts of up to 200 tokens, embedded as one batch: a small corpus cut into 200-token chunks
    (one window each), exported, against the server's vectors for each chunk's search text."""
    corpus, bundle = tmp_path / "corpus", tmp_path / "bundle"
    corpus.mkdir()
    text = (REPO / "sample-corpus" / "order-service-design.md").read_text(encoding="utf-8")
    (corpus / "doc.md").write_text(text[:6000], encoding="utf-8")
    seamscope("export", str(corpus), "--out", str(bundle), "--chunk-tokens", "200")
    with open(bundle / "chunks.jsonl", encoding="utf-8") as f:
        chunks = [json.loads(line) for line in f if line.strip()]
    expected = np.load(bundle / "chunk_vectors.npy")
    assert len(chunks) == len(expected) >= 5
    # `search_text`, where present, is what was embedded (a heading prefix); else `text`.
    got = server.embed([c.get("search_text") or c["text"] for c in chunks])
    cosines = np.sum(got * expected, axis=1)
    assert cosines.min() >= MIN_COSINE, cosines


def test_vectors_are_distinct_and_order_kept(server):
    texts = ["the cache evicts the oldest route first", "quarterly revenue rose", "x"]
    got = server.embed(texts)
    again = server.embed(texts[::-1])[::-1]
    assert np.allclose(got, again, atol=1e-5), "each text keeps its index"
    sims = got @ got.T
    assert sims[0, 1] < 0.9 and sims[0, 2] < 0.9


def test_base64_is_little_endian_f32_of_the_same_vectors(server):
    texts = ["seams link two chunks", "a fired seam brings both"]
    floats = server.embed(texts)
    status, _, body = server.post(
        "/v1/embeddings", {"model": MODEL, "input": texts, "encoding_format": "base64"}
    )
    assert status == 200
    decoded = np.array(
        [np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4") for d in body["data"]]
    )
    assert decoded.shape == (2, DIM)
    assert np.array_equal(decoded, floats)


def test_response_shape_and_usage(server):
    status, _, body = server.post("/v1/embeddings", {"model": MODEL, "input": "one text"})
    assert status == 200
    assert body["object"] == "list" and body["model"] == MODEL
    assert [(d["object"], d["index"]) for d in body["data"]] == [("embedding", 0)]
    # [CLS] one text [SEP]
    assert body["usage"] == {"prompt_tokens": 4, "total_tokens": 4}
    ok, _, _ = server.post("/v1/embeddings", {"model": MODEL, "input": "x", "dimensions": DIM})
    assert ok == 200


def test_the_window_is_enforced_not_truncated(server):
    # 256 tokens pass whole (tokenizer.json's own truncation at 128 is off), 257 are refused.
    at_window = {"model": MODEL, "input": [text_of_tokens(256)]}
    status, _, body = server.post("/v1/embeddings", at_window)
    assert status == 200 and body["usage"]["prompt_tokens"] == 256
    over = text_of_tokens(257)
    status, _, body = server.post("/v1/embeddings", {"model": MODEL, "input": ["ok", over]})
    assert status == 400
    assert body["error"]["code"] == "context_length_exceeded"
    assert "input[1]" in body["error"]["message"]


# ---- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, status, code",
    [
        ({"model": "text-embedding-3-small", "input": "x"}, 404, "model_not_found"),
        ({"model": MODEL, "input": []}, 400, None),
        ({"model": MODEL, "input": ""}, 400, None),
        ({"model": MODEL, "input": [1, 2, 3]}, 400, None),
        ({"model": MODEL}, 400, None),
        ({"model": MODEL, "input": "x", "encoding_format": "int8"}, 400, None),
        ({"model": MODEL, "input": "x", "dimensions": 128}, 400, None),
        (["not", "an", "object"], 400, None),
    ],
)
def test_bad_requests_get_openai_shaped_errors(server, body, status, code):
    got, _, answer = server.post("/v1/embeddings", body)
    assert got == status
    assert set(answer["error"]) == {"message", "type", "param", "code"}
    assert answer["error"]["message"]
    assert answer["error"]["code"] == code


def test_bad_json_is_a_400_and_the_server_lives_on(server):
    status, _, body = server.post("/v1/embeddings", None, raw=b'{"model": "x", "input": [')
    assert status == 400 and "not valid JSON" in body["error"]["message"]
    assert server.get("/health")[0] == 200


def test_the_key_is_required(server):
    for key in (None, "sk-wrong"):
        status, _, body = server.post("/v1/embeddings", {"model": MODEL, "input": "x"}, key=key)
        assert status == 401 and body["error"]["code"] == "invalid_api_key"
    status, _, _ = server.post("/rerank", {"query": "q", "texts": ["t"]}, key=None)
    assert status == 401


def test_unknown_paths_and_bad_fault_specs(server):
    assert server.post("/v1/embedding", {"input": "x"})[0] == 404
    status, _, body = server.post("/faults/s/500:1:2/v1/embeddings", {"input": "x"})
    assert status == 400 and "500" in body["error"]["message"]
    status, _, body = server.post("/faults/s/slow:1:nan/v1/embeddings", {"input": "x"})
    assert status == 400 and "slow" in body["error"]["message"]
    status, _, body = server.post("/faults/s/explode:1/v1/embeddings", {"input": "x"})
    assert status == 400 and "unknown fault" in body["error"]["message"]
    assert server.get("/faults/never-seen/stats")[0] == 404


# ---- rerank --------------------------------------------------------------------------------------

RERANK_QUERY = "how does the route cache evict entries"
RERANK_TEXTS = [
    "Quarterly revenue rose by four percent.",
    "The route cache evicts the least recently used entry when it is full.",
    "Failover promotes the replica after thirty seconds.",
]


def test_tei_rerank_is_cosine_sorted(server):
    vectors = server.embed([RERANK_QUERY, *RERANK_TEXTS])
    cosines = vectors[1:] @ vectors[0]
    status, _, body = server.post("/rerank", {"query": RERANK_QUERY, "texts": RERANK_TEXTS,
                                              "raw_scores": True})
    assert status == 200
    assert [e["index"] for e in body] == list(np.argsort(-cosines))
    assert np.allclose([e["score"] for e in body], np.sort(cosines)[::-1], atol=1e-5)
    status, _, body = server.post("/rerank", {"query": RERANK_QUERY, "texts": RERANK_TEXTS,
                                              "return_text": True})
    assert body[0]["index"] == 1 and body[0]["text"] == RERANK_TEXTS[1]
    assert all(0.0 <= e["score"] <= 1.0 for e in body)


def test_cohere_rerank_shape_and_top_n(server):
    documents = [RERANK_TEXTS[0], {"text": RERANK_TEXTS[1]}, RERANK_TEXTS[2]]
    status, _, body = server.post(
        "/v1/rerank", {"model": MODEL, "query": RERANK_QUERY, "documents": documents, "top_n": 2}
    )
    assert status == 200
    results = body["results"]
    assert len(results) == 2 and results[0]["index"] == 1
    assert results[0]["relevance_score"] >= results[1]["relevance_score"]
    assert server.post("/v1/rerank", {"model": "rerank-v3", "query": "q",
                                      "documents": ["d"]})[0] == 404
    assert server.post("/v1/rerank", {"query": "q", "documents": []})[0] == 400


# ---- faults --------------------------------------------------------------------------------------


def test_429_with_retry_after_then_success(server):
    sid = scenario("rate")
    path = f"/faults/{sid}/429:2:0.2/v1/embeddings"
    for _ in range(2):
        status, headers, body = server.post(path, {"model": MODEL, "input": ["a", "b"]})
        assert status == 429
        assert headers["Retry-After"] == "0.2" and headers["retry-after-ms"] == "200"
        assert body["error"]["code"] == "rate_limit_exceeded"
    status, _, body = server.post(path, {"model": MODEL, "input": ["a", "b"]})
    assert status == 200 and len(body["data"]) == 2
    _, _, stats = server.get(f"/faults/{sid}/stats")
    assert stats["requests"] == 3
    assert stats["status"] == {"200": 1, "429": 2}
    assert stats["arrivals"][0] == 0.0 and len(stats["arrivals"]) == 3
    assert stats["inputs"] == 6 and stats["inputs_embedded"] == 2
    assert stats["tokens"] == body["usage"]["total_tokens"]


def test_429_without_retry_after(server):
    path = f"/faults/{scenario('bare429')}/429:1/v1/embeddings"
    status, headers, _ = server.post(path, {"model": MODEL, "input": "x"})
    assert status == 429 and "Retry-After" not in headers and "retry-after-ms" not in headers
    assert server.post(path, {"model": MODEL, "input": "x"})[0] == 200


def test_drop_closes_without_a_response(server):
    sid = scenario("drop")
    path = f"/faults/{sid}/drop:1/v1/embeddings"
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        server.post(path, {"model": MODEL, "input": ["dropped"]})
    assert server.post(path, {"model": MODEL, "input": ["kept"]})[0] == 200
    _, _, stats = server.get(f"/faults/{sid}/stats")
    assert stats["dropped"] == 1 and stats["status"] == {"200": 1}
    assert stats["inputs"] == 2 and stats["inputs_embedded"] == 1


def test_dim_and_dimafter_give_wrong_dimensions(server):
    sid = scenario("dim")
    short = server.embed(["x", "y"], path=f"/faults/{sid}/dim:100/v1/embeddings")
    assert short.shape == (2, 100)
    long = server.embed(["x"], path=f"/faults/{sid}/dim:500/v1/embeddings")
    assert long.shape == (1, 500) and not long[0, DIM:].any()
    sid = scenario("dimafter")
    path = f"/faults/{sid}/dimafter:2:383/v1/embeddings"
    assert [server.embed(["x"], path=path).shape[1] for _ in range(4)] == [DIM, DIM, 383, 383]
    status, _, body = server.post(
        path, {"model": MODEL, "input": ["x"], "encoding_format": "base64"}
    )
    assert len(base64.b64decode(body["data"][0]["embedding"])) == 383 * 4


def test_500_503every_and_terms_in_order(server):
    sid = scenario("chain")
    path = f"/faults/{sid}/429:1:0+500:1+503every:2/v1/embeddings"
    statuses = [server.post(path, {"model": MODEL, "input": "x"})[0] for _ in range(6)]
    # 429 first; the 500 term is reached by the second; the 503every term counts requests
    # from the third on: its second and fourth (requests 4 and 6) answer 503.
    assert statuses == [429, 500, 200, 503, 200, 503]
    _, _, stats = server.get(f"/faults/{sid}/stats")
    assert stats["status"] == {"200": 2, "429": 1, "500": 1, "503": 2}


def test_slow_outlasts_a_client_timeout_and_concurrency_is_counted(server):
    sid = scenario("slow")
    path = f"/faults/{sid}/slow:1:3/v1/embeddings"
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        server.post(path, {"model": MODEL, "input": "x"}, timeout=0.3)
    assert time.monotonic() - started < 2.5, "the client gave up before the server answered"
    assert server.post(path, {"model": MODEL, "input": "x"}, timeout=5)[0] == 200
    sid = scenario("parallel")
    path = f"/faults/{sid}/slow:4:0.5/v1/embeddings"
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(lambda _: server.post(path, {"model": MODEL, "input": "x"})[0],
                                 range(4)))
    assert statuses == [200] * 4
    _, _, stats = server.get(f"/faults/{sid}/stats")
    assert stats["max_in_flight"] >= 2 and stats["requests"] == 4


def test_scenarios_do_not_share_counters_and_global_stats(server):
    a, b = scenario("a"), scenario("b")
    assert server.post(f"/faults/{a}/500:1/v1/embeddings", {"input": "x"})[0] == 500
    assert server.post(f"/faults/{b}/500:1/embeddings", {"input": "x"})[0] == 500
    assert server.post(f"/faults/{a}/500:1/rerank", {"query": "q", "texts": ["t"]})[0] == 200
    assert server.get(f"/faults/{a}/stats")[2]["status"] == {"200": 1, "500": 1}
    status, _, total = server.get("/stats")
    assert status == 200 and total["scenarios"] >= 2 and total["requests"] >= 3
    _, _, health = server.get("/health")
    assert health["dim"] == DIM and health["model"] == MODEL and health["window"] == 256


def test_runtime_pin_matches_what_setup_installs():
    """scripts/test-requirements.txt pins the ONNX Runtime that `seamscope setup` installs."""
    install = (REPO / "src" / "embed" / "install.rs").read_text(encoding="utf-8")
    setup_version = re.search(r'RUNTIME_VERSION: &str = "([^"]+)"', install).group(1)
    pins = (REPO / "scripts" / "test-requirements.txt").read_text(encoding="utf-8")
    assert f"onnxruntime=={setup_version}\n" in pins
    import onnxruntime

    assert onnxruntime.__version__ == setup_version
