"""The LangChain store adapters: the few operations Seams needs from a ``VectorStore`` (read
and record the bundle's identity, read rows back by id, write rows with their own vectors, one
dense search with or without a kind filter), each in the store's own form.

- ``PGVector``, ``Chroma``, ``Milvus``: the identity in the collection's own metadata, the kind
  filter in the store's filter language.
- ``InMemoryVectorStore`` (langchain-core), ``FAISS`` (langchain-community) and any other store
  that keeps documents with ids: the identity as the reserved row ``seamscope-identity``
  (:data:`~seamscope_seams._deploy.IDENTITY_ROW_ID`), read back with ``get_by_ids``. A search
  without a kind filter asks for one row more and drops the reserved row, so it never takes a
  place of the ``depth``. The kind filter: ``InMemoryVectorStore``'s callable over the
  ``Document``; ``FAISS``'s callable over the metadata, which FAISS applies to its ``fetch_k``
  nearest rows (given here as deep as :func:`~seamscope_seams._deploy.fetch_depth` says); any
  other store has no filter this package knows, so the search goes that deep and the kind is
  filtered here.

Every store call's own failure is re-raised as :func:`~seamscope_seams._deploy.store_error`
says: an outage (:class:`StoreUnavailableError`) only for a connection, timeout or I/O failure,
anything else a :class:`SeamsStoreError` naming the store and the call.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from langchain_core.documents import Document
from langchain_core.vectorstores import VectorStore

from . import _deploy as d
from ._deploy import SeamsStoreError, StoreIdentityError

_BATCH = 500


class _Adapter:
    """A store with a known place for the identity and a known kind filter (the base of the
    PGVector, Chroma and Milvus adapters)."""

    #: Whether the identity is the reserved row among the store's own rows.
    reserved = False
    #: How the kind is filtered, for the trace.
    kind_filter = "the store's own filter"

    def __init__(self, store: VectorStore):
        self.store = store
        self.name = type(store).__name__
        #: Rows besides the chunks a chunk search may meet (the bundle's seams and the reserved
        #: row): how much deeper a search filtered afterwards goes. Set by the retriever.
        self.extra_rows = 1

    # -- the store's calls, their failures named -----------------------------------------

    def _store(self, method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self.store, method)(*args, **kwargs)
        except SeamsStoreError:
            raise
        except Exception as e:
            raise d.store_error(e, self.name, method) from e

    # -- identity ------------------------------------------------------------------------

    def missing(self) -> Dict[str, str]:
        """What the store lacks to serve a bundle, by need (``write``: rows added with the
        bundle's ids; ``read``: rows read back by id; ``search``: a similarity search by
        vector): nothing, for a store this package knows."""
        return {}

    def identity(self) -> Optional[Dict[str, Any]]:
        return None

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        raise SeamsStoreError(
            f"{self.name} has no collection-level metadata this package knows how to write: "
            "pass identity= to SeamsRetriever yourself"
        )

    def check_ids_free(self, ids: Sequence[str]) -> None:
        pass

    # -- rows ----------------------------------------------------------------------------

    def get(self, ids: Sequence[str]) -> Dict[str, Document]:
        out: Dict[str, Document] = {}
        for i in range(0, len(ids), _BATCH):
            for doc in self._store("get_by_ids", list(ids[i : i + _BATCH])):
                out[str(doc.id)] = doc
        return out

    def write(self, records: Sequence[d.Record]) -> None:
        if not records:
            return
        for i in range(0, len(records), _BATCH):
            _add(self, records[i : i + _BATCH])

    # -- search --------------------------------------------------------------------------

    def filter_kwargs(self, kind: str) -> Dict[str, Any]:
        return {"filter": {"kind": kind}}

    def search_note(self, k: int, kind: Optional[str]) -> Dict[str, Any]:
        """How a search of ``k`` rows of ``kind`` is made, for the trace."""
        return {"kind_filter": self.kind_filter, "asked": k}

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        kwargs = self.filter_kwargs(kind) if kind else {}
        pairs = self._store("similarity_search_with_score_by_vector", vector, k=k, **kwargs)
        return [doc for doc, _ in pairs]

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        method = getattr(self.store, "asimilarity_search_with_score_by_vector", None)
        if method is None:
            return await d.in_pool(self.search, vector, k, kind)
        kwargs = self.filter_kwargs(kind) if kind else {}
        try:
            pairs = await method(vector, k=k, **kwargs)
        except SeamsStoreError:
            raise
        except Exception as e:
            raise d.store_error(e, self.name, "asimilarity_search_with_score_by_vector") from e
        return [doc for doc, _ in pairs]


def _accepts(fn: Any, name: str) -> bool:
    """Whether ``fn`` takes a keyword ``name`` (or any keyword)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True  # a builtin or a wrapper: it will say so itself
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _names(fn: Any, name: str) -> bool:
    """Whether ``fn`` has a parameter called ``name`` (not merely ``**kwargs``)."""
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _overrides(store: VectorStore, method: str) -> bool:
    """Whether the store implements ``method`` itself (the base ``VectorStore``'s raises)."""
    own = getattr(type(store), method, None)
    return own is not None and own is not getattr(VectorStore, method, None)


