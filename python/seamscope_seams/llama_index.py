"""Seams inside a LlamaIndex pipeline: :class:`SeamsRetriever` (a LlamaIndex ``BaseRetriever``
returning ``NodeWithScore``\\ s) over your vector store or ``VectorStoreIndex``, and
:func:`add_bundle` / :func:`add_seams` to write a bundle's chunks and seams as nodes with their
own embeddings (nothing re-embedded).

The stages are the Rust ``seams`` crate's (through :meth:`seamscope_seams.Bundle.apply`); this
module runs the store's searches (``vector_store.query`` with the question's embedding and a
``kind`` metadata filter) and maps the fill back to nodes. The node ids, texts and metadata are
the shared layout's (``chunk-<N>`` / ``seam-<N>``, ``kind``, ``id``, ``document``, ``start``,
``end``, ``left``, ``right``). The store's identity (model, dim, ``k``): in a Chroma collection's
metadata (``ChromaVectorStore``); for ``PGVectorStore`` (its own ``data_<table>`` table, not the
LangChain layout) in the table ``seamscope_identity (table_name text primary key, identity
jsonb)`` beside it, in the same schema; in ``SimpleVectorStore`` (in memory: no text kept, no
``get_nodes``; read from its own dicts) and any other store that keeps nodes and reads them back
by id (``get_nodes``) as the reserved node ``seamscope-identity``, which a search without a kind
filter asks one row more for and drops. A store without ``get_nodes`` or whose queries return no
nodes is refused before anything is written.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.vector_stores.types import (
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)

from . import Bundle
from . import _deploy as d
from ._deploy import (  # noqa: F401  (re-exported)
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


def _vector_store(store_or_index: Any) -> Any:
    return getattr(store_or_index, "vector_store", store_or_index)


def _node(r: d.Record) -> TextNode:
    return TextNode(id_=r.id, text=r.text, metadata=r.metadata, embedding=list(r.vector))


class _Adapter:
    """A store with a known place for the identity (the base of the PGVectorStore and Chroma
    adapters): the kind filter LlamaIndex's ``MetadataFilters``, which its stores translate."""

    #: Whether the identity is the reserved node among the store's own.
    reserved = False

    def __init__(self, store: Any):
        self.store = store
        self.name = type(store).__name__

    def _store(self, method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self.store, method)(*args, **kwargs)
        except SeamsStoreError:
            raise
        except Exception as e:
            raise d.store_error(e, self.name, method) from e

    def missing(self) -> Dict[str, str]:
        """What the store lacks to serve a bundle (``read``: nodes read back by id; ``search``:
        a query that returns the nodes): nothing, for a store this package knows."""
        return {}

    def identity(self) -> Optional[Dict[str, Any]]:
        return None

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        raise SeamsStoreError(
            f"{self.name} has no place this package knows for the bundle's identity: pass "
            "identity= to SeamsRetriever yourself"
        )

    def get(self, ids: Sequence[str]) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for i in range(0, len(ids), _BATCH):
            for node in self._store("get_nodes", node_ids=list(ids[i : i + _BATCH])):
                out[node.node_id] = node
        return out

    def write(self, records: Sequence[d.Record]) -> None:
        present = set(self.get([r.id for r in records]))  # add() appends: skip what is there
        fresh = [r for r in records if r.id not in present]
        for i in range(0, len(fresh), _BATCH):
            self._store("add", [_node(r) for r in fresh[i : i + _BATCH]])

    def _query(self, vector: List[float], k: int, kind: Optional[str]) -> VectorStoreQuery:
        filters = None
        if kind:
            filters = MetadataFilters(filters=[MetadataFilter(key="kind", value=kind)])
        return VectorStoreQuery(query_embedding=vector, similarity_top_k=k, filters=filters)

    def _asked(self, k: int, kind: Optional[str]) -> int:
        """Rows to ask for: one more without a kind filter where the reserved node may come
        back (it is dropped, and must not take a place of the ``k``)."""
        return k + 1 if self.reserved and kind is None else k

    def _kept(self, nodes: Sequence[Any]) -> List[Any]:
        return [
            n for n in nodes
            if not d.is_identity_row(getattr(n, "node_id", None), getattr(n, "metadata", None))
        ]

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Any]:
        result = self._store("query", self._query(vector, self._asked(k, kind), kind))
        return self._kept(result.nodes or [])[:k]

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Any]:
        try:
            result = await self.store.aquery(self._query(vector, self._asked(k, kind), kind))
        except SeamsStoreError:
            raise
        except Exception as e:
            raise d.store_error(e, self.name, "aquery") from e
        return self._kept(result.nodes or [])[:k]


