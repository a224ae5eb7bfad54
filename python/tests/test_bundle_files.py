"""Bundles that attack the reader through the file system or their vectors, made from the hostile
fixtures of the Rust tests (tests/fixtures/hostile/): a file that is a symbolic link or a FIFO is
refused before it is opened (a FIFO once hung the reader), and a vector of NaN or zeros is refused
with its row. No binary needed."""

import json
import os
import shutil
from pathlib import Path

import pytest

import seamscope_seams as ss
from seamscope_seams import _core

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hostile"
FILES = [
    "settings.json",
    "documents.jsonl",
    "chunks.jsonl",
    "seams.jsonl",
    "chunk_vectors.npy",
    "seam_vectors.npy",
]


def _bundle(tmp_path: Path, variant: str = "bundle-base") -> Path:
    """``bundle-base`` with the files of ``variant`` over it and a manifest that matches."""
    folder = tmp_path / variant
    folder.mkdir()
    files = []
    for name in FILES:
        own = FIXTURES / variant / name
        shutil.copyfile(own if own.exists() else FIXTURES / "bundle-base" / name, folder / name)
        files.append(
            {
                "name": name,
                "bytes": (folder / name).stat().st_size,
                "blake3": _core.blake3_file(str(folder / name)),
            }
        )
    manifest = {"bundle_version": 2, "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_the_base_bundle_loads(tmp_path):
    assert len(ss.load_bundle(_bundle(tmp_path)).chunks) == 1


@pytest.mark.parametrize("verify", [True, False])
def test_links_and_fifos_are_refused_before_they_are_opened(tmp_path, verify):
    folder = _bundle(tmp_path)
    settings = folder / "settings.json"
    settings.unlink()
    os.mkfifo(settings)
    with pytest.raises(ss.BundleError, match="settings.json is not a regular file"):
        ss.load_bundle(folder, verify=verify)
    settings.unlink()
    settings.symlink_to("/dev/zero")
    with pytest.raises(ss.BundleError, match="settings.json is a symbolic link"):
        ss.load_bundle(folder, verify=verify)
    # A link to a regular copy is a link all the same.
    settings.unlink()
    shutil.copyfile(FIXTURES / "bundle-base" / "settings.json", tmp_path / "elsewhere.json")
    settings.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(ss.BundleError, match="settings.json is a symbolic link"):
        ss.load_bundle(folder, verify=verify)


@pytest.mark.parametrize("variant", ["bundle-nan", "bundle-zero"])
def test_unusable_vectors_are_refused_with_their_row(tmp_path, variant):
    with pytest.raises(ss.BundleError, match="chunk_vectors.npy row 0 is not a usable vector"):
        ss.load_bundle(_bundle(tmp_path, variant))