def _add(adapter: _Adapter, batch: Sequence[d.Record]) -> None:
    """Write ``batch`` with its own vectors where the store takes them (``add_embeddings``, as
    texts + embeddings or as FAISS's text-embedding pairs), else ``add_documents`` (the store's
    own ``Embeddings`` embeds: it must be the bundle's model)."""
    add_embeddings = getattr(adapter.store, "add_embeddings", None)
    texts = [r.text for r in batch]
    metadatas = [r.metadata for r in batch]
    ids = [r.id for r in batch]
    if add_embeddings is not None and _names(add_embeddings, "text_embeddings"):
        pairs = list(zip(texts, [r.vector for r in batch]))
        adapter._store("add_embeddings", text_embeddings=pairs, metadatas=metadatas, ids=ids)
    elif add_embeddings is not None:
        adapter._store(
            "add_embeddings",
            texts=texts,
            embeddings=[r.vector for r in batch],
            metadatas=metadatas,
            ids=ids,
        )
    else:
        docs = [Document(page_content=r.text, metadata=r.metadata, id=r.id) for r in batch]
        adapter._store("add_documents", docs, ids=ids)


# ---------------------------------------------------------------------------------------------
# Stores without collection-level metadata: the reserved identity row


class _Reserved(_Adapter):
    """Any ``VectorStore`` that keeps documents with ids: the identity as the reserved row
    (read back with ``get_by_ids``), writes that skip the ids already there (a store may only
    append), and a search whose kind is filtered here, after a deeper search."""

    reserved = True
    kind_filter = "filtered after the search (no store filter this package knows)"

    def missing(self) -> Dict[str, str]:
        store, out = self.store, {}
        adds = getattr(store, "add_embeddings", None)
        if adds is not None:
            if not _accepts(adds, "ids"):
                out["write"] = "add_embeddings that takes ids= (rows written with the bundle's ids)"
        elif not (
            (_overrides(store, "add_documents") and _accepts(store.add_documents, "ids"))
            or (_overrides(store, "add_texts") and _accepts(store.add_texts, "ids"))
        ):
            out["write"] = "add_embeddings, add_documents or add_texts that takes ids="
        if not _overrides(store, "get_by_ids"):
            out["read"] = "get_by_ids (rows read back by id: the identity row, the seams' chunks)"
        if not (
            hasattr(store, "similarity_search_with_score_by_vector")
            or _overrides(store, "similarity_search_by_vector")
        ):
            out["search"] = "similarity_search_with_score_by_vector or similarity_search_by_vector"
        return out

    def identity(self) -> Optional[Dict[str, Any]]:
        row = self.get([d.IDENTITY_ROW_ID]).get(d.IDENTITY_ROW_ID)
        return None if row is None else d.identity_of_row(row.metadata)

    def write_identity(self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None) -> None:
        row = d.identity_row(ident, vector or d.identity_vector(None, int(ident["dim"])))
        present = self.get([row.id]).get(row.id)
        if present is not None:
            if d.identity_of_row(present.metadata) == dict(ident):
                return
            self._replace(row)
        else:
            self._put([row])

    def _replace(self, row: d.Record) -> None:
        """Put ``row`` in place of the row with its id (delete, then add)."""
        if _overrides(self.store, "delete"):
            self._store("delete", ids=[row.id])
        self._put([row])

    def _put(self, records: Sequence[d.Record]) -> None:
        _add(self, records)

    def write(self, records: Sequence[d.Record]) -> None:
        present = set(self.get([r.id for r in records]))
        fresh = [r for r in records if r.id not in present]
        for i in range(0, len(fresh), _BATCH):
            self._put(fresh[i : i + _BATCH])

    def _kept(self, docs: Sequence[Document], kind: Optional[str]) -> List[Document]:
        return [
            doc
            for doc in docs
            if not d.is_identity_row(doc.id, doc.metadata)
            and (kind is None or (doc.metadata or {}).get("kind") == kind)
        ]

    def _deeper(self, k: int) -> int:
        return d.fetch_depth(k, self.extra_rows)

    def search_note(self, k: int, kind: Optional[str]) -> Dict[str, Any]:
        if kind is None:  # one row more: the reserved row cannot take a place
            return {"kind_filter": "none (the reserved row dropped)", "asked": k + 1}
        return {"kind_filter": self.kind_filter, "asked": self._deeper(k)}

    def _raw(self, vector: List[float], k: int) -> List[Document]:
        if hasattr(self.store, "similarity_search_with_score_by_vector"):
            pairs = self._store("similarity_search_with_score_by_vector", vector, k=k)
            return [doc for doc, _ in pairs]
        return list(self._store("similarity_search_by_vector", vector, k=k))

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        return self._kept(self._raw(vector, self.search_note(k, kind)["asked"]), kind)[:k]

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        return await d.in_pool(self.search, vector, k, kind)


