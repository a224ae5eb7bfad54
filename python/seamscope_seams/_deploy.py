"""What the LangChain and LlamaIndex retrievers share: the records a bundle puts into a store
(ids, texts, metadata, vectors), the identity a store records (model, dimension, ``k``), the checks
that refuse a store that cannot serve the bundle, and one query's Seams stage (the bundle's
:meth:`~seamscope_seams.Bundle.apply`, nothing re-implemented) with the fill mapped back to chunks.

The layout (shared with ``seamscope --store pgvector:URL``): row ids ``chunk-<N>`` / ``seam-<N>``
(``N`` the bundle id), a chunk's text / a seam's search text as the document, the bundle's own
vector, and metadata ``{"kind", "id", "document", "start", "end"}`` (seams also ``"left"`` and
``"right"``, the linked chunk ids). The store's collection records
``{"seamscope_layout": 1, "model", "dim", "k", "chunks", "seams"}``; a store with no
collection-level metadata this package knows (LangChain's ``InMemoryVectorStore``, FAISS, any
store that keeps documents with ids; LlamaIndex's ``SimpleVectorStore``) records it as one
reserved row among its own, id :data:`IDENTITY_ROW_ID`, metadata ``{"kind":
"seamscope_identity", "seamscope": "<the identity as JSON>"}``, read back by id and never
returned by the retrievers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import Bundle

LAYOUT_VERSION = 1
#: The metadata keys of the identity a store records for the bundle it holds.
IDENTITY_KEYS = ("seamscope_layout", "model", "dim", "k", "chunks", "seams")
#: The settings a caller may give besides the bundle's (``k`` must be the bundle's).
SETTING_KEYS = ("k", "m", "budget", "depth", "rrf_c", "side_drop")
#: The id of the reserved row that records the identity in a store without collection-level
#: metadata: one per store (collection, index), read back by id.
IDENTITY_ROW_ID = "seamscope-identity"
#: The reserved row's ``kind``: neither ``chunk`` nor ``seam``, so a kind filter never returns
#: it, and the retrievers drop it wherever a search without a filter does.
IDENTITY_KIND = "seamscope_identity"
#: How much deeper than ``depth`` a search goes where the kind is filtered after the search (a
#: store without a filter this package knows how to write): at most ``depth`` times this.
FETCH_FACTOR = 8


class SeamsStoreError(ValueError):
    """A store that cannot serve a bundle's Seams (base class of the specific refusals)."""


class StoreIdentityError(SeamsStoreError):
    """The store records no seamscope identity, or one that is not this bundle's layout."""


class ModelMismatchError(SeamsStoreError):
    """The store's vectors were made by another embedding model than the bundle's."""


class KMismatchError(SeamsStoreError):
    """A seam half-width ``k`` that is not the one the bundle's seams were cut with."""


class NoSeamsError(SeamsStoreError):
    """The store holds none (or not all) of the bundle's seams."""


class MissingChunksError(SeamsStoreError):
    """Seams whose linked chunks the store does not hold."""


class StoreUnavailableError(SeamsStoreError):
    """The store did not answer (in time, or at all)."""


def chunk_row_id(chunk_id: int) -> str:
    return f"chunk-{chunk_id}"


def seam_row_id(seam_id: int) -> str:
    return f"seam-{seam_id}"


def identity(bundle: Bundle) -> Dict[str, Any]:
    """The identity a store records for ``bundle``: layout, model, dimension, ``k``, counts."""
    s = bundle.settings
    return {
        "seamscope_layout": LAYOUT_VERSION,
        "model": s["model"],
        "dim": int(s["dim"]),
        "k": int(s["k"]),
        "chunks": int(s["chunks"]),
        "seams": int(s["seams"]),
    }


@dataclass
class Record:
    """One row a bundle writes: id, document text, metadata and its own vector."""

    id: str
    text: str
    metadata: Dict[str, Any]
    vector: List[float]


