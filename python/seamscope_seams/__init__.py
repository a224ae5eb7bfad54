"""Apply seamscope's tuned Seams to your own retrieval rankings.

A *seam* is one small search entry over the cut between two adjacent chunks, linked to both. Your
retriever ranks chunks and seams like any other documents; this package then runs the Seams stage
that seamscope tuned (the Rust ``seams`` crate, called through ``_core``, nothing re-implemented):

- :func:`fuse`: reciprocal rank fusion of your ranked lists;
- :func:`fire_test`: a seam fires when ``pos(seam) + m <= pos(left)`` and ``<= pos(right)``;
- :func:`side_drops`: a fired seam whose one half does not match the question brings one chunk;
- :func:`fill_budget`: the budget filled strictly in rank order, a fired seam's two chunks together;
- :func:`apply_seams`: all of it at once, returning the whole trace;
- :func:`load_bundle`: the bundle ``seamscope export`` writes (settings, chunks, seams, links,
  token counts, vectors as NumPy arrays), checked against its manifest.

Entries are ``("chunk", id)`` or ``("seam", id)`` (or the trace JSON's ``{"chunk": id}``). Every
result is plain dicts and lists in exactly the shape ``seamscope query --json`` writes.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypedDict,
    Union,
)

from . import _core

if TYPE_CHECKING:  # numpy is only needed to load a bundle
    import numpy

__all__ = [
    "BUNDLE_VERSION",
    "BUNDLE_VERSIONS",
    "Bundle",
    "BundleError",
    "DEFAULTS",
    "Entry",
    "apply_seams",
    "chunk",
    "entry_of",
    "fill_budget",
    "fire_test",
    "fuse",
    "load_bundle",
    "seam",
    "side_drops",
]

#: The newest bundle format this package reads (``settings.json``'s ``bundle_version``).
BUNDLE_VERSION = 2
#: Every bundle format this package reads: 1, and 2, which adds ``documents.jsonl`` (each
#: document's path and text) and the chunking settings.
BUNDLE_VERSIONS = (1, 2)

#: The ``seams`` crate's default query settings: ``k``, ``m``, ``budget``, ``depth``, ``rrf_c``,
#: ``rerank_candidates``, ``side_drop``.
DEFAULTS: Dict[str, Any] = json.loads(_core.defaults())

#: A chunk or seam: ``("chunk", 3)``, ``("seam", 7)``.
Entry = Tuple[str, int]
#: An entry in any accepted form: a tuple, or the trace JSON's ``{"chunk": 3}``.
EntryLike = Union[Entry, Mapping[str, int]]
#: One hit: an entry, ``(entry, score)``, or the trace JSON's ``{"entry": ..., "score": ...}``.
HitLike = Union[EntryLike, Tuple[EntryLike, float], Mapping[str, Any]]
#: One ranked list, best first: a sequence of hits, or ``{"source": ..., "hits": [...]}``.
RankedListLike = Union[Sequence[HitLike], Mapping[str, Any]]
#: Seam links: ``{seam_id: (left_chunk_id, right_chunk_id)}``, or a sequence indexed by seam id.
LinksLike = Union[Mapping[int, Tuple[int, int]], Sequence[Tuple[int, int]]]

_KINDS = ("chunk", "seam")
_SOURCES = ("dense", "keyword_chunks", "keyword_seams")


class ListRank(TypedDict):
    """An entry's place in one input list."""

    source: str
    rank: int
    score: float


class FusedEntry(TypedDict):
    """One entry of the fused ranking; its position is its index plus one."""

    entry: Dict[str, int]
    score: float
    per_list: List[ListRank]


class LinkedChunk(TypedDict):
    """One linked chunk as the fire test saw it."""

    chunk: int
    fused_position: Optional[int]
    counted_position: int


class FireDecision(TypedDict):
    """The fire test's verdict for one seam, with its arithmetic written out."""

    seam: int
    seam_position: int
    m: int
    left: LinkedChunk
    right: LinkedChunk
    fires: bool
    fired_on_absence: bool
    arithmetic: str


class BudgetStep(TypedDict):
    """One row of the budget table (``action`` is a dict with an ``action`` tag)."""

    position: int
    entry: Dict[str, int]
    action: Dict[str, Any]
    slots_used_after: int


class BudgetFill(TypedDict):
    """The budget fill: each step, and the context chunks in the order they came in."""

    budget: int
    steps: List[BudgetStep]
    chunks: List[int]
    slots_used: int
    descriptions: List[str]


class SideScores(TypedDict):
    """How a seam's two halves scored (cosine) against the question."""

    seam: int
    left: float
    right: float