class _InMemory(_Reserved):
    """langchain-core ``InMemoryVectorStore``: rows written into its ``store`` dict with their
    own vectors (its ``add_documents`` would embed them); the kind filter its callable over the
    ``Document`` (exact: it filters before ranking)."""

    kind_filter = "the store's own filter (a callable over the Document)"

    def missing(self) -> Dict[str, str]:
        return {}

    def _put(self, records: Sequence[d.Record]) -> None:
        rows = getattr(self.store, "store", None)
        if not isinstance(rows, dict):
            raise SeamsStoreError(
                f"{self.name} keeps no `store` dict of rows (a langchain-core version this "
                "package does not know)"
            )
        for r in records:
            rows[r.id] = {"id": r.id, "vector": list(r.vector), "text": r.text, "metadata": dict(r.metadata)}

    def write(self, records: Sequence[d.Record]) -> None:
        self._put(records)  # a dict: same ids upserted

    def _replace(self, row: d.Record) -> None:
        self._put([row])

    def search_note(self, k: int, kind: Optional[str]) -> Dict[str, Any]:
        if kind is None:
            return super().search_note(k, kind)
        return {"kind_filter": self.kind_filter, "asked": k}

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        if kind is None:
            return super().search(vector, k, kind)

        def wanted(doc: Document) -> bool:
            return (doc.metadata or {}).get("kind") == kind

        pairs = self._store("similarity_search_with_score_by_vector", vector, k=k, filter=wanted)
        return self._kept([doc for doc, _ in pairs], kind)[:k]


class _FAISS(_Reserved):
    """langchain-community ``FAISS``: rows added with ``add_embeddings`` (text-embedding
    pairs; ids already there skipped: FAISS refuses them, after adding their vectors); the kind
    filter FAISS's own callable over the metadata, which it applies to its ``fetch_k`` nearest
    rows, so ``fetch_k`` is given as deep as a filter afterwards would go."""

    def __init__(self, store: VectorStore):
        super().__init__(store)
        index = getattr(store, "index", None)
        self.name = f"FAISS index ({type(index).__name__})" if index is not None else "FAISS index"

    def missing(self) -> Dict[str, str]:
        return {}

    def _put(self, records: Sequence[d.Record]) -> None:
        pairs = [(r.text, list(r.vector)) for r in records]
        self._store(
            "add_embeddings",
            text_embeddings=pairs,
            metadatas=[dict(r.metadata) for r in records],
            ids=[r.id for r in records],
        )

    def search_note(self, k: int, kind: Optional[str]) -> Dict[str, Any]:
        if kind is None:
            return super().search_note(k, kind)
        return {"kind_filter": "FAISS's own filter over its fetch_k nearest rows", "asked": k,
                "fetch_k": self._deeper(k)}

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        if kind is None:
            return super().search(vector, k, kind)

        def wanted(metadata: Mapping[str, Any]) -> bool:
            return (metadata or {}).get("kind") == kind

        pairs = self._store(
            "similarity_search_with_score_by_vector",
            vector,
            k=k,
            filter=wanted,
            fetch_k=self._deeper(k),
        )
        return self._kept([doc for doc, _ in pairs], kind)[:k]