def chunk_records(bundle: Bundle) -> List[Record]:
    out = []
    for c in bundle.chunks:
        meta = {
            "kind": "chunk",
            "id": int(c["id"]),
            "document": c["doc"],
            "start": int(c["start"]),
            "end": int(c["end"]),
        }
        out.append(
            Record(chunk_row_id(c["id"]), c["text"], meta, bundle.chunk_vectors[c["id"]].tolist())
        )
    return out


def _seam_document_span(bundle: Bundle, seam: Mapping[str, Any]) -> Tuple[str, int, int]:
    """A seam's document and byte span (the seam window), as the bundle records them."""
    if all(key in seam for key in ("doc", "start", "end")):
        return seam["doc"], int(seam["start"]), int(seam["end"])
    chunks = {c["id"]: c for c in bundle.chunks}
    left, right = chunks[seam["left"]], chunks[seam["right"]]
    return left["doc"], int(seam.get("start", left["start"])), int(seam.get("end", right["end"]))


def seam_records(
    bundle: Bundle, refs: Optional[Mapping[int, str]] = None
) -> List[Record]:
    """The seam rows; with ``refs`` (bundle chunk id -> the store's own row id of that chunk)
    each also records ``left_ref`` / ``right_ref``, the rows it links in the user's index."""
    out = []
    for s in bundle.seams:
        document, start, end = _seam_document_span(bundle, s)
        meta: Dict[str, Any] = {
            "kind": "seam",
            "id": int(s["id"]),
            "document": document,
            "start": start,
            "end": end,
            "left": int(s["left"]),
            "right": int(s["right"]),
        }
        if refs is not None:
            meta["left_ref"] = refs[s["left"]]
            meta["right_ref"] = refs[s["right"]]
        text = s.get("search_text", s.get("text", ""))
        out.append(Record(seam_row_id(s["id"]), text, meta, bundle.seam_vectors[s["id"]].tolist()))
    return out


def match_chunks_by_span(
    bundle: Bundle,
    documents: Sequence[Tuple[str, Mapping[str, Any]]],
    document_key: str = "source",
    start_key: str = "start_index",
) -> Dict[int, str]:
    """Bundle chunk id -> the user's row id, matching the user's chunks (``(row_id,
    metadata)`` pairs) to the bundle's by document path and start offset. Every bundle chunk must
    be found once; a chunk of the user's index that the bundle lacks is left alone."""
    by_span = {(c["doc"], int(c["start"])): int(c["id"]) for c in bundle.chunks}
    out: Dict[int, str] = {}
    for row_id, meta in documents:
        if row_id is None:
            raise SeamsStoreError(
                "a chunk of the index has no id: add_seams records which rows a seam links, "
                "so the index's chunks need ids"
            )
        doc, start = meta.get(document_key), meta.get(start_key)
        if doc is None or start is None:
            raise SeamsStoreError(
                f"chunk {row_id!r} has no {document_key!r} and {start_key!r} metadata to match "
                "the bundle's chunks by document and span (pass chunk_ids instead)"
            )
        key = (_relative(doc, bundle), int(start))
        if key in by_span:
            chunk_id = by_span[key]
            if chunk_id in out and out[chunk_id] != row_id:
                raise SeamsStoreError(
                    f"rows {out[chunk_id]!r} and {row_id!r} both hold bundle chunk {chunk_id} "
                    f"({key[0]} at byte {key[1]})"
                )
            out[chunk_id] = str(row_id)
    missing = [c["id"] for c in bundle.chunks if c["id"] not in out]
    if missing:
        c = bundle.chunks[missing[0]]
        raise MissingChunksError(
            f"{len(missing)} of the bundle's {len(bundle.chunks)} chunks are not in the index "
            f"(first: chunk {c['id']}, {c['doc']} bytes {c['start']}..{c['end']}): the index was "
            "not cut the way the bundle was (export the bundle with --cuts from its own chunks)"
        )
    return out


