"""The white paper's worked example (section 3.2) through the Python API, with the same numbers as
tests/retrieve_worked_example.rs: seam 7|8 fires, seam 12|13 does not, and a budget of five holds
chunks 7, 8, 12, 3 and 20."""

import pytest

import seamscope_seams as ss
from seamscope_seams import chunk, seam

LINKS = {78: (7, 8), 1213: (12, 13)}

# Positions 1-11 of the example; chunk 13 is absent.
RANKING = [
    seam(78),  # 1: the whole argument
    chunk(12),  # 2: an earlier section on read replicas
    seam(1213),  # 3: the cut after chunk 12
    chunk(7),  # 4: the trade-off
    chunk(3),  # 5: background
    chunk(20),  # 6: background
    chunk(15),  # 7: background
    chunk(30),  # 8: other
    chunk(31),  # 9: other
    chunk(32),  # 10: other
    chunk(8),  # 11: the decision and the exception
]


def test_fire_test():
    decisions = ss.fire_test(RANKING, LINKS, m=3)
    assert len(decisions) == 2

    seam_7_8 = decisions[0]
    assert seam_7_8["seam"] == 78
    assert seam_7_8["seam_position"] == 1
    assert seam_7_8["left"]["fused_position"] == 4
    assert seam_7_8["right"]["fused_position"] == 11
    assert seam_7_8["fires"] is True
    assert seam_7_8["outranked_both"] is True
    assert seam_7_8["fired_on_absence"] is False
    assert seam_7_8["arithmetic"] == "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires"

    seam_12_13 = decisions[1]
    assert seam_12_13["seam"] == 1213
    assert seam_12_13["seam_position"] == 3
    assert seam_12_13["fires"] is False
    assert seam_12_13["fired_on_absence"] is False
    # Chunk 13 is absent and counts as last (11 + 1 = 12): it would not block; chunk 12 does.
    assert seam_12_13["right"]["fused_position"] is None
    assert seam_12_13["right"]["counted_position"] == 12
    assert seam_12_13["blocked_by"] == [12]
    assert seam_12_13["arithmetic"] == "3 + 3 = 6 > 2 (chunk 12): does not fire"


def test_budget_table():
    decisions = ss.fire_test(RANKING, LINKS, m=3)
    fill = ss.fill_budget(RANKING, decisions, budget=5)

    def step(position, entry, action, used):
        return {
            "position": position,
            "entry": entry,
            "action": action,
            "slots_used_after": used,
        }

    assert fill["steps"] == [
        step(1, {"seam": 78}, {"action": "added_pair", "added": [7, 8]}, 2),
        step(2, {"chunk": 12}, {"action": "added"}, 3),
        step(3, {"seam": 1213}, {"action": "dropped_seam"}, 3),
        step(4, {"chunk": 7}, {"action": "skipped_already_included"}, 3),
        step(5, {"chunk": 3}, {"action": "added"}, 4),
        step(6, {"chunk": 20}, {"action": "added"}, 5),
    ]
    assert fill["chunks"] == [7, 8, 12, 3, 20]
    assert fill["slots_used"] == 5
    assert fill["descriptions"][0] == "fired: added chunk 7 and chunk 8"
    assert fill["descriptions"][2] == "did not fire; dropped"


def test_through_apply_seams_with_baseline_and_a_stricter_margin():
    trace = ss.apply_seams(
        None,
        LINKS,
        fused=RANKING,
        tokens={i: 1024 for i in range(40)},
        m=3,
        budget=5,
        question="Why does the order service accept stale reads?",
    )
    assert trace["fill"]["chunks"] == [7, 8, 12, 3, 20]
    assert trace["tokens_sent"] == 5 * 1024
    assert [c["chunk"] for c in trace["context"]] == [7, 8, 12, 3, 20]
    removed = trace["without_seams"]["seams_removed"]
    assert removed["without_seams"] == [12, 7, 3, 20, 15]
    assert removed["displaced"] == [15]
    assert removed["added"] == [8]
    assert trace["without_seams"]["retrieval"] is None
    assert trace["plan"]["rerank"] == {"status": "not_configured"}
    assert trace["input"]["question"] == "Why does the order service accept stale reads?"

    # A bigger margin stops seam 7|8 (1 + 4 = 5 > 4): the plain ranking comes back.
    stricter = ss.apply_seams(None, LINKS, fused=RANKING, m=4, budget=5)
    assert stricter["fill"]["chunks"] == [12, 7, 3, 20, 15]
    assert stricter["decisions"][0]["arithmetic"] == "1 + 4 = 5 > 4 (chunk 7): does not fire"


def test_fuse_hand_computed_scores():
    # dense: seam 1, chunk 2, chunk 3; bm25 chunks: chunk 3, chunk 2; bm25 seams: seam 1 (c = 60).
    fused = ss.fuse(
        [
            {"source": "dense", "hits": [seam(1), chunk(2), chunk(3)]},
            {"source": "keyword_chunks", "hits": [chunk(3), chunk(2)]},
            {"source": "keyword_seams", "hits": [seam(1)]},
        ]
    )
    assert [ss.entry_of(e) for e in fused] == [seam(1), chunk(3), chunk(2)]
    expected = [2 / 61, 1 / 61 + 1 / 63, 2 / 62]
    for entry, want in zip(fused, expected):
        assert entry["score"] == pytest.approx(want, abs=1e-12)
    assert fused[1]["per_list"][0] == {"source": "dense", "rank": 3, "score": pytest.approx(1 / 3)}
    assert fused[1]["per_list"][1]["rank"] == 1
    # depth cuts each list first: chunk 3 keeps only its bm25 rank.
    cut = ss.fuse([[seam(1), chunk(2), chunk(3)], [chunk(3), chunk(2)]], depth=2)
    # chunk 3 and seam 1 tie at 1/61 with one list each: chunks before seams.
    assert [ss.entry_of(e) for e in cut] == [chunk(2), chunk(3), seam(1)]


def test_bad_input_says_what_is_wrong():
    with pytest.raises(KeyError, match="no link for seam 1213"):
        ss.fire_test(RANKING, {78: (7, 8)}, m=3)
    with pytest.raises(TypeError, match="an entry is"):
        ss.fuse([[("chunk", 1), 7]])
    with pytest.raises(ValueError, match="kind"):
        ss.fuse([[("passage", 1)]])
    with pytest.raises(ValueError, match="RRF constant"):
        ss.fuse([[chunk(1)]], c=-1)
    with pytest.raises(KeyError, match="no token count for chunk 8"):
        ss.apply_seams(None, LINKS, fused=RANKING, tokens={7: 10}, m=3)
