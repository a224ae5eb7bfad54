"""What the store tests share: the real stores on loopback (Postgres + pgvector and Chroma from
scripts/test's servers, Milvus Lite in a local file), the question vectors seamscope computed,
seamscope's own keyword lists as retrievers, and how one store's answers compare with
`seamscope query --json`."""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any, Dict, List, Optional
from urllib.parse import urlsplit

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever

# Measured numbers (ms per query, recall, differing fills) go here as JSON lines when set.
NUMBERS = os.environ.get("SEAMSCOPE_STORE_NUMBERS")


def record(**values: Any) -> None:
    print(json.dumps(values))
    if NUMBERS:
        with open(NUMBERS, "a", encoding="utf-8") as f:
            f.write(json.dumps(values) + "\n")


class SeamscopeVectors(Embeddings):
    """The question vectors `seamscope query --json` computed (its `question_vector`), with the
    bundle's own model through seamscope's own embedder. Equal fills need equal vectors, and no
    Python embedder here reproduces fastembed's float for float (scripts/embed-server.py agrees
    to a cosine of 0.999); a question seamscope did not embed is an error. Chunk and seam
    vectors are never embedded here: add_bundle writes the bundle's own."""

    def __init__(self, reports: List[Dict[str, Any]]):
        self.vectors = {r["trace"]["input"]["question"]: r["question_vector"] for r in reports}

    def embed_query(self, text: str) -> List[float]:
        if text not in self.vectors:
            raise KeyError(f"seamscope embedded no question {text!r}")
        return list(self.vectors[text])

    def embed_documents(self, texts: List[str]) -> List[List[float]]:
        raise AssertionError("the store tests never embed a document: the bundle's vectors go in")


class TraceKeywords(BaseRetriever):
    """seamscope's own keyword list (tantivy BM25, per collection) for a question, read from its
    trace, as a LangChain retriever returning Documents with kind / id metadata: the store tests
    compare the dense store's search, and the keyword side is seamscope's own so that the fills
    must be equal."""

    hits: Dict[str, List[Dict[str, Any]]]
    kind: str

    @classmethod
    def of(cls, reports: List[Dict[str, Any]], source: str) -> "TraceKeywords":
        hits = {}
        for r in reports:
            (lst,) = [x for x in r["trace"]["input"]["ranking"]["lists"] if x["source"] == source]
            hits[r["trace"]["input"]["question"]] = lst["hits"]
        return cls(hits=hits, kind="chunk" if source == "keyword_chunks" else "seam")

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> List[Document]:
        return [
            Document(
                id=f"{self.kind}-{h['entry'][self.kind]}",
                page_content="",
                metadata={"kind": self.kind, "id": h["entry"][self.kind]},
            )
            for h in self.hits[query]
        ]


def keyword_retrievers(reports):
    return {
        "chunks": TraceKeywords.of(reports, "keyword_chunks"),
        "seams": TraceKeywords.of(reports, "keyword_seams"),
    }


def expected(report) -> Dict[str, Any]:
    trace = report["trace"]
    return {
        "fill": trace["fill"]["chunks"],
        "chunks_only": trace["without_seams"]["retrieval"]["fill"]["chunks"],
        "dense": [
            (next(iter(h["entry"])), next(iter(h["entry"].values())))
            for lst in trace["input"]["ranking"]["lists"]
            if lst["source"] == "dense"
            for h in lst["hits"]
        ],
    }