def _relative(path: Any, bundle: Bundle) -> str:
    """A document path as the bundle names it: as is when the bundle knows it, else the
    shortest suffix the bundle knows (a loader often records an absolute path)."""
    path = str(path)
    known = {c["doc"] for c in bundle.chunks}
    if path in known:
        return path
    parts = path.replace("\\", "/").split("/")
    for i in range(1, len(parts)):
        tail = "/".join(parts[i:])
        if tail in known:
            return tail
    return path


def resolve_settings(bundle: Bundle, given: Mapping[str, Any]) -> Dict[str, Any]:
    """The query settings: the bundle's, with ``given`` overriding ``m``, ``budget``, ``depth``,
    ``rrf_c`` and ``side_drop``; ``k`` may only repeat the bundle's."""
    unknown = sorted(set(given) - set(SETTING_KEYS))
    if unknown:
        raise TypeError(
            f"unknown Seams setting {', '.join(unknown)} (settings: {', '.join(SETTING_KEYS)})"
        )
    s = bundle.settings
    out = {key: s.get(key) for key in SETTING_KEYS}
    for key, value in given.items():
        if value is None and key != "side_drop":
            continue
        out[key] = value
    if int(out["k"]) != int(s["k"]):
        raise KMismatchError(
            f"k = {out['k']}, but the bundle's seams were cut with k = {s['k']}: k is the seam "
            "half-width the seams were cut with, not a query setting (export a bundle with the "
            "k you want)"
        )
    for key in ("m", "budget", "depth"):
        value = out[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "depth" else 0):
            raise ValueError(f"{key} must be a whole number (depth at least 1), got {value!r}")
    return out


def check_identity(found: Optional[Mapping[str, Any]], bundle: Bundle, where: str) -> None:
    """Refuse a store whose recorded identity is missing or is not the bundle's."""
    want = identity(bundle)
    if not found or found.get("seamscope_layout") is None:
        raise StoreIdentityError(
            f"{where} records no seamscope identity (model, dim, k): write the bundle into it "
            "with add_bundle or add_seams first"
        )
    if found.get("seamscope_layout") != LAYOUT_VERSION:
        raise StoreIdentityError(
            f"{where} has seamscope layout {found.get('seamscope_layout')!r}, "
            f"this package reads {LAYOUT_VERSION}"
        )
    if found.get("model") != want["model"] or int(found.get("dim", -1)) != want["dim"]:
        raise ModelMismatchError(
            f"{where} holds vectors of {found.get('model')!r} ({found.get('dim')} dimensions), "
            f"the bundle's are {want['model']!r} ({want['dim']}): rank order between two models "
            "means nothing, so the store cannot serve this bundle"
        )
    if int(found.get("k", -1)) != want["k"]:
        raise KMismatchError(
            f"{where} holds seams cut with k = {found.get('k')}, the bundle's with k = {want['k']}"
        )
    if int(found.get("seams", 0)) == 0:
        raise NoSeamsError(f"{where} records no seams: add them with add_seams")


def check_rows(
    bundle: Bundle,
    seam_rows: Mapping[str, Mapping[str, Any]],
    present_chunks: Sequence[str],
    chunk_ref: Mapping[int, str],
    where: str,
) -> None:
    """Refuse a store that lacks seams, or a chunk a seam links (``seam_rows``: row id -> the
    seam row's metadata, as read back; ``present_chunks``: the chunk row ids found)."""
    if not seam_rows:
        raise NoSeamsError(
            f"{where} holds none of the bundle's {len(bundle.seams)} seams (no seam-<N> rows): "
            "add them with add_seams"
        )
    missing_seams = [s["id"] for s in bundle.seams if seam_row_id(s["id"]) not in seam_rows]
    if missing_seams:
        raise NoSeamsError(
            f"{where} lacks {len(missing_seams)} of the bundle's {len(bundle.seams)} seams "
            f"(first: seam {missing_seams[0]}): re-run add_seams"
        )
    present = set(present_chunks)
    for s in bundle.seams:
        meta = seam_rows[seam_row_id(s["id"])]
        if (meta.get("left"), meta.get("right")) != (s["left"], s["right"]):
            raise MissingChunksError(
                f"{where}: seam {s['id']} links chunks {meta.get('left')} and "
                f"{meta.get('right')}, the bundle's seam {s['id']} links {s['left']} and {s['right']}"
            )
        for side in ("left", "right"):
            row = chunk_ref[s[side]]
            if row not in present:
                raise MissingChunksError(
                    f"{where}: seam {s['id']} links chunk {s[side]} (row {row!r}), "
                    "which the store does not hold"
                )


