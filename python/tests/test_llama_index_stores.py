"""seamscope_seams.llama_index.SeamsRetriever over real stores on loopback: Postgres + pgvector
through llama-index-vector-stores-postgres (its own data_<table> table) and the Chroma server
through llama-index-vector-stores-chroma. Same comparison as test_langchain_stores.py: the
store's own dense search with the question vector seamscope embedded, seamscope's own BM25
lists from each trace as LlamaIndex retrievers, all 130 sample questions against
`seamscope query --json`. (Milvus through LlamaIndex is not run: llama-index-vector-stores-milvus
1.2.0 needs pymilvus < 3, langchain-milvus 0.4.0 pymilvus >= 3, and one venv holds one.)"""

import asyncio

import numpy as np
import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode

import seamscope_seams as ss
from seamscope_seams import _deploy
from seamscope_seams import llama_index as sli

import stores
from test_langchain_stores import DIM, REPO, worked_example_bundle


@pytest.fixture(scope="module")
def bundle(bundle_dir):
    return ss.load_bundle(bundle_dir)


@pytest.fixture(scope="module")
def embed(all_reports):
    return stores.llama_embeddings(all_reports)


@pytest.fixture(scope="module")
def keywords(all_reports):
    return stores.llama_keyword_retrievers(all_reports)


class Compat:
    """The LlamaIndex retriever behind the interface stores.compare reads (documents with
    metadata, chunks-only, trace)."""

    def __init__(self, retriever):
        self.retriever = retriever

    def retrieve(self, question):
        nodes = self.retriever.retrieve(question)

        class Result:
            documents = [_Doc(n) for n in nodes]
            chunks_only = [_Doc(n) for n in self.retriever.last_chunks_only or []]
            trace = self.retriever.last_trace

        return Result


class _Doc:
    def __init__(self, scored):
        self.metadata = scored.node.metadata
        self.page_content = scored.node.get_content()
        self.score = scored.score


def test_postgres_pgvectorstore_gives_seamscopes_fills(bundle, embed, keywords, all_reports):
    url = stores.fresh_database()
    store = stores.llama_pg_store(url)
    sli.add_bundle(store, bundle)
    sli.add_bundle(store, bundle)  # idempotent
    assert stores.sql(url, "SELECT count(*) FROM data_sample") == [(len(bundle.chunks) + len(bundle.seams),)]
    assert stores.sql(url, "SELECT identity FROM seamscope_identity WHERE table_name = 'sample'") == [
        (_deploy.identity(bundle),)
    ]
    index = VectorStoreIndex.from_vector_store(store, embed_model=embed)
    retriever = sli.SeamsRetriever.from_bundle(bundle, index, keywords)
    numbers = stores.compare(Compat(retriever), all_reports, "llama-index PGVectorStore (exact)")
    assert numbers["differing"] == []
    assert numbers["differing_chunks_only_fills"] == 0
    async def each(reports):  # one event loop: the async engine's connections belong to it
        return [await retriever.aretrieve(r["trace"]["input"]["question"]) for r in reports]

    sample = all_reports[::26]
    for report, nodes in zip(sample, asyncio.run(each(sample))):
        assert [n.node.metadata["id"] for n in nodes] == report["trace"]["fill"]["chunks"]
    # A node's score: the fused (RRF) score of the entry that brought it, its seam's or its own.
    nodes = retriever.retrieve(sample[-1]["trace"]["input"]["question"])
    fused = {tuple(e["entry"].items())[0]: e["score"] for e in retriever.last_trace["fused"]}
    for n in nodes:
        meta = n.node.metadata
        entry = ("seam", meta["seam"]) if "seam" in meta else ("chunk", meta["id"])
        assert n.score == pytest.approx(fused[entry])


def test_chroma_gives_seamscopes_fills(bundle, embed, keywords, all_reports):
    client = stores.chroma_client()
    name = "seams-li-sample"
    if name in [c.name for c in client.list_collections()]:
        client.delete_collection(name)
    store = stores.llama_chroma_store(name)
    sli.add_bundle(store, bundle)
    sli.add_bundle(store, bundle)
    assert store._collection.count() == len(bundle.chunks) + len(bundle.seams)
    retriever = sli.SeamsRetriever.from_bundle(bundle, store, keywords, embed_model=embed)
    numbers = stores.compare(Compat(retriever), all_reports, "llama-index Chroma (HNSW)")
    # HNSW: the bound of test_langchain_stores.test_chroma_hnsw.
    assert numbers["mean_dense_recall"] >= 0.99
    assert len(numbers["differing"]) <= 3, numbers["differing"]


