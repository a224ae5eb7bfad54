"""Seams inside a LangChain pipeline: :class:`SeamsRetriever` over your ``VectorStore``, and
:func:`add_bundle` / :func:`add_seams` to put a bundle's chunks and seams into it with their own
vectors (nothing re-embedded).

The stages (fusion, fire test, side drop, budget fill) are the Rust ``seams`` crate's, through
:meth:`seamscope_seams.Bundle.apply`; this module only runs your store's searches and maps hits to
``("chunk", id)`` / ``("seam", id)`` and the fill back to ``Document``\\ s.

Where the identity is kept: in the collection's own metadata for ``langchain_postgres.PGVector``
(collection ``cmetadata``), ``langchain_chroma.Chroma`` (collection metadata) and
``langchain_milvus.Milvus`` (collection properties); in every other store as the reserved row
``seamscope-identity`` among its own, read back with ``get_by_ids``: ``InMemoryVectorStore``,
``FAISS`` and any ``VectorStore`` that adds rows with given ids, reads them back by id and
searches by vector (a store without one of these is refused before anything is written). The
kind filter is each store's own (``InMemoryVectorStore``'s callable, FAISS's callable over
``fetch_k`` rows); a store with no filter this package knows is searched deeper and filtered
here. See :mod:`seamscope_seams._langchain_stores`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, PrivateAttr

from . import Bundle
from . import _deploy as d
from . import _langchain_stores as _stores
from ._deploy import (  # noqa: F401  (re-exported: the refusals callers catch)
    KMismatchError,
    MissingChunksError,
    ModelMismatchError,
    NoSeamsError,
    SeamsStoreError,
    StoreIdentityError,
    StoreUnavailableError,
)

__all__ = [
    "KMismatchError",
    "MissingChunksError",
    "ModelMismatchError",
    "NoSeamsError",
    "SeamsResult",
    "SeamsRetriever",
    "SeamsStoreError",
    "StoreIdentityError",
    "StoreUnavailableError",
    "add_bundle",
    "add_seams",
    "store_identity",
]

_BATCH = 500
_in_pool = d.in_pool


# ---------------------------------------------------------------------------------------------
# Store adapters (in _langchain_stores: one per store this package knows, and the reserved-row
# adapter for any other)

_Adapter = _stores._Adapter
_adapter = _stores.adapter_for


def store_identity(store: VectorStore) -> Optional[Dict[str, Any]]:
    """The seamscope identity (model, dim, k, counts) ``store`` records, or ``None``."""
    return _adapter(store).identity()


# ---------------------------------------------------------------------------------------------
# Writing a bundle


def _check_writable(adapter: _Adapter, bundle: Bundle) -> None:
    d.check_writable(adapter, bundle, "collection")


def add_bundle(
    store: VectorStore, bundle: Bundle, *, seam_store: Optional[VectorStore] = None
) -> Dict[str, int]:
    """Write ``bundle``'s chunks and seams into ``store`` with their own vectors, ids
    (``chunk-<N>``, ``seam-<N>``) and metadata, and record its identity. With ``seam_store`` the
    seams go there and the chunks into ``store`` (both record the identity). Re-running it is
    idempotent (same ids: upserted, or skipped where the store cannot upsert). Returns the counts
    written."""
    adapter = _adapter(store)
    seam_adapter = adapter if seam_store is None else _adapter(seam_store)
    _stores.check_capable(adapter)
    if seam_adapter is not adapter:
        _stores.check_capable(seam_adapter)
    _check_writable(adapter, bundle)
    if seam_adapter is not adapter:
        _check_writable(seam_adapter, bundle)
    chunks, seams = d.chunk_records(bundle), d.seam_records(bundle)
    if seam_adapter is adapter:
        adapter.check_ids_free([r.id for r in chunks + seams])
        adapter.write(chunks + seams)
    else:
        adapter.check_ids_free([r.id for r in chunks])
        seam_adapter.check_ids_free([r.id for r in seams])
        adapter.write(chunks)
        seam_adapter.write(seams)
    # The identity last: a half-written bundle (an error above) is never taken for a whole one.
    vector = d.identity_vector(bundle, int(bundle.settings["dim"]))
    for a in {id(adapter): adapter, id(seam_adapter): seam_adapter}.values():
        a.write_identity(d.identity(bundle), vector)
    return {"chunks": len(bundle.chunks), "seams": len(bundle.seams)}


def add_seams(
    store: VectorStore,
    bundle: Bundle,
    *,
    chunk_ids: Optional[Mapping[int, str]] = None,
    documents: Optional[Sequence[Document]] = None,
    document_key: str = "source",
    start_key: str = "start_index",
) -> Dict[int, str]:
    """Add only ``bundle``'s seams beside the chunks ``store`` already holds; no chunk is
    written or re-embedded.

    Which row holds which bundle chunk: ``chunk_ids`` (bundle chunk id -> your row id), or
    ``documents`` (your chunk ``Document``\\ s with their ``id``), matched to the bundle's chunks by
    their ``document_key`` (the document path) and ``start_key`` (the byte offset) metadata. With
    neither, the store's chunks are the bundle's own rows (``chunk-<N>``). Every linked chunk
    must be in the store. Each seam records ``left_ref`` / ``right_ref``, the rows it links.
    Idempotent. Returns the chunk id -> row id mapping used (pass it to the retriever)."""
    adapter = _adapter(store)
    _stores.check_capable(adapter)
    _check_writable(adapter, bundle)
    if chunk_ids is not None and documents is not None:
        raise TypeError("add_seams takes chunk_ids or documents, not both")
    if documents is not None:
        refs = d.match_chunks_by_span(
            bundle, [(doc.id, doc.metadata) for doc in documents], document_key, start_key
        )
    elif chunk_ids is not None:
        refs = {int(k): str(v) for k, v in chunk_ids.items()}
    else:
        refs = None
    return d.write_seams(adapter, bundle, refs, "row", check_ids_free=True)


# ---------------------------------------------------------------------------------------------
# The retriever


class SeamsResult:
    """One query through :class:`SeamsRetriever`: ``documents`` (the budget's chunks in fill
    order), ``chunks_only`` (what chunks-only retrieval with the same budget returns, or
    ``None``) and ``trace`` (the whole trace, in the shape of ``seamscope query --json``)."""

    def __init__(
        self, documents: List[Document], chunks_only: Optional[List[Document]], trace: Dict[str, Any]
    ):
        self.documents = documents
        self.chunks_only = chunks_only
        self.trace = trace
        #: Seconds spent: ``embed`` (the question), ``store`` (dense searches, keyword
        #: retrievers, read-backs), ``seams`` (fusion, fire test, fill: the Rust stage).
        self.timings: Dict[str, float] = {}

    def __repr__(self) -> str:
        return (
            f"SeamsResult(chunks={[x.metadata['id'] for x in self.documents]}, "
            f"chunks_only={None if self.chunks_only is None else [x.metadata['id'] for x in self.chunks_only]})"
        )


class SeamsRetriever(BaseRetriever):
    """A LangChain retriever that runs a bundle's Seams over your vector store.

    Build it with :meth:`from_bundle`. Per question: the question embedded by ``embeddings``
    (the bundle's model), one dense search over chunks and seams together (``depth`` hits), one
    over chunks only (the "without Seams" baseline; ``chunks_only=False`` skips it), the keyword
    retrievers if given, then the bundle's fusion, fire test and budget fill. ``invoke`` returns
    the budget's chunks as ``Document``\\ s in fill order; :meth:`retrieve` returns them with the
    chunks-only result and the trace, and ``last_result`` holds the latest.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bundle: Any
    vectorstore: Any
    embeddings: Any
    seam_store: Any = None
    keyword_chunks: Any = None
    keyword_seams: Any = None
    settings: Dict[str, Any] = {}
    chunks_only: bool = True
    timeout: Optional[float] = 30.0
    chunk_ref: Dict[int, str] = {}

    _row_to_chunk: Dict[str, int] = PrivateAttr(default_factory=dict)
    _adapter: Any = PrivateAttr(default=None)
    _seam_adapter: Any = PrivateAttr(default=None)
    last_result: Optional[SeamsResult] = None

    @classmethod
    def from_bundle(
        cls,
        bundle: Bundle,
        vectorstore: VectorStore,
        keyword_retrievers: Optional[
            Union[Mapping[str, BaseRetriever], Tuple[Optional[BaseRetriever], Optional[BaseRetriever]]]
        ] = None,
        *,
        embeddings: Optional[Embeddings] = None,
        seam_store: Optional[VectorStore] = None,
        chunk_ids: Optional[Mapping[int, str]] = None,
        identity: Optional[Mapping[str, Any]] = None,
        chunks_only: bool = True,
        timeout: Optional[float] = 30.0,
        verify: bool = True,
        **settings: Any,
    ) -> "SeamsRetriever":
        """The retriever for ``bundle`` over ``vectorstore``.

        ``keyword_retrievers``: ``{"chunks": retriever, "seams": retriever}`` (or a pair), each a
        LangChain retriever over the same records whose ``Document``\\ s carry ``kind`` and
        ``id`` metadata (or the row ids), e.g. a ``BM25Retriever`` per collection.
        ``embeddings`` embeds the question (default: the store's own); it must be the bundle's
        model. ``seam_store``: the seams in a store of their own (``vectorstore`` then holds the
        chunks). ``chunk_ids``: bundle chunk id -> your row id, when the chunks are your own rows
        (what :func:`add_seams` returned; those rows carry no ``kind`` to filter on, so with
        one store the chunks-only baseline is off). ``identity``: the identity you vouch for, read
        instead of the store's (every store this package writes records one: in the
        collection's metadata, or as the reserved row ``seamscope-identity``). ``settings``: ``m``, ``budget``, ``depth``, ``rrf_c``,
        ``side_drop`` (``k`` only as the bundle's). ``timeout``: seconds one store call may take
        before :class:`StoreUnavailableError`. ``verify`` checks at once that the store holds
        every seam and every chunk a seam links (reads them back by id).
        """
        resolved = d.resolve_settings(bundle, settings)
        if embeddings is None:
            embeddings = getattr(vectorstore, "embeddings", None)
            if embeddings is None:
                raise TypeError("give embeddings= (the bundle's model): the store has none")
        kw_chunks = kw_seams = None
        if keyword_retrievers is not None:
            if isinstance(keyword_retrievers, Mapping):
                extra = sorted(set(keyword_retrievers) - {"chunks", "seams"})
                if extra:
                    raise TypeError(f"keyword_retrievers takes keys chunks and seams, not {extra}")
                kw_chunks = keyword_retrievers.get("chunks")
                kw_seams = keyword_retrievers.get("seams")
            else:
                kw_chunks, kw_seams = keyword_retrievers
        ref = (
            {int(k): str(v) for k, v in chunk_ids.items()}
            if chunk_ids is not None
            else {c["id"]: d.chunk_row_id(c["id"]) for c in bundle.chunks}
        )
        retriever = cls(
            bundle=bundle,
            vectorstore=vectorstore,
            embeddings=embeddings,
            seam_store=seam_store,
            keyword_chunks=kw_chunks,
            keyword_seams=kw_seams,
            settings=resolved,
            chunks_only=chunks_only,
            timeout=timeout,
            chunk_ref=ref,
        )
        retriever._setup(identity, verify)
        return retriever

    # -- setup and checks ------------------------------------------------------------------

    def _setup(self, identity: Optional[Mapping[str, Any]], verify: bool) -> None:
        self._adapter = _adapter(self.vectorstore)
        self._seam_adapter = _adapter(self.seam_store) if self.seam_store is not None else self._adapter
        self._row_to_chunk = {row: chunk for chunk, row in self.chunk_ref.items()}
        for adapter in {id(self._adapter): self._adapter, id(self._seam_adapter): self._seam_adapter}.values():
            reads = identity is None or verify
            _stores.check_capable(adapter, ("read", "search") if reads else ("search",))
            # A chunk search filtered after the store's search meets the seams and the
            # reserved row besides the chunks: it goes that much deeper (bounded).
            adapter.extra_rows = len(self.bundle.seams) + 1
            found = identity if identity is not None else self._call(adapter.identity)
            d.check_identity(found, self.bundle, adapter.name)
        if verify:
            seam_ids = [d.seam_row_id(s["id"]) for s in self.bundle.seams]
            seams = self._call(self._seam_adapter.get, seam_ids)
            seam_meta = {row: doc.metadata for row, doc in seams.items()}
            linked = sorted({c for s in self.bundle.seams for c in (s["left"], s["right"])})
            missing_ref = [c for c in linked if c not in self.chunk_ref]
            if missing_ref:
                raise MissingChunksError(
                    f"chunk_ids gives no row for chunk {missing_ref[0]}, which a seam links"
                )
            present = self._call(self._adapter.get, [self.chunk_ref[c] for c in linked])
            d.check_rows(self.bundle, seam_meta, list(present), self.chunk_ref, self._adapter.name)
        if self.chunks_only and self.chunk_ref != {
            c["id"]: d.chunk_row_id(c["id"]) for c in self.bundle.chunks
        } and self.seam_store is None:
            # The user's own chunk rows carry no kind to filter on: the baseline needs the
            # seams in a store of their own.
            self.chunks_only = False

    def _call(self, fn: Any, *args: Any) -> Any:
        return d.call_bounded(fn, args, self.timeout, name_call=True)

    async def _acall(self, coro: Any) -> Any:
        return await d.acall_bounded(coro, self.timeout)

    # -- hits ------------------------------------------------------------------------------

    def _entry_of(self, doc: Document, default_kind: Optional[str] = None) -> Tuple[str, int]:
        meta = doc.metadata or {}
        kind = meta.get("kind")
        if kind in ("chunk", "seam") and isinstance(meta.get("id"), int):
            return kind, int(meta["id"])
        row = None if doc.id is None else str(doc.id)
        if row is not None:
            if row in self._row_to_chunk:
                return "chunk", self._row_to_chunk[row]
            for prefix, k in (("chunk-", "chunk"), ("seam-", "seam")):
                if row.startswith(prefix) and row[len(prefix) :].isdigit():
                    return k, int(row[len(prefix) :])
        raise SeamsStoreError(
            f"a hit (row {row!r}, metadata {sorted(meta)}) is neither a bundle chunk nor a seam: "
            "it carries no kind/id metadata and no row id this retriever knows (chunk_ids)"
        )

    def _hits(self, docs: Sequence[Document], q: Any, depth: int) -> List[d.Hit]:
        import numpy as np

        out = []
        seen = set()
        for doc in docs:
            if d.is_identity_row(doc.id, doc.metadata):  # never a result (the adapters drop it)
                continue
            kind, i = self._entry_of(doc)
            if (kind, i) in seen:
                continue
            seen.add((kind, i))
            vectors = self.bundle.chunk_vectors if kind == "chunk" else self.bundle.seam_vectors
            if not 0 <= i < len(vectors):
                raise SeamsStoreError(f"the store returned {kind} {i}, which the bundle lacks")
            # The label: the bundle vector's cosine with the question (the store's own score is
            # a distance or a similarity depending on the store; ranks are the store's).
            score = float(np.dot(vectors[i], q))
            out.append(d.Hit(kind, i, score, doc))
        return out[:depth]

    def _keyword_hits(self, docs: Sequence[Document], kind: str, depth: int) -> List[d.Hit]:
        out = []
        seen = set()
        for doc in docs:
            if d.is_identity_row(doc.id, doc.metadata):  # a keyword index over the store's rows
                continue
            k, i = self._entry_of(doc)
            if k != kind:
                raise SeamsStoreError(
                    f"the {kind} keyword retriever returned a {k} ({i}): give each kind its own"
                )
            if i in seen:
                continue
            seen.add(i)
            out.append(d.Hit(k, i, 1.0 / (len(out) + 1), doc))
        return out[:depth]

    def _query_vector(self, vector: Sequence[float]) -> Any:
        import numpy as np

        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        dim = int(self.bundle.settings["dim"])
        if q.shape[0] != dim:
            raise ModelMismatchError(
                f"the embeddings gave a {q.shape[0]}-dimensional vector, the bundle's model "
                f"({self.bundle.settings['model']}) has {dim}"
            )
        norm = float(np.linalg.norm(q))
        return q / norm if norm > 0 else q

    def _prefixed(self, query: str) -> str:
        return self.bundle.settings.get("query_prefix", "") + query

    def _combine(
        self,
        query: str,
        q: Any,
        both: Optional[Sequence[Document]],
        chunk_docs: Optional[Sequence[Document]],
        seam_docs: Optional[Sequence[Document]],
        kw_chunks: Optional[Sequence[Document]],
        kw_seams: Optional[Sequence[Document]],
    ) -> SeamsResult:
        depth = int(self.settings["depth"])
        chunk_hits = None if chunk_docs is None else self._hits(chunk_docs, q, depth)
        if both is not None:
            dense = self._hits(both, q, depth)
        else:
            dense = d.merge_dense(chunk_hits or [], self._hits(seam_docs or [], q, depth), depth)
        outcome = d.run(
            self.bundle,
            self.settings,
            query,
            dense,
            None if kw_chunks is None else self._keyword_hits(kw_chunks, "chunk", depth),
            None if kw_seams is None else self._keyword_hits(kw_seams, "seam", depth),
            chunk_hits if self.chunks_only else None,
        )
        outcome.trace["store_search"] = self._search_notes(chunk_hits)
        return outcome

    def _search_notes(self, chunk_hits: Optional[Sequence[d.Hit]]) -> Dict[str, Any]:
        """How the dense searches were made (the trace's ``store_search``): the store, where
        it keeps the identity, how each search filtered the kind and how many rows it asked
        for; ``chunks_short`` when a chunk search filtered after the store's came back with
        fewer than ``depth`` chunks that the bundle has (the bound on its depth cut it)."""
        depth = int(self.settings["depth"])
        main, seams = self._adapter, self._seam_adapter
        if self.seam_store is None:
            searches = {"chunks_and_seams": main.search_note(depth, None)}
            if self.chunks_only:
                searches["chunks"] = main.search_note(depth, "chunk")
        else:
            searches = {"chunks": main.search_note(depth, None), "seams": seams.search_note(depth, None)}
        note: Dict[str, Any] = {
            "store": main.name if seams is main else f"{main.name} + {seams.name}",
            "identity": f"reserved row {d.IDENTITY_ROW_ID!r}" if main.reserved else "collection metadata",
            "searches": searches,
        }
        if chunk_hits is not None and self.seam_store is None:
            if len(chunk_hits) < min(depth, len(self.bundle.chunks)):
                note["chunks_short"] = True
        return note

    def _documents(self, outcome: Any, fetched: Mapping[str, Document]) -> SeamsResult:
        def build(rows: List[Tuple[int, Dict[str, Any]]]) -> List[Document]:
            docs = []
            for chunk_id, meta in rows:
                source = outcome.payloads.get(("chunk", chunk_id))
                if source is None:
                    source = fetched.get(self.chunk_ref[chunk_id])
                if source is None:  # not readable back: the bundle's own text of the chunk
                    text = next(c["text"] for c in self.bundle.chunks if c["id"] == chunk_id)
                    base = {}
                else:
                    text, base = source.page_content, dict(source.metadata or {})
                docs.append(
                    Document(id=self.chunk_ref[chunk_id], page_content=text, metadata={**base, **meta})
                )
            return docs

        result = SeamsResult(
            build(outcome.chunks),
            None if outcome.chunks_only is None else build(outcome.chunks_only),
            outcome.trace,
        )
        self.last_result = result
        return result

    def _unseen(self, outcome: Any) -> List[str]:
        rows = list(outcome.chunks) + list(outcome.chunks_only or [])
        return sorted(
            {self.chunk_ref[c] for c, _ in rows if ("chunk", c) not in outcome.payloads}
        )

    # -- sync ------------------------------------------------------------------------------

    def retrieve(self, query: str) -> SeamsResult:
        """The Seams fill for ``query`` with the chunks-only result and the trace."""
        depth = int(self.settings["depth"])
        t0 = time.perf_counter()
        vector = self._call(self.embeddings.embed_query, self._prefixed(query))
        t1 = time.perf_counter()
        q = self._query_vector(vector)
        vec = [float(x) for x in vector]
        both = chunk_docs = seam_docs = None
        if self.seam_store is None:
            both = self._call(self._adapter.search, vec, depth, None)
            if self.chunks_only:
                chunk_docs = self._call(self._adapter.search, vec, depth, "chunk")
        else:
            chunk_docs = self._call(self._adapter.search, vec, depth, None)
            seam_docs = self._call(self._seam_adapter.search, vec, depth, None)
        kw_chunks = None if self.keyword_chunks is None else self._call(self.keyword_chunks.invoke, query)
        kw_seams = None if self.keyword_seams is None else self._call(self.keyword_seams.invoke, query)
        t2 = time.perf_counter()
        outcome = self._combine(query, q, both, chunk_docs, seam_docs, kw_chunks, kw_seams)
        t3 = time.perf_counter()
        unseen = self._unseen(outcome)
        fetched = self._call(self._adapter.get, unseen) if unseen else {}
        result = self._documents(outcome, fetched)
        result.timings = {"embed": t1 - t0, "store": t2 - t1 + time.perf_counter() - t3, "seams": t3 - t2}
        return result

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> List[Document]:
        return self.retrieve(query).documents

    # -- async -----------------------------------------------------------------------------

    async def aretrieve(self, query: str) -> SeamsResult:
        """:meth:`retrieve`, without blocking the event loop; the searches run concurrently."""
        depth = int(self.settings["depth"])
        vector = await self._acall(self.embeddings.aembed_query(self._prefixed(query)))
        q = self._query_vector(vector)
        vec = [float(x) for x in vector]

        async def none() -> None:
            return None

        if self.seam_store is None:
            first = self._adapter.asearch(vec, depth, None)
            second = self._adapter.asearch(vec, depth, "chunk") if self.chunks_only else none()
        else:
            first = self._adapter.asearch(vec, depth, None)
            second = self._seam_adapter.asearch(vec, depth, None)
        kw_c = none() if self.keyword_chunks is None else self.keyword_chunks.ainvoke(query)
        kw_s = none() if self.keyword_seams is None else self.keyword_seams.ainvoke(query)
        a, b, kw_chunks, kw_seams = await self._acall(asyncio.gather(first, second, kw_c, kw_s))
        if self.seam_store is None:
            outcome = self._combine(query, q, a, b, None, kw_chunks, kw_seams)
        else:
            outcome = self._combine(query, q, None, a, b, kw_chunks, kw_seams)
        unseen = self._unseen(outcome)
        fetched = (
            await self._acall(_in_pool(self._adapter.get, unseen)) if unseen else {}
        )
        return self._documents(outcome, fetched)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> List[Document]:
        return (await self.aretrieve(query)).documents
