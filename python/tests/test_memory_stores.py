"""Seams over stores without collection-level metadata, in this process (no server): LangChain's
InMemoryVectorStore (langchain-core) and FAISS (langchain-community over faiss-cpu), and
LlamaIndex's SimpleVectorStore. add_bundle records the bundle's identity as the reserved row
`seamscope-identity` among the store's own rows; SeamsRetriever reads it back by id (no
identity= by hand), never returns it, and filters by kind in each store's own form. The white
paper's worked example runs through each (as test_langchain_stores.py runs it through
Postgres), the 130 sample questions through the two LangChain stores against
`seamscope query --json` (both search exactly: every fill must be seamscope's), and a store that
cannot hold a bundle is refused before any row is written."""

import asyncio
from typing import Any, Dict, List

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

import seamscope_seams as ss
from seamscope_seams import _deploy
from seamscope_seams import langchain as sl
from seamscope_seams import llama_index as sli

import stores
from test_langchain_stores import DIM, Along, worked_example_bundle

KINDS = ["inmemory", "faiss"]
QUESTION = "Why does the order service accept stale reads?"


@pytest.fixture(scope="module")
def bundle(bundle_dir):
    return ss.load_bundle(bundle_dir)


@pytest.fixture(scope="module")
def vectors(all_reports):
    return stores.SeamscopeVectors(all_reports)


@pytest.fixture(scope="module")
def keywords(all_reports):
    return stores.keyword_retrievers(all_reports)


def _ids(docs):
    return [d.metadata["id"] for d in docs]


# ---- the worked example ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_worked_example_through_the_retriever(kind):
    """The worked example after add_bundle, no identity given: seam 7|8 fires, seam 12|13 does
    not, the budget of five holds chunks 7, 8, 12, 3, 20; chunks-only 12, 7, 3, 20, 15."""
    example = worked_example_bundle()
    store = stores.in_process_store(kind, Along())
    assert sl.add_bundle(store, example) == {"chunks": 10, "seams": 2}
    sl.add_bundle(store, example)  # idempotent
    assert stores.row_count(store) == 10 + 2 + 1, "chunks, seams and the reserved row"
    assert sl.store_identity(store) == _deploy.identity(example)

    retriever = sl.SeamsRetriever.from_bundle(example, store, embeddings=Along())
    result = retriever.retrieve(QUESTION)
    assert _ids(result.documents) == [7, 8, 12, 3, 20]
    first = result.documents[0].metadata
    assert first["seam"] == 78 and first["fused_position"] == 1
    assert first["arithmetic"] == "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires"
    assert "seam" not in result.documents[2].metadata
    assert [d.metadata["fused_position"] for d in result.documents] == [1, 1, 2, 5, 6]
    assert [d["arithmetic"] for d in result.trace["decisions"]][1] == "3 + 3 = 6 > 2 (chunk 12): does not fire"
    assert [d.page_content for d in result.documents][:2] == [
        "chunk 7 of the worked example", "chunk 8 of the worked example"
    ]
    assert _ids(result.chunks_only) == [12, 7, 3, 20, 15]
    assert _ids(retriever.invoke("q")) == [7, 8, 12, 3, 20]
    assert _ids(asyncio.run(retriever.ainvoke("q"))) == [7, 8, 12, 3, 20]
    stricter = sl.SeamsRetriever.from_bundle(example, store, embeddings=Along(), m=4)
    assert _ids(stricter.invoke("q")) == [12, 7, 3, 20, 15]

    note = result.trace["store_search"]
    assert note["identity"] == "reserved row 'seamscope-identity'"
    assert note["searches"]["chunks_and_seams"]["asked"] == example.settings["depth"] + 1
    if kind == "inmemory":
        assert note["searches"]["chunks"]["kind_filter"].startswith("the store's own filter")
    else:
        assert note["searches"]["chunks"]["kind_filter"].startswith("FAISS's own filter")
        assert note["searches"]["chunks"]["fetch_k"] == example.settings["depth"] + 2 + 1
    assert "chunks_short" not in note


class _Toward(Along):
    """Questions along a given vector."""

    def __init__(self, vector):
        self.vector = [float(x) for x in vector]

    def embed_query(self, text):
        return list(self.vector)


