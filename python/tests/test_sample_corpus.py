"""The sample corpus end to end: a bundle from `seamscope export`, traces from `seamscope query
--json`, and the Python package reproducing each trace's fill from bundle + the trace's own input
rankings; then the bundle's vectors, loaded with numpy, reproducing the dense list itself."""

import shutil
from pathlib import Path

import numpy as np
import pytest

import seamscope_seams as ss

SAMPLE = Path(__file__).resolve().parents[2] / "sample-corpus"
# Scores within this are a tie that float rounding (usearch against numpy) may order either way.
SCORE_TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def bundle(bundle_dir):
    return ss.load_bundle(bundle_dir)


def test_bundle_matches_the_layout_the_queries_ran_on(bundle, reports):
    s = bundle.settings
    assert s["bundle_version"] in ss.BUNDLE_VERSIONS
    assert len(bundle.chunks) == s["chunks"] > 0
    assert len(bundle.seams) == s["seams"] > 0
    assert bundle.chunk_vectors.dtype == np.float32
    assert bundle.chunk_vectors.shape == (s["chunks"], s["dim"])
    assert bundle.seam_vectors.shape == (s["seams"], s["dim"])
    norms = np.linalg.norm(np.vstack([bundle.chunk_vectors, bundle.seam_vectors]), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-4), "vectors are L2-normalised"
    report = reports[0]
    assert [(c["id"], c["doc"], c["start"], c["end"], c["tokens"]) for c in report["chunks"]] == [
        (c["id"], c["doc"], c["start"], c["end"], c["tokens"]) for c in bundle.chunks
    ]
    assert {x["id"]: (x["left"], x["right"]) for x in report["seams"]} == bundle.links
    # Bundle version 2 carries each document's text (version 1, this branch's export, has none).
    for document in bundle.documents:
        assert document["text"] == (SAMPLE / document["path"]).read_text(encoding="utf-8")
    # The bundle was exported with the settings the queries ran under.
    settings = report["trace"]["settings"]
    for key in ("k", "m", "budget", "depth", "rrf_c", "side_drop"):
        assert settings[key] == s[key], key


def test_a_damaged_bundle_is_refused(bundle_dir, tmp_path):
    copy = tmp_path / "bundle"
    shutil.copytree(bundle_dir, copy)
    vectors = copy / "chunk_vectors.npy"
    data = bytearray(vectors.read_bytes())
    data[-1] ^= 0x01
    vectors.write_bytes(bytes(data))
    with pytest.raises(ss.BundleError, match="chunk_vectors.npy has blake3"):
        ss.load_bundle(copy)
    vectors.write_bytes(bytes(data[:-4]))
    with pytest.raises(ss.BundleError, match="chunk_vectors.npy has .* bytes"):
        ss.load_bundle(copy)
    (copy / "seams.jsonl").unlink()
    with pytest.raises(ss.BundleError, match="seams.jsonl is missing"):
        ss.load_bundle(copy, verify=True)


def _without_extras(decisions):
    return [
        {k: v for k, v in d.items() if k not in ("arithmetic", "outranked_both", "blocked_by")}
        for d in decisions
    ]


def test_fill_from_bundle_and_the_traces_rankings(bundle, reports):
    seams_changed = 0
    for report in reports:
        trace = report["trace"]
        question = trace["input"]["question"]
        lists = trace["input"]["ranking"]["lists"]
        chunks_only = trace["input"]["chunks_only"]["lists"]

        # Stage by stage, with the bundle's links and tuned settings.
        fused = ss.fuse(lists, c=bundle.settings["rrf_c"], depth=bundle.settings["depth"])
        assert fused == trace["fused"], question
        decisions = ss.fire_test(fused, bundle.links, m=bundle.m)
        assert _without_extras(decisions) == trace["decisions"], question
        fill = ss.fill_budget(fused, decisions, budget=bundle.budget)
        assert fill["chunks"] == trace["fill"]["chunks"], question
        assert fill["steps"] == trace["fill"]["steps"], question

        # All at once, with the chunks-only retrieval as the "without Seams" baseline.
        got = bundle.apply(lists, chunks_only=chunks_only, question=question)
        assert got["fill"] == trace["fill"], question
        assert got["context"] == trace["context"], question
        assert got["tokens_sent"] == trace["tokens_sent"], question
        assert got["without_seams"] == trace["without_seams"], question
        # The context's texts are the documents' own bytes at the chunks' spans.
        for chunk_id, text in zip(got["fill"]["chunks"], bundle.texts(got["fill"]["chunks"])):
            record = bundle.chunks[chunk_id]
            source = (SAMPLE / record["doc"]).read_bytes()[record["start"] : record["end"]]
            assert text == source.decode("utf-8"), (question, chunk_id)

        without = trace["without_seams"]["retrieval"]["fill"]["chunks"]
        if without != trace["fill"]["chunks"]:
            seams_changed += 1
    # The set is only a test of Seams if some fired seam changed what the budget holds.
    assert seams_changed > 0, "no question's fill differs from chunks-only retrieval"


def _dense(lists):
    (dense,) = [lst for lst in lists if lst["source"] == "dense"]
    return dense["hits"]


def test_bundle_vectors_reproduce_the_dense_list_and_the_fill(bundle, reports):
    for report in reports:
        trace = report["trace"]
        question = trace["input"]["question"]
        vector = np.asarray(report["question_vector"], dtype=np.float32)
        assert vector.shape == (bundle.settings["dim"],)
        ours = bundle.dense_ranking(vector)
        theirs = _dense(trace["input"]["ranking"]["lists"])
        assert len(ours) == len(theirs), question
        # Same order, except where two entries score the same within float rounding.
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if a["entry"] != b["entry"]:
                assert abs(a["score"] - b["score"]) <= SCORE_TOLERANCE, (question, i, a, b)
        assert [h["entry"] for h in ours[:10]] == [h["entry"] for h in theirs[:10]], question
        by_entry = {ss.entry_of(h): h["score"] for h in ours}
        for hit in theirs:
            assert by_entry[ss.entry_of(hit)] == pytest.approx(hit["score"], abs=SCORE_TOLERANCE)

        # The dense list from the bundle's vectors, the keyword lists from the trace: same fill.
        lists = [
            {"source": "dense", "hits": ours} if lst["source"] == "dense" else lst
            for lst in trace["input"]["ranking"]["lists"]
        ]
        assert bundle.apply(lists)["fill"]["chunks"] == trace["fill"]["chunks"], question
