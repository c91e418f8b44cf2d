"""A Hugging Face hub cache with things in it that hub never writes: a ref that is a FIFO or
a link to /dev/zero, a snapshot link that leads out of the cache to raw data."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from hostile_helpers import answers_quickly, assert_clean_run, mlspace_cli, python_cli
from layouts import Link, inventory_of, make

from mlspace.act import trash as trash_module
from mlspace.advise import advise
from mlspace.classify.readers.hf_hub import detached_revisions

REPO = "hub/models--org--name"


def _cache(root: Path) -> Path:
    """One cached repo: refs/main names revision bbbb; aaaa is an older one (detached
    unless some other ref names it)."""
    return make(root, {
        f"{REPO}/blobs/old-weights": 9000,
        f"{REPO}/blobs/new-weights": 9000,
        f"{REPO}/refs/main": "bbbb",
        f"{REPO}/snapshots/aaaa/model.safetensors": Link("../../blobs/old-weights"),
        f"{REPO}/snapshots/bbbb/model.safetensors": Link("../../blobs/new-weights"),
    })


def _hostile_ref(ref: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(ref)
    else:
        os.symlink("/dev/zero", ref)


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_a_ref_that_is_not_a_file_leaves_the_repo_alone(tmp_path: Path, kind: str) -> None:
    """refs/pr as a FIFO or -> /dev/zero: no hang, no endless read; that ref is unknown, so no
    revision of the repo can be called detached."""
    root = _cache(tmp_path / "ws")
    assert [d.revision for d in detached_revisions(str(root / REPO))] == ["aaaa"]  # control
    _hostile_ref(root / REPO / "refs" / "pr", kind)
    # In a child process with a memory cap: broken, the read of /dev/zero never ends.
    result = python_cli("import sys; from mlspace.classify.readers.hf_hub import "
                        "detached_revisions; print(detached_revisions(sys.argv[1]))",
                        str(root / REPO), timeout=20)
    assert_clean_run(result)
    assert result.stdout.strip() == "[]"
    if kind == "fifo":
        assert answers_quickly(inventory_of, root).hub_detached == ()


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_the_cli_answers_with_a_hostile_ref(tmp_path: Path, kind: str) -> None:
    """refs/pr as a FIFO or -> /dev/zero: inventory and plan return promptly within a
    memory cap and suggest nothing for the repo."""
    root = _cache(tmp_path / "ws")
    _hostile_ref(root / REPO / "refs" / "pr", kind)
    assert_clean_run(mlspace_cli("inventory", str(root)))
    plan = mlspace_cli("plan", str(root), "--format", "json")
    assert_clean_run(plan)
    assert [s for s in json.loads(plan.stdout)["suggestions"]
            if s["policy"] == "hub-detached"] == []


def _escaping_snapshot(root: Path) -> Path:
    """The detached revision aaaa links its weights to raw data outside the cache."""
    make(root, {
        "data/raw/train.parquet": 50_000,
        "data/raw/val.parquet": 5_000,
        f"{REPO}/blobs/new-weights": 9000,
        f"{REPO}/blobs/old-config": 100,
        f"{REPO}/refs/main": "bbbb",
        f"{REPO}/snapshots/aaaa/model.safetensors": Link("../../../../data/raw/train.parquet"),
        f"{REPO}/snapshots/aaaa/val.parquet": Link(str(root / "data/raw/val.parquet")),
        f"{REPO}/snapshots/aaaa/config.json": Link("../../blobs/old-config"),
        f"{REPO}/snapshots/bbbb/model.safetensors": Link("../../blobs/new-weights"),
    })
    return root


def test_a_detached_snapshot_linking_out_suggests_only_the_repo(tmp_path: Path) -> None:
    """snapshots/<old>/model.safetensors -> ../../../../data/raw/train.parquet: the cleanup of
    the detached revision holds only paths inside the repo folder, never the raw data."""
    root = _escaping_snapshot(tmp_path / "ws")
    inv = inventory_of(root)
    (detached,) = inv.hub_detached
    assert [os.path.basename(b) for b in detached.blobs] == ["old-config"]
    (s,) = [s for s in advise(inv).suggestions if s.policy == "hub-detached"]
    repo = str(root / REPO)
    assert all(p.startswith(repo + "/") for p in s.paths), s.paths
    assert sorted(os.path.relpath(p, repo) for p in s.paths) == [
        "blobs/old-config", "snapshots/aaaa"]


def test_a_blob_must_be_a_regular_file_directly_in_blobs(tmp_path: Path) -> None:
    """Links to blobs/sub/x, to a blobs/ entry that is itself a link, or to another repo's
    blobs are not blobs of this repo: none of them is suggested."""
    root = make(tmp_path / "ws", {
        "data/raw/train.parquet": 50_000,
        f"{REPO}/blobs/sub/nested": 100,
        f"{REPO}/blobs/escape": Link("../../../data/raw/train.parquet"),
        f"{REPO}/blobs/real": 100,
        "hub/models--org--other/blobs/theirs": 100,
        f"{REPO}/refs/main": "bbbb",
        f"{REPO}/snapshots/aaaa/a": Link("../../blobs/sub/nested"),
        f"{REPO}/snapshots/aaaa/b": Link("../../blobs/escape"),
        f"{REPO}/snapshots/aaaa/c": Link("../../../models--org--other/blobs/theirs"),
        f"{REPO}/snapshots/aaaa/d": Link("../../blobs/real"),
        f"{REPO}/snapshots/bbbb/x": Link("../../blobs/real2"),
    })
    (detached,) = inventory_of(root).hub_detached
    assert [os.path.relpath(b, root / REPO) for b in detached.blobs] == ["blobs/real"]


def _age(root: Path, days: float = 30) -> Path:
    """Date everything ``days`` back: clean refuses what changed in the last minutes."""
    stamp = time.time() - days * 86400
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (stamp, stamp), follow_symlinks=False)
    return root


@pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")
def test_clean_leaves_the_raw_data_where_it_is(tmp_path: Path) -> None:
    """`mlspace clean --apply <hub id> --yes` on that cache moves the old revision and its
    own blob, and the raw data stays untouched."""
    root = _age(_escaping_snapshot(tmp_path / "ws"))
    raw = {k: v for k, v in tree_digest(root).items() if k.startswith("data")}
    plan = mlspace_cli("plan", str(root), "--format", "json")
    assert_clean_run(plan)
    (hub,) = [s for s in json.loads(plan.stdout)["suggestions"] if s["policy"] == "hub-detached"]
    assert all(p.startswith(str(root / REPO) + "/") for p in hub["paths"]), hub["paths"]
    assert_clean_run(mlspace_cli("clean", str(root), "--apply", hub["id"], "--yes"))
    after = tree_digest(root)
    assert {k: v for k, v in after.items() if k.startswith("data")} == raw
    assert f"{REPO}/snapshots/aaaa" not in after
    assert f"{REPO}/snapshots/bbbb/model.safetensors" in after