@pytest.mark.parametrize("kind", KINDS)
def test_the_reserved_row_never_takes_a_place(kind):
    """A question along the reserved row's own vector: it is the store's nearest row, yet the
    dense list holds `depth` bundle entries (the search asked for one more and dropped it), the
    same ones an exact search over the bundle's own vectors ranks first."""
    example = worked_example_bundle()
    store = stores.in_process_store(kind, Along())
    sl.add_bundle(store, example)
    reserved = _deploy.identity_vector(example, DIM)
    raw = store.similarity_search_with_score_by_vector(reserved, k=1)
    assert raw[0][0].id == _deploy.IDENTITY_ROW_ID, "the reserved row is the nearest"

    retriever = sl.SeamsRetriever.from_bundle(example, store, embeddings=_Toward(reserved))
    result = retriever.retrieve("q")
    (dense,) = [x for x in result.trace["input"]["ranking"]["lists"] if x["source"] == "dense"]
    got = [(next(iter(h["entry"])), next(iter(h["entry"].values()))) for h in dense["hits"]]
    depth = example.settings["depth"]
    assert len(got) == depth
    q = np.asarray(reserved, dtype=np.float32)
    rows = [("chunk", c["id"]) for c in example.chunks] + [("seam", s["id"]) for s in example.seams]
    cos = {
        r: float(np.dot((example.chunk_vectors if r[0] == "chunk" else example.seam_vectors)[r[1]], q))
        for r in rows
    }
    assert len(set(got)) == depth and set(got) <= set(rows)
    lowest = min(cos[r] for r in got)
    assert all(cos[r] <= lowest + 1e-6 for r in rows if r not in got), "the nearest depth rows"
    assert all(d.metadata["kind"] == "chunk" for d in result.documents)
    assert len(result.documents) == example.settings["budget"]
    assert len(result.chunks_only) == example.settings["budget"]


# ---- a store with no filter this package knows: a deeper search, filtered after -------------


class _Rows(VectorStore):
    """A minimal LangChain store keeping rows in a list: add with ids, get_by_ids; no search by
    vector."""

    def __init__(self, embeddings=None):
        self.rows: List[Dict[str, Any]] = []
        self._embeddings = embeddings

    @property
    def embeddings(self):
        return self._embeddings

    def add_embeddings(self, texts, embeddings, metadatas=None, ids=None):
        for text, vector, meta, row_id in zip(texts, embeddings, metadatas, ids):
            self.rows = [r for r in self.rows if r["id"] != row_id]
            self.rows.append({"id": row_id, "text": text, "vector": np.asarray(vector), "metadata": dict(meta)})
        return list(ids)

    def add_texts(self, texts, metadatas=None, **kwargs):
        raise AssertionError("the bundle's own vectors go in: nothing is embedded")

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs):
        raise NotImplementedError

    def delete(self, ids=None, **kwargs):
        self.rows = [r for r in self.rows if r["id"] not in set(ids or [])]

    def get_by_ids(self, ids, /):
        want = set(ids)
        return [Document(id=r["id"], page_content=r["text"], metadata=r["metadata"]) for r in self.rows if r["id"] in want]

    def similarity_search(self, query, k=4, **kwargs):
        raise NotImplementedError


class ListStore(_Rows):
    """:class:`_Rows` with an exact cosine similarity search by vector, and no filter of any
    kind."""

    def similarity_search_with_score_by_vector(self, embedding, k=4):
        q = np.asarray(embedding)
        scored = sorted(
            self.rows, key=lambda r: -float(np.dot(r["vector"], q) / (np.linalg.norm(r["vector"]) * np.linalg.norm(q)))
        )
        return [(Document(id=r["id"], page_content=r["text"], metadata=r["metadata"]), 0.0) for r in scored[:k]]


def test_a_store_without_a_filter_is_searched_deeper_and_filtered_after():
    example = worked_example_bundle()
    store = ListStore(Along())
    sl.add_bundle(store, example)
    assert len(store.rows) == 10 + 2 + 1
    retriever = sl.SeamsRetriever.from_bundle(example, store, embeddings=Along())
    result = retriever.retrieve(QUESTION)
    assert _ids(result.documents) == [7, 8, 12, 3, 20]
    assert _ids(result.chunks_only) == [12, 7, 3, 20, 15]
    chunks = result.trace["store_search"]["searches"]["chunks"]
    assert chunks["kind_filter"].startswith("filtered after the search")
    # depth + the two seams + the reserved row: every chunk among the top `depth` is found.
    assert chunks["asked"] == example.settings["depth"] + 2 + 1
    assert _deploy.fetch_depth(150, 70_000) == 150 * _deploy.FETCH_FACTOR, "bounded"