class BundleError(ValueError):
    """A bundle folder that cannot be used: a missing file, a size or hash that does not match."""


def chunk(id: int) -> Entry:
    """The entry for chunk ``id``: ``("chunk", id)``."""
    return ("chunk", _id(id))


def seam(id: int) -> Entry:
    """The entry for seam ``id``: ``("seam", id)``."""
    return ("seam", _id(id))


def entry_of(value: Union[EntryLike, Mapping[str, Any]]) -> Entry:
    """The ``("chunk", id)`` / ``("seam", id)`` tuple of an entry, a hit or a fused entry.

    >>> entry_of({"entry": {"seam": 4}, "score": 0.03, "per_list": []})
    ('seam', 4)
    """
    if isinstance(value, Mapping) and "entry" in value:
        value = value["entry"]
    return _entry(value)


def _id(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"an id is an int, got {value!r}")
    if not 0 <= value < 2**32:
        raise ValueError(f"an id is between 0 and 2**32 - 1, got {value}")
    return value


def _entry(value: Any) -> Entry:
    if isinstance(value, Mapping) and len(value) == 1:
        ((kind, id),) = value.items()
    elif isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], str):
        kind, id = value
    else:
        raise TypeError(f'an entry is ("chunk", id) or ("seam", id), got {value!r}')
    if kind not in _KINDS:
        raise ValueError(f'an entry\'s kind is "chunk" or "seam", got {kind!r}')
    return (kind, _id(id))


def _entry_json(value: Any) -> Dict[str, int]:
    kind, id = _entry(value)
    return {kind: id}


def _hit_json(value: Any, rank: int) -> Dict[str, Any]:
    # Scores are display only (fusion reads ranks): a hit without one scores 1/rank.
    if isinstance(value, Mapping) and "entry" in value:
        entry, score = value["entry"], value.get("score", 1.0 / rank)
    elif isinstance(value, (tuple, list)) and len(value) == 2 and not isinstance(value[0], str):
        entry, score = value
    else:
        entry, score = value, 1.0 / rank
    return {"entry": _entry_json(entry), "score": float(score)}


def _list_json(value: Any, default_source: str) -> Dict[str, Any]:
    if isinstance(value, Mapping):
        source = value.get("source", default_source)
        hits = value["hits"]
    else:
        source, hits = default_source, value
    if source not in _SOURCES:
        raise ValueError(f"a list's source is one of {', '.join(_SOURCES)}, got {source!r}")
    return {"source": source, "hits": [_hit_json(h, i + 1) for i, h in enumerate(hits)]}


def _lists_json(lists: Iterable[RankedListLike]) -> List[Dict[str, Any]]:
    if isinstance(lists, Mapping):
        raise TypeError("fuse takes a sequence of ranked lists, not one list")
    return [_list_json(lst, "dense") for lst in lists]


def _fused_json(fused: Iterable[Any]) -> List[Dict[str, Any]]:
    out = []
    for value in fused:
        if isinstance(value, Mapping) and "entry" in value:
            out.append(
                {
                    "entry": _entry_json(value["entry"]),
                    "score": float(value.get("score", 0.0)),
                    "per_list": list(value.get("per_list", [])),
                }
            )
        else:  # a ranking given as is, like the white paper's worked example
            out.append({"entry": _entry_json(value), "score": 0.0, "per_list": []})
    return out


def _links_map(links: LinksLike) -> Dict[int, Tuple[int, int]]:
    if isinstance(links, Mapping):
        items: Iterable[Tuple[Any, Any]] = links.items()
    else:
        items = enumerate(links)
    out = {}
    for s, pair in items:
        left, right = pair
        out[_id(s)] = (_id(left), _id(right))
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


def fuse(
    lists: Sequence[RankedListLike], c: float = 60.0, depth: Optional[int] = None
) -> List[FusedEntry]:
    """Fuse ranked lists by reciprocal rank fusion: ``score = sum(1 / (c + rank))``, ranks 1-based.

    ``lists`` holds one ranked list per search, best first. A list is a sequence of hits (an
    entry, or ``(entry, score)``) or the trace JSON's ``{"source": "dense" | "keyword_chunks" |
    "keyword_seams", "hits": [...]}``; a plain sequence is labelled ``dense``. Sources and scores
    are labels only: fusion reads ranks. ``depth`` cuts each list to its first ``depth`` hits.
    Ties break deterministically (score, best rank, more lists, chunks before seams, lower id).

    >>> [entry_of(e) for e in fuse([[seam(0), chunk(4)], [chunk(4), chunk(9)]])]
    [('chunk', 4), ('seam', 0), ('chunk', 9)]
    """
    return json.loads(_core.fuse(_dumps(_lists_json(lists)), float(c), depth))