def test_refusals(bundle, embed):
    url = stores.fresh_database()
    plain = stores.llama_pg_store(url, table="plain")
    with pytest.raises(sli.StoreIdentityError, match="records no seamscope identity"):
        sli.SeamsRetriever.from_bundle(bundle, plain, embed_model=embed)

    store = stores.llama_pg_store(url)
    sli.add_bundle(store, bundle)
    with pytest.raises(sli.KMismatchError, match="k = 200, but the bundle's seams were cut with k = 150"):
        sli.SeamsRetriever.from_bundle(bundle, store, embed_model=embed, k=200)
    ident = _deploy.identity(bundle)
    other = {**ident, "model": "text-embedding-3-small", "dim": 1536}
    with pytest.raises(sli.ModelMismatchError, match="holds vectors of 'text-embedding-3-small'"):
        sli.SeamsRetriever.from_bundle(bundle, store, embed_model=embed, identity=other)
    sli._adapter(store).write_identity({**ident, "k": 64})
    with pytest.raises(sli.KMismatchError, match="cut with k = 64"):
        sli.SeamsRetriever.from_bundle(bundle, store, embed_model=embed)
    with pytest.raises(sli.KMismatchError, match="write it into a store of its own"):
        sli.add_bundle(store, bundle)
    sli._adapter(store).write_identity(ident)

    store.delete_nodes(node_ids=["chunk-7"])
    with pytest.raises(sli.MissingChunksError, match="links chunk 7 .*does not hold"):
        sli.SeamsRetriever.from_bundle(bundle, store, embed_model=embed)
    store.delete_nodes(node_ids=[f"seam-{s['id']}" for s in bundle.seams])
    with pytest.raises(sli.NoSeamsError, match="holds none of the bundle's 70 seams"):
        sli.SeamsRetriever.from_bundle(bundle, store, embed_model=embed)


def test_add_seams_beside_the_users_nodes(bundle, embed, keywords, all_reports):
    """Nodes the user indexed (their ids, loader metadata, same-model embeddings): add_seams
    adds the seams only; every chunk row's vector is the same bytes before and after."""
    url = stores.fresh_database()
    store = stores.llama_pg_store(url, table="users")
    nodes = [
        TextNode(
            id_=f"node-{c['id']:04d}",
            text=c["text"],
            metadata={"source": str(REPO / "sample-corpus" / c["doc"]), "start_index": c["start"]},
            embedding=bundle.chunk_vectors[c["id"]].tolist(),
        )
        for c in bundle.chunks
    ]
    store.add(nodes)
    read = "SELECT node_id, vector_send(embedding) FROM data_users ORDER BY node_id"
    before = dict(stores.sql(url, read))
    refs = sli.add_seams(store, bundle, nodes=nodes)
    sli.add_seams(store, bundle, chunk_ids=refs)
    after = dict(stores.sql(url, read))
    assert len(after) == len(before) + len(bundle.seams)
    assert {k: after[k] for k in before} == before
    retriever = sli.SeamsRetriever.from_bundle(bundle, store, keywords, embed_model=embed, chunk_ids=refs)
    numbers = stores.compare(
        Compat(retriever), all_reports[::5], "llama-index PGVectorStore, seams added to the user's nodes",
        check_chunks_only=False,
    )
    assert numbers["differing"] == []



def test_worked_example_through_the_llama_index_retriever():
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class Along(BaseEmbedding):
        def _get_query_embedding(self, query):
            return [1.0] + [0.0] * (DIM - 1)

        async def _aget_query_embedding(self, query):
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text):
            raise AssertionError("never")

    example = worked_example_bundle()
    url = stores.fresh_database()
    store = stores.llama_pg_store(url, table="example")
    sli.add_bundle(store, example)
    retriever = sli.SeamsRetriever.from_bundle(example, store, embed_model=Along(model_name="along"))
    nodes = retriever.retrieve("Why does the order service accept stale reads?")
    assert [n.node.metadata["id"] for n in nodes] == [7, 8, 12, 3, 20]
    assert nodes[0].node.metadata["arithmetic"] == "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires"
    assert [n.node.metadata["id"] for n in retriever.last_chunks_only] == [12, 7, 3, 20, 15]
    nodes = asyncio.run(retriever.aretrieve("q"))
    assert [n.node.metadata["id"] for n in nodes] == [7, 8, 12, 3, 20]