@dataclass
class Hit:
    """One search hit as a store returned it: the bundle entry, its score, and its payload (a
    Document or node) when the store gave one."""

    kind: str
    id: int
    score: float
    payload: Any = None


@dataclass
class Outcome:
    """One query's result: the trace (``seamscope query --json``'s shape) and each context
    chunk's metadata, in fill order, for the Seams fill and for chunks-only retrieval."""

    trace: Dict[str, Any]
    chunks: List[Tuple[int, Dict[str, Any]]]
    chunks_only: Optional[List[Tuple[int, Dict[str, Any]]]]
    payloads: Dict[Tuple[str, int], Any] = field(default_factory=dict)


def merge_dense(chunk_hits: Sequence[Hit], seam_hits: Sequence[Hit], depth: int) -> List[Hit]:
    """One dense list from a chunk search and a seam search with comparable (cosine) scores, cut
    to ``depth``; ties put chunks first, then lower ids (as seamscope's own dense list)."""
    both = list(chunk_hits) + list(seam_hits)
    both.sort(key=lambda h: (-h.score, h.kind != "chunk", h.id))
    return both[:depth]


def _hits_json(hits: Sequence[Hit]) -> List[Dict[str, Any]]:
    return [{"entry": {h.kind: h.id}, "score": float(h.score)} for h in hits]


def run(
    bundle: Bundle,
    settings: Mapping[str, Any],
    question: str,
    dense: Sequence[Hit],
    keyword_chunks: Optional[Sequence[Hit]],
    keyword_seams: Optional[Sequence[Hit]],
    chunks_only_dense: Optional[Sequence[Hit]],
) -> Outcome:
    """The Seams stage over one question's lists (each already cut to ``depth``)."""
    lists: List[Dict[str, Any]] = [{"source": "dense", "hits": _hits_json(dense)}]
    if keyword_chunks is not None:
        lists.append({"source": "keyword_chunks", "hits": _hits_json(keyword_chunks)})
    if keyword_seams is not None:
        lists.append({"source": "keyword_seams", "hits": _hits_json(keyword_seams)})
    chunks_only = None
    if chunks_only_dense is not None:
        chunks_only = [{"source": "dense", "hits": _hits_json(chunks_only_dense)}]
        if keyword_chunks is not None:
            chunks_only.append({"source": "keyword_chunks", "hits": _hits_json(keyword_chunks)})
    trace = bundle.apply(
        lists,
        chunks_only=chunks_only,
        question=question,
        m=settings["m"],
        budget=settings["budget"],
        c=settings["rrf_c"],
        depth=settings["depth"],
        k=settings["k"],
        side_drop=settings["side_drop"],
    )
    # Each hit's record as the store returned it, to give back: the dense searches' first (a
    # keyword retriever's document may carry no text), then a keyword hit's if it has text.
    payloads: Dict[Tuple[str, int], Any] = {}
    for group in (dense, chunks_only_dense or []):
        for h in group:
            if h.payload is not None:
                payloads.setdefault((h.kind, h.id), h.payload)
    for group in (keyword_chunks or [], keyword_seams or []):
        for h in group:
            if h.payload is not None and _text_of(h.payload):
                payloads.setdefault((h.kind, h.id), h.payload)
    retrieval = (trace.get("without_seams") or {}).get("retrieval")
    return Outcome(
        trace=trace,
        chunks=context_metadata(trace),
        chunks_only=None if not retrieval else context_metadata(retrieval),
        payloads=payloads,
    )