# ---------------------------------------------------------------------------------------------
# Stores with collection-level metadata


class _PGVector(_Adapter):
    """langchain-postgres ``PGVector``: the identity in the collection's ``cmetadata``."""

    name = "the PGVector collection"

    def __init__(self, store: VectorStore):
        super().__init__(store)
        self.name = f"PGVector collection {store.collection_name!r}"

    def _collection(self, session: Any) -> Any:
        collection = self.store.get_collection(session)
        if collection is None:
            raise StoreIdentityError(f"{self.name} does not exist")
        return collection

    def identity(self) -> Optional[Dict[str, Any]]:
        with self.store._make_sync_session() as session:
            return dict(self._collection(session).cmetadata or {})

    def write_identity(
        self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None
    ) -> None:
        with self.store._make_sync_session() as session:
            collection = self._collection(session)
            collection.cmetadata = {**(collection.cmetadata or {}), **ident}
            session.commit()

    def check_ids_free(self, ids: Sequence[str]) -> None:
        # Row ids are the table's primary key across every collection: a row of another
        # collection with the same id would be overwritten in place (and stay in that one).
        from sqlalchemy import select

        table = self.store.EmbeddingStore
        with self.store._make_sync_session() as session:
            uuid = self._collection(session).uuid
            for i in range(0, len(ids), _BATCH):
                row = session.execute(
                    select(table.id, table.collection_id)
                    .where(table.id.in_(list(ids[i : i + _BATCH])))
                    .where(table.collection_id != uuid)
                    .limit(1)
                ).first()
                if row is not None:
                    raise SeamsStoreError(
                        f"row {row[0]!r} already belongs to another collection of this database "
                        f"(langchain_pg_embedding.id is one primary key for all collections): "
                        f"put each bundle in a database (or schema) of its own"
                    )

    def filter_kwargs(self, kind: str) -> Dict[str, Any]:
        return {"filter": {"kind": {"$eq": kind}}}

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        if getattr(self.store, "_async_engine", None) is None:  # a sync engine: its own thread
            return await d.in_pool(self.search, vector, k, kind)
        return await super().asearch(vector, k, kind)