def fire_test(fused: Sequence[Any], links: LinksLike, m: int) -> List[FireDecision]:
    """The fire test at margin ``m`` for every seam of a fused ranking, in fused order.

    ``fused`` is what :func:`fuse` returned, or a ranking given as is (a sequence of entries).
    ``links`` gives each seam's ``(left, right)`` chunk ids; a seam without one raises
    ``KeyError``. A linked chunk absent from the ranking counts as ranked last.

    >>> d = fire_test([seam(0), chunk(1), chunk(2)], {0: (1, 2)}, m=1)
    >>> d[0]["arithmetic"]
    '1 + 1 = 2 ≤ 2 (chunk 1) and ≤ 3 (chunk 2): fires'
    """
    return json.loads(_core.fire_test(_dumps(_fused_json(fused)), _links_map(links), int(m)))


def side_drops(
    decisions: Sequence[FireDecision], scores: Sequence[SideScores], threshold: float
) -> List[Dict[str, Any]]:
    """Side drop: fired seams whose one half scores below ``threshold`` (and the other not).

    ``scores`` holds ``{"seam": id, "left": cosine, "right": cosine}`` per seam: the question's
    cosine with the seam window's half before and after the cut. A fired seam without scores
    keeps both chunks. Pass the result to :func:`fill_budget`.
    """
    return json.loads(
        _core.side_drops(_dumps(list(decisions)), _dumps(list(scores)), float(threshold))
    )


def fill_budget(
    fused: Sequence[Any],
    decisions: Sequence[FireDecision],
    budget: int,
    side_drops: Optional[Sequence[Mapping[str, Any]]] = None,
) -> BudgetFill:
    """Fill a budget of ``budget`` chunks strictly in rank order.

    An ordinary chunk takes one slot; a fired seam takes one slot per linked chunk not yet in
    (two, one or none) and is skipped whole when it needs more than remain; a chunk already in is
    skipped; a seam that did not fire takes nothing. The result's ``chunks`` is the context, in
    order; ``steps`` (with ``descriptions``) say what happened at each position.

    >>> ranking = [seam(0), chunk(1), chunk(5), chunk(2)]
    >>> fill_budget(ranking, fire_test(ranking, {0: (1, 2)}, m=1), budget=3)["chunks"]
    [1, 2, 5]
    """
    drops = None if side_drops is None else _dumps(list(side_drops))
    return json.loads(
        _core.fill_budget(_dumps(_fused_json(fused)), _dumps(list(decisions)), int(budget), drops)
    )


def apply_seams(
    lists: Union[Sequence[RankedListLike], None],
    links: LinksLike,
    *,
    tokens: Optional[Union[Mapping[int, int], Sequence[int]]] = None,
    m: int = DEFAULTS["m"],
    budget: int = DEFAULTS["budget"],
    c: float = DEFAULTS["rrf_c"],
    depth: int = DEFAULTS["depth"],
    k: int = DEFAULTS["k"],
    fused: Optional[Sequence[Any]] = None,
    chunks_only: Optional[Sequence[RankedListLike]] = None,
    side_scores: Optional[Sequence[SideScores]] = None,
    side_drop: Optional[float] = None,
    question: str = "",
) -> Dict[str, Any]:
    """The whole stage at once (the crate's ``replan``): fuse, fire test, side drop, budget fill,
    context and "without Seams", returned as the trace dict ``seamscope query --json`` holds.

    Give either ``lists`` (ranked lists, as for :func:`fuse`, each cut to ``depth``) or a
    ranking ``fused`` as is. ``tokens`` gives each chunk's token count (a mapping, or a sequence
    indexed by chunk id) for ``context`` and ``tokens_sent``; without it they count 0.
    ``chunks_only`` is an optional chunks-only retrieval (ranked lists with no seams) for the
    honest "without Seams" baseline. ``side_scores`` and ``side_drop`` (a cosine threshold) turn
    side drop on. ``k`` is recorded only. The context chunk ids are ``trace["fill"]["chunks"]``.
    """
    if (lists is None) == (fused is None):
        raise TypeError("apply_seams takes either lists or fused")
    ranking: Dict[str, Any] = (
        {"lists": _lists_json(lists)} if lists is not None else {"fused": _fused_json(fused or [])}
    )
    query_input = {
        "question": question,
        "ranking": ranking,
        "chunks_only": None if chunks_only is None else {"lists": _lists_json(chunks_only)},
        "rerank": {"kind": "not_configured"},
        "side_scores": list(side_scores or []),
    }
    settings = {
        "k": int(k),
        "m": int(m),
        "budget": int(budget),
        "depth": int(depth),
        "rrf_c": float(c),
        "side_drop": None if side_drop is None else float(side_drop),
    }
    token_map: Optional[Dict[int, int]] = None
    if tokens is not None:
        pairs = tokens.items() if isinstance(tokens, Mapping) else enumerate(tokens)
        token_map = {_id(i): int(n) for i, n in pairs}
    return json.loads(
        _core.replan(_dumps(query_input), _dumps(settings), _links_map(links), token_map)
    )