def _text_of(payload: Any) -> str:
    text = getattr(payload, "page_content", None)
    if text is None and hasattr(payload, "get_content"):
        text = payload.get_content()
    return text or ""


def context_metadata(trace: Mapping[str, Any]) -> List[Tuple[int, Dict[str, Any]]]:
    """Each chunk of a trace's fill, in order, with ``kind``, ``id``, ``fused_position`` (the
    fused position of the entry that brought it in: its own, or its seam's), and for a chunk a
    fired seam brought: ``seam``, ``seam_position``, the margin ``m``, the linked chunks'
    counted positions and the fire test's ``arithmetic``."""
    decisions = {d["seam"]: d for d in trace.get("decisions", [])}
    out: List[Tuple[int, Dict[str, Any]]] = []
    for step in trace["fill"]["steps"]:
        action = step["action"]
        added = action.get("added")
        if action["action"] == "added":
            ids = [step["entry"]["chunk"]]
        elif added:
            ids = list(added)
        else:
            continue
        for chunk_id in ids:
            meta: Dict[str, Any] = {
                "kind": "chunk",
                "id": int(chunk_id),
                "fused_position": int(step["position"]),
            }
            if "seam" in step["entry"]:
                d = decisions[step["entry"]["seam"]]
                meta.update(
                    {
                        "seam": int(d["seam"]),
                        "seam_position": int(d["seam_position"]),
                        "m": int(d["m"]),
                        "left_position": int(d["left"]["counted_position"]),
                        "right_position": int(d["right"]["counted_position"]),
                        "arithmetic": d["arithmetic"],
                    }
                )
            out.append((int(chunk_id), meta))
    order = trace["fill"]["chunks"]
    if [c for c, _ in out] != list(order):
        raise AssertionError(f"fill steps {out} do not give the fill's chunks {order}")
    return out


def dumps_identity(bundle: Bundle) -> str:
    return json.dumps(identity(bundle), sort_keys=True)


# ---------------------------------------------------------------------------------------------
# The reserved identity row (stores without collection-level metadata)


def identity_vector(bundle: Optional[Bundle], dim: int) -> List[float]:
    """The reserved row's vector: a unit vector opposite the mean of the bundle's chunk vectors,
    so that it ranks near the bottom for a question about the corpus (the retrievers drop it
    wherever it comes back; this keeps it out of your own searches' tops). Without a bundle,
    or where the mean is zero: the first axis."""
    import numpy as np

    if bundle is not None and bundle.chunks:
        rows = np.asarray(bundle.chunk_vectors, dtype=np.float64)[[int(c["id"]) for c in bundle.chunks]]
        mean = rows.mean(axis=0)
        norm = float(np.linalg.norm(mean))
        if norm > 0 and np.isfinite(norm):
            return [float(x) for x in -mean / norm]
    return [1.0] + [0.0] * (int(dim) - 1)


def identity_row(ident: Mapping[str, Any], vector: Sequence[float]) -> Record:
    """The reserved row recording ``ident`` (id :data:`IDENTITY_ROW_ID`)."""
    raw = json.dumps(dict(ident), sort_keys=True)
    return Record(
        IDENTITY_ROW_ID,
        f"seamscope identity (not a document): {raw}",
        {"kind": IDENTITY_KIND, "seamscope": raw},
        [float(x) for x in vector],
    )