class _Chroma(_Adapter):
    """langchain-chroma ``Chroma``: the identity in the collection's metadata (scalars)."""

    def __init__(self, store: VectorStore):
        super().__init__(store)
        self.name = f"Chroma collection {store._collection.name!r}"

    def identity(self) -> Optional[Dict[str, Any]]:
        meta = dict(self.store._collection.metadata or {})
        raw = meta.get("seamscope")
        return json.loads(raw) if isinstance(raw, str) else None

    def write_identity(
        self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None
    ) -> None:
        collection = self.store._collection
        meta = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith("hnsw:")}
        meta["seamscope"] = json.dumps(dict(ident), sort_keys=True)
        collection.modify(metadata=meta)

    def get(self, ids: Sequence[str]) -> Dict[str, Document]:
        out: Dict[str, Document] = {}
        for i in range(0, len(ids), _BATCH):
            got = self.store._collection.get(
                ids=list(ids[i : i + _BATCH]), include=["metadatas", "documents"]
            )
            for row_id, text, meta in zip(got["ids"], got["documents"], got["metadatas"]):
                out[row_id] = Document(id=row_id, page_content=text or "", metadata=meta or {})
        return out

    def write(self, records: Sequence[d.Record]) -> None:
        for i in range(0, len(records), _BATCH):
            batch = records[i : i + _BATCH]
            self.store._collection.upsert(
                ids=[r.id for r in batch],
                embeddings=[r.vector for r in batch],
                documents=[r.text for r in batch],
                metadatas=[r.metadata for r in batch],
            )

    def search(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        kwargs = self.filter_kwargs(kind) if kind else {}
        pairs = self._store(
            "similarity_search_by_vector_with_relevance_scores", vector, k=k, **kwargs
        )
        return [doc for doc, _ in pairs]

    async def asearch(self, vector: List[float], k: int, kind: Optional[str]) -> List[Document]:
        return await d.in_pool(self.search, vector, k, kind)


class _Milvus(_Adapter):
    """langchain-milvus ``Milvus``: the identity in the collection's properties; metadata keys
    as dynamic fields (``enable_dynamic_field=True``); writes skip ids already there."""

    def __init__(self, store: VectorStore):
        super().__init__(store)
        self.name = f"Milvus collection {store.collection_name!r}"

    def identity(self) -> Optional[Dict[str, Any]]:
        client, name = self.store.client, self.store.collection_name
        if not client.has_collection(name):
            return None
        described = client.describe_collection(name)
        raw = (described.get("properties") or {}).get("seamscope")
        return json.loads(raw) if isinstance(raw, str) else None

    def write_identity(
        self, ident: Mapping[str, Any], vector: Optional[Sequence[float]] = None
    ) -> None:
        self.store.client.alter_collection_properties(
            self.store.collection_name,
            properties={"seamscope": json.dumps(dict(ident), sort_keys=True)},
        )

    def get(self, ids: Sequence[str]) -> Dict[str, Document]:
        client, name = self.store.client, self.store.collection_name
        if not ids or not client.has_collection(name):
            return {}
        out: Dict[str, Document] = {}
        pk = self.store._primary_field
        for i in range(0, len(ids), _BATCH):
            rows = client.get(name, ids=list(ids[i : i + _BATCH]), output_fields=["*"])
            for row in rows:
                row = dict(row)
                row_id = str(row.pop(pk))
                doc = self.store._parse_document(row)
                doc.id = row_id
                out[row_id] = doc
        return out

    def write(self, records: Sequence[d.Record]) -> None:
        present = set(self.get([r.id for r in records]))
        fresh = [r for r in records if r.id not in present]
        for i in range(0, len(fresh), _BATCH):
            batch = fresh[i : i + _BATCH]
            self.store.add_embeddings(
                texts=[r.text for r in batch],
                embeddings=[r.vector for r in batch],
                metadatas=[r.metadata for r in batch],
                ids=[r.id for r in batch],
            )

    def filter_kwargs(self, kind: str) -> Dict[str, Any]:
        return {"expr": f'kind == "{kind}"'}


def adapter_for(store: VectorStore) -> _Adapter:
    """The adapter for ``store``: by class (along its MRO) for the stores this package knows,
    else the reserved-row adapter."""
    for cls in type(store).__mro__:
        module, name = cls.__module__, cls.__name__
        if name == "PGVector" and module.startswith("langchain_postgres"):
            return _PGVector(store)
        if name == "Chroma" and module.startswith("langchain_chroma"):
            return _Chroma(store)
        if name == "Milvus" and module.startswith("langchain_milvus"):
            return _Milvus(store)
        if name == "InMemoryVectorStore" and module.startswith("langchain_core"):
            return _InMemory(store)
        if name == "FAISS" and module.startswith("langchain_community"):
            return _FAISS(store)
    return _Reserved(store)


def check_capable(adapter: _Adapter, needs: Sequence[str] = ("write", "read", "search")) -> None:
    """Refuse a store that lacks what ``needs`` asks (``write``, ``read``, ``search``; see
    :meth:`_Adapter.missing`), before anything is written."""
    missing = [what for need, what in adapter.missing().items() if need in needs]
    if missing:
        raise SeamsStoreError(
            f"{adapter.name} cannot serve a seamscope bundle: it has no {'; no '.join(missing)} "
            "(nothing was written)"
        )
