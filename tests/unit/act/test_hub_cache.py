"""HF hub cache: detached revisions and the blobs only they use (ml-layouts.md §6.1)."""

from __future__ import annotations

import os
from pathlib import Path

from layouts import Link, inventory_of, make

from mlspace.advise import advise

REPO = ".cache/huggingface/hub/models--org--bert"


def test_detached_revision_and_its_exclusive_blobs_are_suggested(tmp_path: Path) -> None:
    make(tmp_path, {
        f"{REPO}/blobs/shared": 5000,
        f"{REPO}/blobs/old-weights": 9000,
        f"{REPO}/blobs/new-weights": 9000,
        f"{REPO}/refs/main": "bbbb",
        f"{REPO}/snapshots/aaaa/config.json": Link("../../blobs/shared"),
        f"{REPO}/snapshots/aaaa/model.safetensors": Link("../../blobs/old-weights"),
        f"{REPO}/snapshots/bbbb/config.json": Link("../../blobs/shared"),
        f"{REPO}/snapshots/bbbb/model.safetensors": Link("../../blobs/new-weights"),
    })
    inv = inventory_of(tmp_path)
    (detached,) = inv.hub_detached
    assert detached.revision == "aaaa"
    assert [os.path.basename(b) for b in detached.blobs] == ["old-weights"]
    s = next(s for s in advise(inv).suggestions if s.policy == "hub-detached")
    assert sorted(os.path.relpath(p, tmp_path / REPO) for p in s.paths) == [
        "blobs/old-weights", "snapshots/aaaa"]
    assert s.bytes >= 9000


def test_a_repo_without_refs_is_left_alone(tmp_path: Path) -> None:
    make(tmp_path, {f"{REPO}/blobs/x": 10, f"{REPO}/snapshots/aaaa/f": Link("../../blobs/x")})
    assert inventory_of(tmp_path).hub_detached == ()
