"""What is on disk now, as the app derives it from a scan and the paths moved away since,
equals a fresh scan of the disk: every folder's size (folders count their own blocks), file
count and category totals, under every kind of filter, with hard links counted at the
first path still there."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from layouts import make
from walkers import both_walkers  # noqa: F401 (each test runs with both walkers)

from mlspace.ages import age_table
from mlspace.classify import Category, Inventory, classify
from mlspace.filtering import FilterSpec, apply_filter, counted_links, removed_entries
from mlspace.scan import ScanOptions, scan

SPECS = [FilterSpec(), FilterSpec(categories=frozenset({Category.CHECKPOINT})),
         FilterSpec(categories=frozenset({Category.LOG, Category.DATASET})),
         FilterSpec(bucket=0), FilterSpec(text="log"), FilterSpec(min_size=3000)]


def _workspace(root: Path) -> Path:
    make(root, {
        "run/checkpoint-10/model.safetensors": 9000, "run/checkpoint-10/optimizer.pt": 7000,
        "run/checkpoint-20/model.safetensors": 9000, "run/checkpoint-20/optimizer.pt": 7000,
        "run/train.log": 3000, "run/events/old.log": 1500,
        "data/a.npy": 5000, "data/b.npy": 6000, "data/nested/c.npy": 100,
        "src/__pycache__/x.pyc": 400, "src/x.py": "print()\n", "empty": None,
    })
    os.link(root / "data" / "a.npy", root / "run" / "a-link.npy")  # counted under data/
    return root


def _scan(root: Path) -> Inventory:
    return classify(scan([root], ScanOptions(workers=1)))


def _by_path(inv: Inventory) -> dict[str, int]:
    """Every entry by its absolute path."""
    snap = inv.snapshot
    return {snap.path(e): e for e in range(len(snap))}


@pytest.mark.parametrize("moved", [
    ["run/checkpoint-10"], ["data/a.npy"], ["src/__pycache__", "run/train.log"],
    ["data", "run/events/old.log"], ["run/checkpoint-10/optimizer.pt", "data/nested"],
])
def test_what_is_left_equals_a_fresh_scan(tmp_path: Path, moved: list[str]) -> None:
    root = _workspace(tmp_path / "ws")
    inv = _scan(root)
    ages = age_table(inv)
    paths = _by_path(inv)
    removed = removed_entries(inv.snapshot, [paths[str(root / m)] for m in moved])
    assert removed is not None
    for m in moved:
        target = root / m
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    after = _scan(root)
    after_paths = _by_path(after)
    counted = counted_links(inv.snapshot, removed)
    disk, apparent, files = inv.folder_category_totals(removed, counted)
    for spec in SPECS:
        derived = apply_filter(inv, ages, spec, removed, counted)
        truth = apply_filter(after, age_table(after), spec)
        for path, entry in paths.items():
            fresh_entry = after_paths.get(path, -1)
            assert (fresh_entry >= 0) == (not removed[entry]), path
            if fresh_entry < 0:
                continue
            for mode in (False, True):
                assert derived.size(inv, entry, mode) == truth.size(after, fresh_entry, mode), \
                    (spec, path, mode)
                assert derived.visible(inv, entry, mode) == truth.visible(after, fresh_entry,
                                                                          mode), (spec, path)
            row, fresh_row = inv.snapshot.row_of(entry), after.snapshot.row_of(fresh_entry)
            if row >= 0:
                assert derived.dir_files[row] == truth.dir_files[fresh_row], (spec, path)
                if spec == FilterSpec():
                    assert np.array_equal(disk[row], after.dir_category_disk[fresh_row]), path
                    assert np.array_equal(apparent[row], after.dir_category_apparent[fresh_row])
                    assert np.array_equal(files[row], after.dir_category_files[fresh_row])


def test_removing_the_counted_link_counts_the_other(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    inv = _scan(root)
    paths = _by_path(inv)
    snap = inv.snapshot
    first, second = paths[str(root / "data" / "a.npy")], paths[str(root / "run" / "a-link.npy")]
    assert snap.counted[first] and not snap.counted[second]
    removed = removed_entries(snap, [first])
    counted = counted_links(snap, removed)
    assert counted[second]
    assert counted_links(snap, None) is snap.counted
    unrelated = removed_entries(snap, [paths[str(root / "src")]])
    assert counted_links(snap, unrelated) is snap.counted  # no link was involved


def test_a_removed_folder_takes_everything_below_it(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    inv = _scan(root)
    paths = _by_path(inv)
    removed = removed_entries(inv.snapshot, [paths[str(root / "run")]])
    assert removed is not None
    below = {p for p in paths if p == str(root / "run") or p.startswith(str(root / "run") + "/")}
    assert {p for p, e in paths.items() if removed[e]} == below
    assert removed_entries(inv.snapshot, []) is None