@dataclass
class Bundle:
    """A tuned layout exported by ``seamscope export``: everything a pipeline needs to apply it.

    ``chunks[i]`` and ``seams[j]`` are the records of ``chunks.jsonl`` / ``seams.jsonl`` (row ``i``
    is chunk id ``i``: ``text`` is the evidence to send, ``search_text`` what was embedded);
    ``chunk_vectors[i]`` / ``seam_vectors[j]`` their L2-normalised float32 vectors.
    ``documents`` holds each document's ``path`` and ``text`` (bundle version 2; empty in 1).
    """

    path: str
    settings: Dict[str, Any]
    manifest: Dict[str, Any]
    chunks: List[Dict[str, Any]]
    seams: List[Dict[str, Any]]
    chunk_vectors: "numpy.ndarray"
    seam_vectors: "numpy.ndarray"
    links: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    tokens: Dict[int, int] = field(default_factory=dict)
    documents: List[Dict[str, Any]] = field(default_factory=list)

    @property
    def m(self) -> int:
        """The tuned fire margin."""
        return int(self.settings["m"])

    @property
    def budget(self) -> int:
        """The tuned budget, in chunks."""
        return int(self.settings["budget"])

    def query_settings(self) -> Dict[str, Any]:
        """The settings the bundle was tuned with, as :func:`apply_seams` takes them."""
        s = self.settings
        return {
            "m": s["m"],
            "budget": s["budget"],
            "c": s["rrf_c"],
            "depth": s["depth"],
            "k": s["k"],
            "side_drop": s.get("side_drop"),
        }

    def apply(
        self, lists: Optional[Sequence[RankedListLike]] = None, **overrides: Any
    ) -> Dict[str, Any]:
        """:func:`apply_seams` with this bundle's links, token counts and tuned settings
        (``overrides`` replace any of them, e.g. ``budget=8``)."""
        kwargs: Dict[str, Any] = self.query_settings()
        kwargs.update(overrides)
        return apply_seams(lists, self.links, tokens=self.tokens, **kwargs)

    def texts(self, chunk_ids: Iterable[int]) -> List[str]:
        """The evidence texts of chunks, in the order given (never a seam's text)."""
        return [self.chunks[i]["text"] for i in chunk_ids]

    def dense_ranking(self, query_vector: Any, depth: Optional[int] = None) -> List[Dict[str, Any]]:
        """Exact dense search over chunks and seams together, as seamscope's dense list: hits
        ``{"entry", "score"}`` by cosine similarity, best first (ties: chunks first, lower id),
        cut to ``depth`` (default: the bundle's). ``query_vector`` is the question embedded with
        the bundle's model (``settings["model"]``)."""
        import numpy as np

        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.chunk_vectors.shape[1]:
            raise ValueError(
                f"the query vector has {q.shape[0]} dimensions, "
                f"the bundle's vectors {self.chunk_vectors.shape[1]}"
            )
        norm = float(np.linalg.norm(q))
        if norm > 0:
            q = q / norm
        scored = [(float(s), 0, i) for i, s in enumerate(self.chunk_vectors @ q)]
        scored += [(float(s), 1, j) for j, s in enumerate(self.seam_vectors @ q)]
        scored.sort(key=lambda t: (-t[0], t[1], t[2]))
        depth = int(self.settings["depth"]) if depth is None else depth
        return [{"entry": {_KINDS[kind]: i}, "score": score} for score, kind, i in scored[:depth]]