# ---- the sample corpus against seamscope --------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_sample_questions_give_seamscopes_fills(kind, bundle, vectors, keywords, all_reports):
    """All 130 sample questions: both stores search exactly (InMemoryVectorStore scans every
    row; FAISS IndexFlatIP), so every fill and chunks-only fill is seamscope's."""
    store = stores.in_process_store(kind, vectors)
    sl.add_bundle(store, bundle)
    sl.add_bundle(store, bundle)
    assert stores.row_count(store) == len(bundle.chunks) + len(bundle.seams) + 1
    assert store.get_by_ids([_deploy.IDENTITY_ROW_ID])[0].metadata == {
        "kind": "seamscope_identity",
        "seamscope": _deploy.dumps_identity(bundle),
    }
    retriever = sl.SeamsRetriever.from_bundle(bundle, store, keywords, embeddings=vectors)
    numbers = stores.compare(retriever, all_reports, f"{kind} (exact)")
    assert numbers["differing"] == []
    assert numbers["differing_chunks_only_fills"] == 0
    assert numbers["min_dense_recall"] == 1.0
    docs = asyncio.run(retriever.ainvoke(all_reports[0]["trace"]["input"]["question"]))
    assert _ids(docs) == all_reports[0]["trace"]["fill"]["chunks"]


@pytest.mark.parametrize("kind", KINDS)
def test_add_seams_beside_the_users_chunks(kind, bundle, vectors, keywords, all_reports):
    """add_seams beside the user's own chunk rows: the seams and the reserved row added,
    nothing else; the retriever over the user's rows gives seamscope's fills."""
    store = stores.in_process_store(kind, vectors)
    ids = [f"user-{c['doc']}#{c['start']}" for c in bundle.chunks]
    docs = [
        Document(id=i, page_content=c["text"], metadata={"source": c["doc"], "start_index": c["start"]})
        for i, c in zip(ids, bundle.chunks)
    ]
    if kind == "faiss":
        store.add_embeddings(
            list(zip([d.page_content for d in docs], bundle.chunk_vectors.tolist())),
            metadatas=[d.metadata for d in docs], ids=ids,
        )
    else:
        for d, v in zip(docs, bundle.chunk_vectors.tolist()):
            store.store[d.id] = {"id": d.id, "vector": v, "text": d.page_content, "metadata": d.metadata}
    refs = sl.add_seams(store, bundle, documents=docs)
    sl.add_seams(store, bundle, chunk_ids=refs)
    assert stores.row_count(store) == len(bundle.chunks) + len(bundle.seams) + 1
    retriever = sl.SeamsRetriever.from_bundle(bundle, store, keywords, embeddings=vectors, chunk_ids=refs)
    numbers = stores.compare(retriever, all_reports[::5], f"{kind}, seams beside the user's rows", check_chunks_only=False)
    assert numbers["differing"] == []


# ---- refusals -------------------------------------------------------------------------------


class NoGetByIds(ListStore):
    get_by_ids = VectorStore.get_by_ids


class NoSearchByVector(_Rows):
    pass


def test_a_store_that_cannot_hold_a_bundle_is_refused_before_any_row_is_written():
    example = worked_example_bundle()
    store = NoGetByIds(Along())
    with pytest.raises(sl.SeamsStoreError, match=r"NoGetByIds cannot serve .*no get_by_ids .*nothing was written"):
        sl.add_bundle(store, example)
    assert store.rows == []
    with pytest.raises(sl.SeamsStoreError, match="no get_by_ids"):
        sl.add_seams(store, example)
    assert store.rows == []
    with pytest.raises(sl.SeamsStoreError, match="no get_by_ids"):
        sl.SeamsRetriever.from_bundle(example, store, embeddings=Along())

    store = NoSearchByVector(Along())
    with pytest.raises(sl.SeamsStoreError, match="no similarity_search_with_score_by_vector or similarity_search_by_vector"):
        sl.add_bundle(store, example)
    assert store.rows == []

    # Into a second bundle's store, another model's bundle is refused by its reserved row.
    store = stores.inmemory_store(Along())
    sl.add_bundle(store, example)
    other = worked_example_bundle()
    other.settings["model"] = "BAAI/bge-small-en-v1.5"
    with pytest.raises(sl.ModelMismatchError, match="write it into a collection of its own"):
        sl.add_bundle(store, other)
    with pytest.raises(sl.ModelMismatchError, match="holds vectors of 'hand-made-plane'"):
        sl.SeamsRetriever.from_bundle(other, store, embeddings=Along())
    empty = stores.faiss_store(Along())
    with pytest.raises(sl.StoreIdentityError, match=r"FAISS index \(IndexFlatIP\) records no seamscope identity"):
        sl.SeamsRetriever.from_bundle(example, empty, embeddings=Along())


# ---- a store's own error is not an outage ----------------------------------------------------


class DictFilter(InMemoryVectorStore):
    """An InMemoryVectorStore given a dict filter, as the generic path once did (issue 38): the
    store raises TypeError: 'dict' object is not callable."""

    def similarity_search_with_score_by_vector(self, embedding, k=4, filter=None, **kwargs):
        return super().similarity_search_with_score_by_vector(embedding, k=k, filter={"kind": "chunk"})