def identity_of_row(metadata: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """The identity a reserved row's metadata records, or ``None``."""
    raw = (metadata or {}).get("seamscope")
    if isinstance(raw, str):
        try:
            found = json.loads(raw)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None
    return dict(raw) if isinstance(raw, Mapping) else None


def is_identity_row(row_id: Any, metadata: Optional[Mapping[str, Any]]) -> bool:
    """Whether a row the store returned is the reserved identity row (never a search result)."""
    return (row_id is not None and str(row_id) == IDENTITY_ROW_ID) or (
        (metadata or {}).get("kind") == IDENTITY_KIND
    )


def fetch_depth(depth: int, extra_rows: int, factor: int = FETCH_FACTOR) -> int:
    """How many rows a search asks for where the kind is filtered after it: ``depth`` plus the
    rows that are not of the kind wanted (the bundle's seams and the reserved row: then every
    chunk among the top ``depth`` is found), at most ``depth * factor``."""
    return max(depth, min(depth + max(extra_rows, 0), depth * max(factor, 1)))


# ---------------------------------------------------------------------------------------------
# What both retrievers do with a store

# Store calls run here so that a store that stops answering is an error after `timeout`
# seconds, not a hang (the call itself is abandoned to its own timeouts).
POOL = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="seams-store")