class _Reserved(_Adapter):
    """Any other LlamaIndex vector store that keeps nodes (``stores_text``) and reads them back
    by id (``get_nodes``): the identity as the reserved node ``seamscope-identity``."""

    reserved = True

    def missing(self) -> Dict[str, str]:
        from llama_index.core.vector_stores.types import BasePydanticVectorStore

        out = {}
        own = getattr(type(self.store), "get_nodes", None)
        if own is None or own is getattr(BasePydanticVectorStore, "get_nodes", None):
            out["read"] = "get_nodes (nodes read back by id: the identity node, the seams' chunks)"
        if not getattr(self.store, "stores_text", False):
            out["search"] = "query results with their nodes (stores_text is False)"
        return out

    def identity(self) -> Optional[Dict[str, Any]]:
        node = self.get([d.IDENTITY_ROW_ID]).get(d.IDENTITY_ROW_ID)
        return None if node is None else d.identity_of_row(node.metadata)

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        row = d.identity_row(ident, vector or d.identity_vector(None, int(ident["dim"])))
        present = self.get([row.id]).get(row.id)
        if present is not None:
            if d.identity_of_row(present.metadata) == dict(ident):
                return
            self._store("delete_nodes", node_ids=[row.id])
        self._store("add", [_node(row)])


class _Simple(_Adapter):
    """LlamaIndex's in-memory ``SimpleVectorStore``: it keeps each node's embedding and
    metadata but not its text, has no ``get_nodes`` and answers a query with ids and
    similarities only; rows are read from its own dicts (the text is the bundle's), the identity
    is the reserved node's metadata, the kind filter its ``MetadataFilters`` (exact: it filters
    before ranking)."""

    reserved = True

    def _data(self) -> Any:
        return self.store.data

    def _node_of(self, node_id: str) -> TextNode:
        meta = dict(self._data().metadata_dict.get(node_id) or {})
        for key in ("_node_type", "_node_content", "document_id", "doc_id", "ref_doc_id"):
            meta.pop(key, None)
        return TextNode(id_=node_id, text="", metadata=meta)

    def get(self, ids: Sequence[str]) -> Dict[str, Any]:
        have = self._data().embedding_dict
        return {i: self._node_of(i) for i in ids if i in have}

    def identity(self) -> Optional[Dict[str, Any]]:
        return d.identity_of_row(self._data().metadata_dict.get(d.IDENTITY_ROW_ID))

    def write(self, records: Sequence[d.Record]) -> None:
        for i in range(0, len(records), _BATCH):  # add() keys by node id: same ids replaced
            self._store("add", [_node(r) for r in records[i : i + _BATCH]])

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        row = d.identity_row(ident, vector or d.identity_vector(None, int(ident["dim"])))
        self._store("add", [_node(row)])

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Any]:
        result = self._store("query", self._query(vector, self._asked(k, kind), kind))
        nodes = [self._node_of(i) for i in (result.ids or [])]
        return self._kept(nodes)[:k]

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Any]:
        return await _in_pool(self.search, vector, k, kind)


