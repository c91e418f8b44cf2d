"""Shared by the saved-scan tests: rich workspaces, a save-and-open round trip, and a check
that two scans say exactly the same thing."""

from __future__ import annotations

import dataclasses
import subprocess
import time
from pathlib import Path

import numpy as np
from cli_runner import run_mlspace
from trees import make_awkward_tree

from mlspace.classify import Inventory, classify
from mlspace.demo import generate
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_write import write_parquet
from mlspace.index.saved import SavedScan, open_saved
from mlspace.scan import ScanOptions, Snapshot, scan


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args, timeout=300)


def rich_workspace(root: Path) -> Path:
    """The demo workspace (HF Trainer, Lightning, W&B, datasets, caches, a core dump, whose
    best and latest come from the tools' records) with the awkward tree inside it (hard
    links, a sparse file, symlinks, a FIFO, a non-UTF-8 name, a deep nest)."""
    generate(root)
    make_awkward_tree(root / "odd")
    return root


def scan_of(*roots: Path, workers: int = 1) -> Inventory:
    return classify(scan(list(roots), ScanOptions(workers=workers)))


def saved_and_opened(inventory: Inventory, folder: Path) -> SavedScan:
    path = folder / f"scan-{time.monotonic_ns()}.parquet"
    write_parquet(str(path), inventory, ScanInfo.here(time.time()))
    return open_saved(str(path))


def assert_same_snapshot(a: Snapshot, b: Snapshot) -> None:
    """Entry for entry, folder for folder: names, sizes, kinds, owners, hard links, totals."""
    assert a.roots == b.roots and a.root_entries == b.root_entries
    assert bytes(a.name_buffer) == bytes(b.name_buffer)
    for column in ("kind", "apparent", "blocks", "mtime", "ino", "nlink", "uid", "counted"):
        assert np.array_equal(getattr(a, column), getattr(b, column)), column
    assert a.grand_totals() == b.grand_totals()
    assert sorted(a.dir_paths) == sorted(b.dir_paths)
    for entry in range(len(a)):
        assert a.totals(entry) == b.totals(entry), a.path(entry)
        assert a.path(entry) == b.path(entry)
        assert a.parent(entry) == b.parent(entry)
    assert a.errors == b.errors and a.other_filesystems == b.other_filesystems
    assert a.cancelled == b.cancelled


def assert_same_inventory(a: Inventory, b: Inventory) -> None:
    """Categories, totals by category for every folder, artifacts, series (best and latest,
    and how they are known), runs: all equal."""
    assert_same_snapshot(a.snapshot, b.snapshot)
    assert np.array_equal(a.categories, b.categories)
    assert a.artifacts == b.artifacts
    assert a.series == b.series
    assert a.runs == b.runs
    assert a.warnings == b.warnings and a.hub_detached == b.hub_detached
    assert {c: dataclasses.astuple(t) for c, t in a.category_totals().items()} == \
        {c: dataclasses.astuple(t) for c, t in b.category_totals().items()}
    for entry in a.snapshot.dir_entry.tolist():
        ta, tb = a.category_totals(entry), b.category_totals(entry)
        assert {c: dataclasses.astuple(t) for c, t in ta.items()} == \
            {c: dataclasses.astuple(t) for c, t in tb.items()}, a.snapshot.path(entry)
    assert np.array_equal(a.artifact_of_entries(), b.artifact_of_entries())