def _read_jsonl(path: str) -> List[Dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _regular(folder: str, name: str) -> str:
    """The path of the bundle file ``name``, unless it is not a regular file: a symbolic link, a
    FIFO (which would hang the reader), a device (``/dev/zero`` would fill memory) or a folder
    raises :class:`BundleError`, before anything opens it."""
    path = os.path.join(folder, name)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        raise BundleError(f"{path} is missing") from None
    if stat.S_ISLNK(mode):
        raise BundleError(f"{path} is a symbolic link: a bundle holds only regular files")
    if not stat.S_ISREG(mode):
        raise BundleError(f"{path} is not a regular file (a FIFO, a device or a folder)")
    return path


def load_bundle(path: Union[str, "os.PathLike[str]"], verify: bool = True) -> Bundle:
    """Read the bundle ``seamscope export`` wrote into the folder ``path``.

    With ``verify`` (the default) every file ``manifest.json`` lists must exist with its recorded
    size and blake3 hash (computed by the Rust ``blake3`` crate), the records must be in id order,
    and the vectors must have one row per record and the recorded dimension, with no NaN, no
    infinity and no all-zero row; any mismatch raises :class:`BundleError` naming the file. With
    or without ``verify``, only regular files are read: a symbolic link, a FIFO or a device in the
    bundle is refused. Needs numpy.
    """
    import numpy as np

    folder = os.fspath(path)
    manifest_path = os.path.join(folder, "manifest.json")
    if not os.path.lexists(manifest_path):
        raise BundleError(
            f"{manifest_path} is missing: is {folder} a folder `seamscope export` wrote?"
        )
    _regular(folder, "manifest.json")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    version = manifest.get("bundle_version")
    if version not in BUNDLE_VERSIONS:
        raise BundleError(
            f"{manifest_path}: bundle version {version!r}, "
            f"this package reads {', '.join(map(str, BUNDLE_VERSIONS))}"
        )
    listed = {entry["name"]: entry for entry in manifest.get("files", [])}
    needed = ["documents.jsonl"] if version >= 2 else []
    needed += [
        "settings.json",
        "chunks.jsonl",
        "seams.jsonl",
        "chunk_vectors.npy",
        "seam_vectors.npy",
    ]
    for name in needed:
        if name not in listed:
            raise BundleError(f"{manifest_path} does not list {name}")
    if verify:
        for name, entry in listed.items():
            file = _regular(folder, name)
            size = os.path.getsize(file)
            if size != entry["bytes"]:
                raise BundleError(f"{file} has {size} bytes, the manifest says {entry['bytes']}")
            digest = _core.blake3_file(file)
            if digest != entry["blake3"]:
                raise BundleError(
                    f"{file} has blake3 {digest}, the manifest says {entry['blake3']}"
                )
    with open(_regular(folder, "settings.json"), encoding="utf-8") as f:
        settings = json.load(f)
    if settings.get("bundle_version") != version:
        raise BundleError(
            f"settings.json says bundle version {settings.get('bundle_version')!r}, "
            f"the manifest {version}"
        )
    documents = _read_jsonl(_regular(folder, "documents.jsonl")) if version >= 2 else []
    chunks = _read_jsonl(_regular(folder, "chunks.jsonl"))
    seams = _read_jsonl(_regular(folder, "seams.jsonl"))
    chunk_vectors = np.load(_regular(folder, "chunk_vectors.npy"), allow_pickle=False)
    seam_vectors = np.load(_regular(folder, "seam_vectors.npy"), allow_pickle=False)
    if verify:
        dim = settings["dim"]
        for name, records, vectors in (
            ("chunks", chunks, chunk_vectors),
            ("seams", seams, seam_vectors),
        ):
            if [r["id"] for r in records] != list(range(len(records))):
                raise BundleError(f"{name}.jsonl: records are not in id order 0, 1, 2, ...")
            if len(records) != settings[name]:
                raise BundleError(
                    f"{name}.jsonl has {len(records)} records, settings.json says {settings[name]}"
                )
            if vectors.dtype != np.float32 or vectors.shape != (len(records), dim):
                raise BundleError(
                    f"{name[:-1]}_vectors.npy is {vectors.dtype} {vectors.shape}, "
                    f"expected float32 ({len(records)}, {dim})"
                )
            unusable = ~np.isfinite(vectors).all(axis=1) | ~vectors.any(axis=1)
            if unusable.any():
                row = int(np.flatnonzero(unusable)[0])
                raise BundleError(
                    f"{name[:-1]}_vectors.npy row {row} is not a usable vector "
                    "(it holds NaN or an infinity, or is all zeros)"
                )
    return Bundle(
        path=folder,
        settings=settings,
        manifest=manifest,
        chunks=chunks,
        seams=seams,
        chunk_vectors=chunk_vectors,
        seam_vectors=seam_vectors,
        links={s["id"]: (s["left"], s["right"]) for s in seams},
        tokens={c["id"]: c["tokens"] for c in chunks},
        documents=documents,
    )