def compare(retriever, reports, label: str, check_chunks_only: bool = True) -> Dict[str, Any]:
    """Every question through the retriever against seamscope's trace: differing fills (and
    chunks-only fills), the dense list's recall against seamscope's exact one, ms per query."""
    differing, differing_only, recalls, ms, lengths, store_ms, seams_ms = [], [], [], [], [], [], []
    for report in reports:
        question = report["trace"]["input"]["question"]
        want = expected(report)
        start = time.perf_counter()
        result = retriever.retrieve(question)
        ms.append((time.perf_counter() - start) * 1000)
        timings = getattr(result, "timings", None) or {}
        if timings:
            store_ms.append(timings["store"] * 1000)
            seams_ms.append(timings["seams"] * 1000)
        got = [doc.metadata["id"] for doc in result.documents]
        if got != want["fill"]:
            differing.append((question, got, want["fill"]))
        if check_chunks_only:
            only = [doc.metadata["id"] for doc in result.chunks_only]
            if only != want["chunks_only"]:
                differing_only.append(question)
        (dense,) = [x for x in result.trace["input"]["ranking"]["lists"] if x["source"] == "dense"]
        ours = {(next(iter(h["entry"])), next(iter(h["entry"].values()))) for h in dense["hits"]}
        recalls.append(len(ours & set(want["dense"])) / len(want["dense"]))
        lengths.append(len(dense["hits"]))
        for doc in result.documents:
            assert doc.metadata["kind"] == "chunk"
            assert doc.page_content, (question, doc.metadata["id"])
    ms.sort()
    store_ms.sort()
    seams_ms.sort()
    numbers = {
        "store": label,
        "questions": len(reports),
        "differing_fills": len(differing),
        "differing_chunks_only_fills": len(differing_only),
        "mean_dense_recall": round(sum(recalls) / len(recalls), 4),
        "min_dense_recall": round(min(recalls), 4),
        "max_dense_hits": max(lengths),
        "ms_per_query_median": round(ms[len(ms) // 2], 2),
        "ms_per_query_p90": round(ms[int(len(ms) * 0.9)], 2),
    }
    if store_ms:  # the store's share (searches, read-backs) and the Seams stage's
        numbers["store_ms_median"] = round(store_ms[len(store_ms) // 2], 2)
        numbers["seams_stage_ms_median"] = round(seams_ms[len(seams_ms) // 2], 2)
    record(**numbers)
    numbers["differing"] = differing
    return numbers


# ---- Postgres -------------------------------------------------------------------------------


def pg_url() -> str:
    url = os.environ.get("SEAMSCOPE_TEST_PG_URL")
    if not url:
        pytest.fail(
            "SEAMSCOPE_TEST_PG_URL is not set: scripts/test starts Postgres + pgvector "
            "(scripts/pg-server DATA_DIR PORT) and sets it"
        )
    return url


def fresh_database(url: Optional[str] = None) -> str:
    """A new, empty database on the test server; its SQLAlchemy URL (psycopg 3)."""
    import psycopg

    url = url or pg_url()
    name = f"seams_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(url)
    return f"postgresql+psycopg://{parts.netloc}/{name}"


def pgvector_store(embeddings, url: str, collection="sample", dim=384, **kwargs):
    from langchain_postgres import PGVector

    engine_args = {"connect_args": {"connect_timeout": 5}, "pool_pre_ping": True}
    engine_args.update(kwargs.pop("engine_args", {}))
    return PGVector(
        embeddings=embeddings,
        connection=url,
        collection_name=collection,
        embedding_length=dim,
        use_jsonb=True,
        engine_args=engine_args,
        **kwargs,
    )


def sql(url: str, statement: str, *params) -> List[tuple]:
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True, connect_timeout=5) as conn:
        cur = conn.execute(statement, params or None)
        return cur.fetchall() if cur.description else []


# ---- Chroma ---------------------------------------------------------------------------------


def chroma_client():
    import chromadb
    from chromadb.config import Settings

    url = os.environ.get("SEAMSCOPE_TEST_CHROMA_URL")
    if not url:
        pytest.fail("SEAMSCOPE_TEST_CHROMA_URL is not set: scripts/test starts a Chroma server")
    parts = urlsplit(url)
    return chromadb.HttpClient(
        host=parts.hostname, port=parts.port, settings=Settings(anonymized_telemetry=False)
    )


def chroma_store(embeddings, name: str, ef: Optional[int] = None):
    from langchain_chroma import Chroma

    client = chroma_client()
    metadata: Dict[str, Any] = {"hnsw:space": "cosine"}
    if ef is not None:
        metadata["hnsw:search_ef"] = ef
    return Chroma(
        collection_name=name,
        client=client,
        embedding_function=embeddings,
        collection_metadata=metadata,
    )


# ---- Milvus Lite ----------------------------------------------------------------------------


def milvus_store(embeddings, path: str, name="sample"):
    from langchain_milvus import Milvus

    return Milvus(
        embedding_function=embeddings,
        collection_name=name,
        connection_args={"uri": path},
        index_params={"index_type": "FLAT", "metric_type": "COSINE"},
        search_params={"metric_type": "COSINE"},
        enable_dynamic_field=True,
        auto_id=False,
    )


# ---- LlamaIndex -----------------------------------------------------------------------------


def llama_embeddings(reports):
    """:class:`SeamscopeVectors` as a LlamaIndex embed model (same vectors, same rule)."""
    from llama_index.core.base.embeddings.base import BaseEmbedding

    vectors = SeamscopeVectors(reports)

    class SeamscopeVectorsLI(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> List[float]:
            return vectors.embed_query(query)

        async def _aget_query_embedding(self, query: str) -> List[float]:
            return vectors.embed_query(query)

        def _get_text_embedding(self, text: str) -> List[float]:
            raise AssertionError("the store tests never embed a document")

    return SeamscopeVectorsLI(model_name="seamscope-question-vectors")


def llama_keyword_retrievers(reports):
    """seamscope's own keyword lists (from the traces) as LlamaIndex retrievers."""
    from llama_index.core.base.base_retriever import BaseRetriever as LIRetriever
    from llama_index.core.schema import NodeWithScore, TextNode

    class TraceKeywordsLI(LIRetriever):
        def __init__(self, hits, kind):
            super().__init__()
            self.hits, self.kind = hits, kind

        def _retrieve(self, query_bundle):
            return [
                NodeWithScore(
                    node=TextNode(
                        id_=f"{self.kind}-{h['entry'][self.kind]}",
                        text="",
                        metadata={"kind": self.kind, "id": h["entry"][self.kind]},
                    ),
                    score=h["score"],
                )
                for h in self.hits[query_bundle.query_str]
            ]

    out = {}
    for key, source in (("chunks", "keyword_chunks"), ("seams", "keyword_seams")):
        lc = TraceKeywords.of(reports, source)
        out[key] = TraceKeywordsLI(lc.hits, lc.kind)
    return out


def llama_pg_store(url: str, table="sample", dim=384):
    from llama_index.vector_stores.postgres import PGVectorStore

    return PGVectorStore.from_params(
        # psycopg's connect timeout in the URL (the async engine, asyncpg, has its own 60 s).
        connection_string=url + "?connect_timeout=5",
        async_connection_string=url.replace("postgresql+psycopg://", "postgresql+asyncpg://"),
        table_name=table,
        embed_dim=dim,
        use_jsonb=True,
    )


def llama_chroma_store(name: str):
    from llama_index.vector_stores.chroma import ChromaVectorStore

    collection = chroma_client().get_or_create_collection(name, metadata={"hnsw:space": "cosine"})
    return ChromaVectorStore(chroma_collection=collection)


class ServerEmbeddings(Embeddings):
    """The bundle's model through the loopback OpenAI-compatible server scripts/test starts
    (scripts/embed-server.py: the same int8 all-MiniLM-L6-v2 through ONNX Runtime, agreeing with
    seamscope's embedder to float rounding): a real embedding client end to end."""

    def __init__(self, url: str):
        self.url = url.rstrip("/") + "/v1/embeddings"

    def _embed(self, texts: List[str]) -> List[List[float]]:
        import urllib.request

        body = json.dumps({"model": "all-MiniLM-L6-v2", "input": texts}).encode()
        request = urllib.request.Request(
            self.url, data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            data = json.load(response)["data"]
        return [row["embedding"] for row in sorted(data, key=lambda r: r["index"])]

    def embed_query(self, text: str) -> List[float]:
        return self._embed([text])[0]

    def embed_documents(self, texts: List[str]) -> List[List[float]]:
        return self._embed(texts)


# ---- in-process stores: LangChain's InMemoryVectorStore and FAISS ---------------------------


def inmemory_store(embeddings):
    """langchain-core's InMemoryVectorStore (the store of every LangChain tutorial): exact cosine
    over every row, in this process; no server."""
    from langchain_core.vectorstores import InMemoryVectorStore

    return InMemoryVectorStore(embedding=embeddings)


def faiss_store(embeddings, dim=384):
    """langchain-community's FAISS over an exact inner-product index (IndexFlatIP: the bundle's
    vectors are unit length, so inner product is cosine), empty, in this process."""
    import faiss
    from langchain_community.docstore.in_memory import InMemoryDocstore
    from langchain_community.vectorstores import FAISS
    from langchain_community.vectorstores.utils import DistanceStrategy

    return FAISS(
        embedding_function=embeddings,
        index=faiss.IndexFlatIP(dim),
        docstore=InMemoryDocstore(),
        index_to_docstore_id={},
        distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
    )


def in_process_store(kind: str, embeddings, dim=384):
    return inmemory_store(embeddings) if kind == "inmemory" else faiss_store(embeddings, dim)


def row_count(store) -> int:
    """Rows an in-process store holds (the reserved identity row included)."""
    if hasattr(store, "index_to_docstore_id"):
        assert store.index.ntotal == len(store.index_to_docstore_id), "FAISS index and docstore agree"
        return store.index.ntotal
    return len(store.store)