class Refusing(InMemoryVectorStore):
    def similarity_search_with_score_by_vector(self, embedding, k=4, filter=None, **kwargs):
        raise ConnectionRefusedError(111, "Connection refused")


def test_a_store_type_error_is_not_an_outage():
    example = worked_example_bundle()
    store = DictFilter(Along())
    sl.add_bundle(store, example)
    retriever = sl.SeamsRetriever.from_bundle(example, store, embeddings=Along())
    with pytest.raises(sl.SeamsStoreError) as caught:
        retriever.invoke("q")
    assert not isinstance(caught.value, sl.StoreUnavailableError)
    message = str(caught.value)
    assert "DictFilter raised TypeError in similarity_search_with_score_by_vector" in message
    assert "'dict' object is not callable" in message and "not an outage" in message
    with pytest.raises(sl.SeamsStoreError) as caught:
        asyncio.run(retriever.ainvoke("q"))
    assert not isinstance(caught.value, sl.StoreUnavailableError)

    # A connection that fails is an outage.
    store = Refusing(Along())
    sl.add_bundle(store, example)
    retriever = sl.SeamsRetriever.from_bundle(example, store, embeddings=Along())
    with pytest.raises(sl.StoreUnavailableError, match=r"the store failed \(Refusing, similarity_search_with_score_by_vector\): ConnectionRefusedError"):
        retriever.invoke("q")

    # Drivers' connection errors, by class, along the cause chain; wrong calls are not.
    import sqlalchemy.exc

    lost = sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection"))
    assert _deploy.is_outage(lost)
    try:
        try:
            raise TimeoutError("read timed out")
        except TimeoutError as inner:
            raise ValueError("the client gave up") from inner
    except ValueError as wrapped:
        assert _deploy.is_outage(wrapped)
    assert not _deploy.is_outage(TypeError("'dict' object is not callable"))
    assert not _deploy.is_outage(ValueError("Tried to add ids that already exist"))


# ---- LlamaIndex's SimpleVectorStore ----------------------------------------------------------


def _along_li():
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class AlongLI(BaseEmbedding):
        def _get_query_embedding(self, query):
            return [1.0] + [0.0] * (DIM - 1)

        async def _aget_query_embedding(self, query):
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text):
            raise AssertionError("never: the bundle's own vectors go in")

    return AlongLI(model_name="along")


def test_worked_example_through_llama_index_simple_vector_store_inmemory():
    """SimpleVectorStore keeps no text and has no get_nodes: rows and the reserved node are read
    from its own dicts, the text is the bundle's."""
    from llama_index.core.vector_stores import SimpleVectorStore

    example = worked_example_bundle()
    store = SimpleVectorStore()
    sli.add_bundle(store, example)
    sli.add_bundle(store, example)
    assert len(store.data.embedding_dict) == 10 + 2 + 1
    assert sli.store_identity(store) == _deploy.identity(example)
    retriever = sli.SeamsRetriever.from_bundle(example, store, embed_model=_along_li())
    nodes = retriever.retrieve(QUESTION)
    assert [n.node.metadata["id"] for n in nodes] == [7, 8, 12, 3, 20]
    assert nodes[0].node.metadata["arithmetic"] == "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires"
    assert nodes[0].node.get_content() == "chunk 7 of the worked example"
    assert [n.node.metadata["id"] for n in retriever.last_chunks_only] == [12, 7, 3, 20, 15]
    assert [n.node.metadata["id"] for n in asyncio.run(retriever.aretrieve("q"))] == [7, 8, 12, 3, 20]

    # The reserved node never takes a place: a question along it.
    reserved = _deploy.identity_vector(example, DIM)
    from llama_index.core.schema import QueryBundle

    nodes = retriever.retrieve(QueryBundle(query_str="q", embedding=reserved))
    (dense,) = [x for x in retriever.last_trace["input"]["ranking"]["lists"] if x["source"] == "dense"]
    assert len(dense["hits"]) == example.settings["depth"]


def test_a_llama_index_store_without_get_nodes_is_refused_before_any_node_is_written():
    from llama_index.core.vector_stores.types import BasePydanticVectorStore, VectorStoreQueryResult

    class AddOnly(BasePydanticVectorStore):
        stores_text: bool = True
        added: list = []

        @property
        def client(self):
            return None

        def add(self, nodes, **kwargs):
            self.added.extend(nodes)
            return [n.node_id for n in nodes]

        def delete(self, ref_doc_id, **kwargs):
            pass

        def query(self, query, **kwargs):
            return VectorStoreQueryResult(nodes=[], similarities=[], ids=[])

    store = AddOnly(added=[])
    with pytest.raises(sli.SeamsStoreError, match=r"AddOnly cannot serve .*no get_nodes .*nothing was written"):
        sli.add_bundle(store, worked_example_bundle())
    assert store.added == []