def _check_capable(adapter: _Adapter, needs: Sequence[str] = ("read", "search")) -> None:
    missing = [what for need, what in adapter.missing().items() if need in needs]
    if missing:
        raise SeamsStoreError(
            f"{adapter.name} cannot serve a seamscope bundle: it has no {'; no '.join(missing)} "
            "(nothing was written)"
        )


class _PGVectorStore(_Adapter):
    def __init__(self, store: Any):
        super().__init__(store)
        self.name = f"PGVectorStore table {store.schema_name}.data_{store.table_name}"

    def _sql(self, statement: str, **params: Any) -> List[Any]:
        """Run ``statement`` (after creating the identity table if needed); its rows, if any."""
        from sqlalchemy import text

        self.store._initialize()
        with self.store._engine.begin() as conn:
            conn.execute(
                text(
                    f'CREATE TABLE IF NOT EXISTS "{self.store.schema_name}".seamscope_identity '
                    "(table_name text PRIMARY KEY, identity jsonb NOT NULL)"
                )
            )
            result = conn.execute(text(statement), params)
            return result.fetchall() if result.returns_rows else []

    def identity(self) -> Optional[Dict[str, Any]]:
        rows = self._sql(
            f'SELECT identity FROM "{self.store.schema_name}".seamscope_identity '
            "WHERE table_name = :t",
            t=self.store.table_name,
        )
        return dict(rows[0][0]) if rows else None

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        self._sql(
            f'INSERT INTO "{self.store.schema_name}".seamscope_identity (table_name, identity) '
            "VALUES (:t, CAST(:i AS jsonb)) ON CONFLICT (table_name) DO UPDATE "
            "SET identity = EXCLUDED.identity",
            t=self.store.table_name,
            i=json.dumps(dict(ident), sort_keys=True),
        )


class _Chroma(_Adapter):
    def __init__(self, store: Any):
        super().__init__(store)
        self.name = f"Chroma collection {store._collection.name!r}"

    def identity(self) -> Optional[Dict[str, Any]]:
        raw = (self.store._collection.metadata or {}).get("seamscope")
        return json.loads(raw) if isinstance(raw, str) else None

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        collection = self.store._collection
        meta = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith("hnsw:")}
        meta["seamscope"] = json.dumps(dict(ident), sort_keys=True)
        collection.modify(metadata=meta)

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Any]:
        return await _in_pool(self.search, vector, k, kind)


def _adapter(store: Any) -> _Adapter:
    store = _vector_store(store)
    name = type(store).__name__
    if name == "PGVectorStore":
        return _PGVectorStore(store)
    if name == "ChromaVectorStore":
        return _Chroma(store)
    if name == "SimpleVectorStore" and type(store).__module__.startswith("llama_index.core"):
        return _Simple(store)
    return _Reserved(store)


def store_identity(store: Any) -> Optional[Dict[str, Any]]:
    """The seamscope identity the store (or index) records, or ``None``."""
    return _adapter(store).identity()


def _check_writable(adapter: _Adapter, bundle: Bundle) -> None:
    d.check_writable(adapter, bundle, "store")


def add_bundle(store: Any, bundle: Bundle) -> Dict[str, int]:
    """Write ``bundle``'s chunks and seams as nodes with their own embeddings, ids and
    metadata into ``store`` (a vector store or a ``VectorStoreIndex``), then its identity.
    Idempotent: nodes already there (same id) are skipped."""
    adapter = _adapter(store)
    _check_capable(adapter)
    _check_writable(adapter, bundle)
    adapter.write(d.chunk_records(bundle) + d.seam_records(bundle))
    adapter.write_identity(d.identity(bundle), d.identity_vector(bundle, int(bundle.settings["dim"])))
    return {"chunks": len(bundle.chunks), "seams": len(bundle.seams)}


