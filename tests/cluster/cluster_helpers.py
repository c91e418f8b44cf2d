"""Helpers shared by the cluster tests: skipping without Dask, trees, process groups, and
what a scan saw in a form that does not depend on the order its chunks were merged in, so a
cluster scan can be compared with a local one entry for entry."""

from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from trees import make_awkward_tree, write

from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR


def require_dask() -> None:
    """Skip, saying why, where the cluster extra is not installed."""
    pytest.importorskip("distributed", reason="Dask is not installed: pip install "
                        "'mlspace[cluster]' (.ci/run does) to run the cluster tests")


def wait_for_file(path: str, timeout: float = 30.0) -> bool:
    """A task for a worker that holds its thread until ``path`` exists (or ``timeout``)."""
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def make_linked_tree(root: Path) -> Path:
    """The awkward tree, plus one inode linked from twenty folders, so that with tiny budgets
    its paths are walked by different tasks, often on different workers."""
    make_awkward_tree(root)
    source = write(root / "shared" / "weights.bin", 50_000)
    for i in range(20):
        folder = root / "runs" / f"run-{i:02d}" / "ckpt"
        folder.mkdir(parents=True)
        os.link(source, folder / "weights.bin")
        write(folder / "config.json", 100 + i)
    return root


def make_wide_tree(root: Path, folders: int = 100, files: int = 20) -> Path:
    """``folders`` folders of ``files`` small files, under four groups."""
    for d in range(folders):
        for f in range(files):
            write(root / f"group-{d % 4}" / f"d{d:03d}" / f"f{f:02d}.bin", 100 * (f + 1))
    return root


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is still there."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def entry_facts(snap: Snapshot) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Every entry's own facts, by (root, path below it)."""
    facts = {}
    for entry, root, path in snap.iter_paths():
        facts[(snap.roots[root], path)] = (
            int(snap.kind[entry]), int(snap.apparent[entry]), int(snap.blocks[entry]),
            float(snap.mtime[entry]), int(snap.ino[entry]), int(snap.nlink[entry]),
            int(snap.uid[entry]))
    return facts


def folder_facts(snap: Snapshot, with_sizes: bool) -> dict[str, tuple[Any, ...]]:
    """Every listed folder's totals and device, by path. Which path of a hard-linked inode is
    counted depends on the walk's order (as for du), so sizes only where asked."""
    facts = {}
    for row, path in enumerate(snap.dir_paths):
        sizes = (int(snap.dir_disk[row]), int(snap.dir_apparent[row])) if with_sizes else ()
        facts[path] = (int(snap.dir_files[row]), int(snap.dir_dirs[row]),
                       float(snap.dir_newest[row]), int(snap.dir_dev[row]), *sizes)
    return facts


def counted_per_inode(snap: Snapshot) -> dict[int, int]:
    """How many paths of each multiply linked inode are counted: 1 each when all is well."""
    counts: dict[int, int] = defaultdict(int)
    for entry in np.flatnonzero((snap.nlink > 1) & (snap.kind != KIND_DIR)):
        counts[int(snap.ino[entry])] += int(snap.counted[entry])
    return dict(counts)


def assert_same_scan(local: Snapshot, other: Snapshot) -> None:
    """Entry for entry, folder for folder, the same scan."""
    hard_links = bool(counted_per_inode(local))
    assert entry_facts(other) == entry_facts(local)
    assert folder_facts(other, not hard_links) == folder_facts(local, not hard_links)
    assert counted_per_inode(other) == counted_per_inode(local)
    assert set(counted_per_inode(other).values()) <= {1}
    assert other.grand_totals() == local.grand_totals()
    assert sorted(other.errors, key=str) == sorted(local.errors, key=str)
    assert sorted(other.other_filesystems) == sorted(local.other_filesystems)
    assert other.roots == local.roots
    assert not other.cancelled and not local.cancelled