async def in_pool(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in the store pool: not the loop's default executor, which ``asyncio.run``
    waits for at exit, so a store call abandoned at its timeout cannot hold the caller."""
    return await asyncio.get_running_loop().run_in_executor(POOL, fn, *args)


# Failures that mean the store could not be reached or did not answer: an outage
# (:class:`StoreUnavailableError`). Matched by class name along the class's MRO and the
# exception's cause chain, so that no driver needs importing: DB-API / SQLAlchemy
# (OperationalError: a lost or refused connection), httpx, urllib3, pymilvus, grpc.
_OUTAGE_CLASSES = frozenset(
    {
        "OperationalError",
        "InterfaceError",
        "DisconnectionError",
        "TransportError",
        "NetworkError",
        "TimeoutException",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "PoolTimeout",
        "RemoteProtocolError",
        "MaxRetryError",
        "NewConnectionError",
        "ConnectTimeoutError",
        "ReadTimeoutError",
        "ProtocolError",
        "MilvusUnavailableException",
        "ConnectionNotExistException",
        "ServiceUnavailable",
        "ServiceUnavailableError",
    }
)
_GRPC_OUTAGE_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED"})


def is_outage(error: BaseException) -> bool:
    """Whether ``error`` (or an error it was raised from) says the store is unreachable or not
    answering: a connection, timeout or I/O failure. A store's own ``TypeError`` or
    ``ValueError`` (a call it does not take, data it refuses) is not an outage."""
    seen = set()
    e: Optional[BaseException] = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, (OSError, TimeoutError)):  # ConnectionError, socket timeouts, I/O
            return True
        names = {cls.__name__ for cls in type(e).__mro__}
        if names & _OUTAGE_CLASSES:
            return True
        if "RpcError" in names:
            code = getattr(e, "code", None)
            try:
                name = getattr(code(), "name", "") if callable(code) else ""
            except Exception:
                name = ""
            if name in _GRPC_OUTAGE_CODES:
                return True
        e = e.__cause__ or e.__context__
    return False


def store_error(error: BaseException, where: str, call: str) -> SeamsStoreError:
    """The error to raise for ``error``, raised by ``where`` in ``call``: a
    :class:`StoreUnavailableError` for an outage (:func:`is_outage`), else a
    :class:`SeamsStoreError` naming the store and the call (a wrong call is not an outage)."""
    if isinstance(error, SeamsStoreError):
        return error
    if is_outage(error):
        return StoreUnavailableError(
            f"the store failed ({where}, {call}): {type(error).__name__}: {error}"
        )
    return SeamsStoreError(
        f"{where} raised {type(error).__name__} in {call}: {error} (the store's own error, "
        "not an outage: a call it does not take, or data it refuses)"
    )


def describe_callable(fn: Any) -> Tuple[str, str]:
    """(who, which call) for an error message about ``fn``: an adapter's store and method, or
    the class and method of a bound method (the embeddings, a keyword retriever)."""
    owner = getattr(fn, "__self__", None)
    call = getattr(fn, "__name__", None) or str(fn)
    if owner is None:
        return "the store", call
    name = getattr(owner, "name", None)
    if isinstance(name, str) and hasattr(owner, "store"):  # an adapter
        return name, call
    return type(owner).__name__, call


def call_bounded(fn: Any, args: Sequence[Any], timeout: float, name_call: bool = False) -> Any:
    """``fn(*args)`` in the store pool, at most ``timeout`` seconds. A store that does not
    answer, or cannot be reached, is a :class:`StoreUnavailableError`; any other failure a
    :class:`SeamsStoreError` naming who failed in which call (``name_call``: the timeout's
    message names ``fn`` too)."""
    future = POOL.submit(fn, *args)
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        which = f" ({getattr(fn, '__qualname__', fn)})" if name_call else ""
        raise StoreUnavailableError(
            f"the store did not answer within {timeout:g} s{which}"
        ) from None
    except SeamsStoreError:
        raise
    except Exception as e:  # the store's own error: say whose, and whether it is an outage
        raise store_error(e, *describe_callable(fn)) from e


async def acall_bounded(coro: Any, timeout: float, where: str = "the store", call: str = "an async call") -> Any:
    """``await coro``, at most ``timeout`` seconds, its failures as :func:`call_bounded`'s."""
    try:
        return await asyncio.wait_for(coro, timeout=timeout)
    except asyncio.TimeoutError:
        raise StoreUnavailableError(f"the store did not answer within {timeout:g} s") from None
    except SeamsStoreError:
        raise
    except Exception as e:
        raise store_error(e, where, call) from e


def check_writable(adapter: Any, bundle: Bundle, container: str) -> None:
    """Refuse to write ``bundle`` where the store (``adapter``) already records another
    model, dimension or ``k``; ``container`` names what to give it instead."""
    found = adapter.identity()
    if found and found.get("seamscope_layout") is not None:
        want = identity(bundle)
        if found.get("model") != want["model"] or int(found.get("dim", -1)) != want["dim"]:
            raise ModelMismatchError(
                f"{adapter.name} holds vectors of {found.get('model')!r}, the bundle's are "
                f"{want['model']!r}: write it into a {container} of its own"
            )
        if int(found.get("k", -1)) != want["k"]:
            raise KMismatchError(
                f"{adapter.name} holds seams cut with k = {found.get('k')}, the bundle's with "
                f"k = {want['k']}: write it into a {container} of its own"
            )


def write_seams(
    adapter: Any,
    bundle: Bundle,
    refs: Optional[Dict[int, str]],
    unit: str,
    check_ids_free: bool,
) -> Dict[int, str]:
    """``add_seams``' work once the mapping is known: every chunk the seams link must have a
    ``unit`` (row or node) in ``refs`` (``None``: the bundle's own ``chunk-<N>``) and be in the
    store; then the seams are written, linking those, and the identity after them. Returns the
    mapping used."""
    if refs is None:
        refs = {c["id"]: chunk_row_id(c["id"]) for c in bundle.chunks}
    linked = sorted({c for s in bundle.seams for c in (s["left"], s["right"])})
    unmapped = [c for c in linked if c not in refs]
    if unmapped:
        raise MissingChunksError(
            f"{len(unmapped)} chunks the seams link have no {unit} in chunk_ids "
            f"(first: chunk {unmapped[0]})"
        )
    present = adapter.get([refs[c] for c in linked])
    absent = [c for c in linked if refs[c] not in present]
    if absent:
        raise MissingChunksError(
            f"{adapter.name} does not hold {len(absent)} chunks the seams link (first: chunk "
            f"{absent[0]}, {unit} {refs[absent[0]]!r}): add the chunks (or add_bundle) first"
        )
    own_rows = all(refs[c] == chunk_row_id(c) for c in linked)
    records = seam_records(bundle, None if own_rows else refs)
    if check_ids_free:
        adapter.check_ids_free([r.id for r in records])
    adapter.write(records)
    adapter.write_identity(identity(bundle), identity_vector(bundle, int(bundle.settings["dim"])))
    return refs