def add_seams(
    store: Any,
    bundle: Bundle,
    *,
    chunk_ids: Optional[Mapping[int, str]] = None,
    nodes: Optional[Sequence[Any]] = None,
    document_key: str = "source",
    start_key: str = "start_index",
) -> Dict[int, str]:
    """Add only the seams beside chunks the store already holds (nothing re-embedded): which
    node holds which bundle chunk from ``chunk_ids`` (bundle id -> node id) or ``nodes`` (your
    chunk nodes, matched by ``document_key`` / ``start_key`` metadata), else the bundle's own
    ``chunk-<N>`` ids. Idempotent; returns the mapping used."""
    adapter = _adapter(store)
    _check_capable(adapter)
    _check_writable(adapter, bundle)
    if chunk_ids is not None and nodes is not None:
        raise TypeError("add_seams takes chunk_ids or nodes, not both")
    if nodes is not None:
        refs = d.match_chunks_by_span(
            bundle, [(n.node_id, n.metadata) for n in nodes], document_key, start_key
        )
    elif chunk_ids is not None:
        refs = {int(k): str(v) for k, v in chunk_ids.items()}
    else:
        refs = None
    return d.write_seams(adapter, bundle, refs, "node", check_ids_free=False)


class SeamsRetriever(BaseRetriever):
    """A LlamaIndex retriever running a bundle's Seams over a vector store (or the vector store
    of a ``VectorStoreIndex``): ``retrieve`` returns the budget's chunks as ``NodeWithScore``\\ s
    in fill order (score: the fused RRF score of the entry that brought the chunk in), metadata
    as in :mod:`seamscope_seams.langchain`; ``last_trace`` and ``last_chunks_only`` hold the
    latest trace and chunks-only nodes. Build it with :meth:`from_bundle`."""

    def __init__(
        self,
        bundle: Bundle,
        vector_store: Any,
        embed_model: Any,
        settings: Mapping[str, Any],
        keyword_chunks: Any = None,
        keyword_seams: Any = None,
        chunk_ref: Optional[Mapping[int, str]] = None,
        chunks_only: bool = True,
        timeout: Optional[float] = 30.0,
    ):
        super().__init__()
        self.bundle = bundle
        self.vector_store = vector_store
        self.embed_model = embed_model
        self.settings = dict(settings)
        self.keyword_chunks = keyword_chunks
        self.keyword_seams = keyword_seams
        self.chunk_ref = dict(chunk_ref or {c["id"]: d.chunk_row_id(c["id"]) for c in bundle.chunks})
        own = self.chunk_ref == {c["id"]: d.chunk_row_id(c["id"]) for c in bundle.chunks}
        self.chunks_only = chunks_only and own
        self.timeout = timeout
        self._adapter = _adapter(vector_store)
        self._row_to_chunk = {row: c for c, row in self.chunk_ref.items()}
        self._chunk_text = {int(c["id"]): c["text"] for c in bundle.chunks}
        self.last_trace: Optional[Dict[str, Any]] = None
        self.last_chunks_only: Optional[List[NodeWithScore]] = None

    @classmethod
    def from_bundle(
        cls,
        bundle: Bundle,
        vector_store: Any,
        keyword_retrievers: Optional[Mapping[str, Any]] = None,
        *,
        embed_model: Any = None,
        chunk_ids: Optional[Mapping[int, str]] = None,
        identity: Optional[Mapping[str, Any]] = None,
        chunks_only: bool = True,
        timeout: Optional[float] = 30.0,
        verify: bool = True,
        **settings: Any,
    ) -> "SeamsRetriever":
        """As :meth:`seamscope_seams.langchain.SeamsRetriever.from_bundle`: ``vector_store`` a
        LlamaIndex vector store or ``VectorStoreIndex``, ``embed_model`` a LlamaIndex
        ``BaseEmbedding`` of the bundle's model (default: the index's), ``keyword_retrievers``
        LlamaIndex retrievers ``{"chunks": ..., "seams": ...}`` whose nodes carry kind / id."""
        resolved = d.resolve_settings(bundle, settings)
        if embed_model is None:
            embed_model = getattr(vector_store, "_embed_model", None)
            if embed_model is None:
                raise TypeError("give embed_model= (the bundle's model)")
        kw = dict(keyword_retrievers or {})
        extra = sorted(set(kw) - {"chunks", "seams"})
        if extra:
            raise TypeError(f"keyword_retrievers takes keys chunks and seams, not {extra}")
        retriever = cls(
            bundle,
            _vector_store(vector_store),
            embed_model,
            resolved,
            kw.get("chunks"),
            kw.get("seams"),
            chunk_ids,
            chunks_only,
            timeout,
        )
        _check_capable(retriever._adapter, ("read", "search") if identity is None or verify else ("search",))
        found = identity if identity is not None else retriever._call(retriever._adapter.identity)
        d.check_identity(found, bundle, retriever._adapter.name)
        if verify:
            seams = retriever._call(
                retriever._adapter.get, [d.seam_row_id(s["id"]) for s in bundle.seams]
            )
            linked = sorted({c for s in bundle.seams for c in (s["left"], s["right"])})
            missing = [c for c in linked if c not in retriever.chunk_ref]
            if missing:
                raise MissingChunksError(f"chunk_ids gives no node for chunk {missing[0]}")
            present = retriever._call(
                retriever._adapter.get, [retriever.chunk_ref[c] for c in linked]
            )
            d.check_rows(
                bundle,
                {row: node.metadata for row, node in seams.items()},
                list(present),
                retriever.chunk_ref,
                retriever._adapter.name,
            )
        return retriever

    def _call(self, fn: Any, *args: Any) -> Any:
        return d.call_bounded(fn, args, self.timeout, name_call=False)

    async def _acall(self, coro: Any) -> Any:
        return await d.acall_bounded(coro, self.timeout)

    def _entry_of(self, node: Any) -> Tuple[str, int]:
        node = getattr(node, "node", node)
        meta = node.metadata or {}
        kind = meta.get("kind")
        if kind in ("chunk", "seam") and isinstance(meta.get("id"), int):
            return kind, int(meta["id"])
        row = node.node_id
        if row in self._row_to_chunk:
            return "chunk", self._row_to_chunk[row]
        for prefix, k in (("chunk-", "chunk"), ("seam-", "seam")):
            if row.startswith(prefix) and row[len(prefix) :].isdigit():
                return k, int(row[len(prefix) :])
        raise SeamsStoreError(
            f"a hit (node {row!r}) is neither a bundle chunk nor a seam: no kind/id metadata "
            "and no node id this retriever knows (chunk_ids)"
        )

    def _hits(self, nodes: Sequence[Any], q: Any, kind: Optional[str] = None) -> List[d.Hit]:
        import numpy as np

        out, seen = [], set()
        for node in nodes:
            inner = getattr(node, "node", node)
            if d.is_identity_row(getattr(inner, "node_id", None), getattr(inner, "metadata", None)):
                continue  # the reserved identity node is never a result
            k, i = self._entry_of(node)
            if kind is not None and k != kind:
                raise SeamsStoreError(f"the {kind} keyword retriever returned a {k} ({i})")
            if (k, i) in seen:
                continue
            seen.add((k, i))
            if kind is None:
                vectors = self.bundle.chunk_vectors if k == "chunk" else self.bundle.seam_vectors
                score = float(np.dot(vectors[i], q))
            else:
                score = 1.0 / (len(out) + 1)
            out.append(d.Hit(k, i, score, getattr(node, "node", node)))
        return out[: int(self.settings["depth"])]

    def _q(self, vector: Sequence[float]) -> Any:
        import numpy as np

        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != int(self.bundle.settings["dim"]):
            raise ModelMismatchError(
                f"the embed model gave a {q.shape[0]}-dimensional vector, the bundle's model "
                f"({self.bundle.settings['model']}) has {self.bundle.settings['dim']}"
            )
        n = float(np.linalg.norm(q))
        return q / n if n > 0 else q

    def _finish(self, query: str, q: Any, both, chunk_nodes, kw_c, kw_s, fetched_fn) -> List[NodeWithScore]:
        outcome = d.run(
            self.bundle,
            self.settings,
            query,
            self._hits(both, q),
            None if kw_c is None else self._hits(kw_c, q, "chunk"),
            None if kw_s is None else self._hits(kw_s, q, "seam"),
            None if chunk_nodes is None else self._hits(chunk_nodes, q),
        )
        rows = list(outcome.chunks) + list(outcome.chunks_only or [])
        unseen = sorted({self.chunk_ref[c] for c, _ in rows if ("chunk", c) not in outcome.payloads})
        fetched = fetched_fn(unseen) if unseen else {}
        fused = {
            (next(iter(e["entry"])), next(iter(e["entry"].values()))): e["score"]
            for e in outcome.trace["fused"]
        }
        trace = outcome.trace

        def build(items, fill):
            out = []
            steps = {s["position"]: s for s in fill["steps"]}
            for chunk_id, meta in items:
                source = outcome.payloads.get(("chunk", chunk_id)) or fetched.get(self.chunk_ref[chunk_id])
                # A store that keeps no text (SimpleVectorStore) gives back empty nodes: the
                # bundle's own text of the chunk then.
                text = (source.get_content() if source is not None else "") or self._chunk_text[chunk_id]
                base = dict(source.metadata) if source is not None else {}
                entry = steps[meta["fused_position"]]["entry"]
                score = fused.get((next(iter(entry)), next(iter(entry.values()))), 0.0)
                node = TextNode(id_=self.chunk_ref[chunk_id], text=text, metadata={**base, **meta})
                out.append(NodeWithScore(node=node, score=float(score)))
            return out

        self.last_trace = trace
        retrieval = (trace.get("without_seams") or {}).get("retrieval")
        self.last_chunks_only = None if outcome.chunks_only is None else build(outcome.chunks_only, retrieval["fill"])
        return build(outcome.chunks, trace["fill"])

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        query = query_bundle.query_str
        depth = int(self.settings["depth"])
        vector = query_bundle.embedding or self._call(
            self.embed_model.get_query_embedding, self.bundle.settings.get("query_prefix", "") + query
        )
        q = self._q(vector)
        vec = [float(x) for x in vector]
        both = self._call(self._adapter.search, vec, depth, None)
        chunk_nodes = self._call(self._adapter.search, vec, depth, "chunk") if self.chunks_only else None
        kw_c = None if self.keyword_chunks is None else self._call(self.keyword_chunks.retrieve, query)
        kw_s = None if self.keyword_seams is None else self._call(self.keyword_seams.retrieve, query)
        return self._finish(query, q, both, chunk_nodes, kw_c, kw_s, lambda ids: self._call(self._adapter.get, ids))

    async def _aretrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        query = query_bundle.query_str
        depth = int(self.settings["depth"])
        vector = query_bundle.embedding or await self._acall(
            self.embed_model.aget_query_embedding(self.bundle.settings.get("query_prefix", "") + query)
        )
        q = self._q(vector)
        vec = [float(x) for x in vector]

        async def none() -> None:
            return None

        both, chunk_nodes, kw_c, kw_s = await self._acall(
            asyncio.gather(
                self._adapter.asearch(vec, depth, None),
                self._adapter.asearch(vec, depth, "chunk") if self.chunks_only else none(),
                none() if self.keyword_chunks is None else self.keyword_chunks.aretrieve(query),
                none() if self.keyword_seams is None else self.keyword_seams.aretrieve(query),
            )
        )
        # A chunk a fired seam brought that no search returned is read back by id (rare; the
        # call runs in the store pool, bounded by the timeout).
        return self._finish(
            query, q, both, chunk_nodes, kw_c, kw_s, lambda ids: self._call(self._adapter.get, ids)
        )
