"""Fixtures for the sample-corpus tests: the real seamscope binary (built by scripts/test, path in
SEAMSCOPE_BIN), a bundle it exported and the JSON traces of questions it answered, all with one
private cache so the corpus is indexed once."""

import concurrent.futures
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample-corpus"
# Every tenth question of the sample set: 13 questions from every document group.
QUESTION_STRIDE = 10


def _binary() -> Path:
    given = os.environ.get("SEAMSCOPE_BIN")
    if given:
        path = Path(given)
    else:
        target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
        path = target / "debug" / "seamscope"
    if not path.is_file():
        pytest.fail(
            f"no seamscope binary at {path}: build it (cargo build) and set SEAMSCOPE_BIN; "
            "scripts/test does both"
        )
    return path


@pytest.fixture(scope="session")
def seamscope(tmp_path_factory):
    """Run the binary with a private cache; returns its stdout."""
    binary = _binary()
    cache = tmp_path_factory.mktemp("cache")
    env = dict(os.environ, SEAMSCOPE_CACHE_DIR=str(cache))

    def run(*args: str) -> str:
        done = subprocess.run(
            [str(binary), *args], env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            pytest.fail(f"seamscope {' '.join(args)} failed ({done.returncode}): {done.stderr}")
        return done.stdout

    return run


@pytest.fixture(scope="session")
def bundle_dir(seamscope, tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "bundle"
    seamscope("export", str(SAMPLE), "--out", str(out))
    return out


@pytest.fixture(scope="session")
def questions():
    with open(SAMPLE / "questions.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [row["question"] for row in rows[::QUESTION_STRIDE]]


@pytest.fixture(scope="session")
def reports(seamscope, bundle_dir, questions):
    """`seamscope query --json` for each question (after the export, so the index is warm)."""
    return [json.loads(seamscope("query", str(SAMPLE), q, "--json")) for q in questions]


@pytest.fixture(scope="session")
def all_reports(seamscope, bundle_dir):
    """`seamscope query --json` for every sample question (130), for the store tests: each
    report's trace (its keyword lists, its fill) and the question vector seamscope embedded."""
    with open(SAMPLE / "questions.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    # SEAMSCOPE_TEST_REPORTS_CACHE (for working on the tests by hand, never set by scripts/test):
    # a file of these reports from an earlier run, read instead of asking the binary again.
    cache = os.environ.get("SEAMSCOPE_TEST_REPORTS_CACHE")
    if cache and os.path.exists(cache):
        with open(cache, encoding="utf-8") as f:
            return json.load(f)
    # Two at a time: each call spends most of its time loading the index and the model.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        out = pool.map(lambda row: seamscope("query", str(SAMPLE), row["question"], "--json"), rows)
        reports = [json.loads(text) for text in out]
    if cache:
        with open(cache, "w", encoding="utf-8") as f:
            json.dump(reports, f)
    return reports
