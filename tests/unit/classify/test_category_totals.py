"""Per-folder totals by category: each equals the plain sum over the folder's subtree, and the
categories add up to the folder's totals (hard links counted once, as everywhere)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from layouts import make
from trees import make_awkward_tree

from mlspace.classify import Category, classify
from mlspace.scan import ScanOptions, scan
from mlspace.scan.arrays import exact_bincount


def test_category_totals_equal_a_walk_of_each_subtree(tmp_path: Path) -> None:
    root = make_awkward_tree(tmp_path / "ws")
    make(root / "run", {
        "checkpoint-10/model.safetensors": 3000, "checkpoint-10/optimizer.pt": 5000,
        "checkpoint-10/trainer_state.json": {"global_step": 10}, "train.log": "x" * 700,
        **{f"images/{i:03d}.jpg": 100 for i in range(12)},
    })
    os.link(root / "run" / "checkpoint-10" / "optimizer.pt", root / "run" / "optimizer-copy.pt")
    inventory = classify(scan([root], ScanOptions(workers=1)))
    snap = inventory.snapshot
    # What a cleanup took away: every third entry (with all below it).
    trashed = np.zeros(len(snap), dtype=bool)
    for entry in range(1, len(snap), 3):
        trashed[list(snap.subtree(entry))] = True
    after_cleanup = inventory.folder_category_totals(trashed)
    # A few entries left out (every seventh): summed the other way round from when most are.
    hidden = np.zeros(len(snap), dtype=bool)
    hidden[1::7] = True
    assert hidden.sum() < len(snap) // 2 < trashed.sum()
    filtered = inventory.folder_category_totals(hidden)
    seen = set()
    for row, folder in enumerate(snap.dir_entry.tolist()):
        for leaving_out, tables in ((None, (inventory.dir_category_disk,
                                            inventory.dir_category_apparent,
                                            inventory.dir_category_files)),
                                    (trashed, after_cleanup), (hidden, filtered)):
            disk, apparent, files = _walk(inventory, folder, leaving_out)
            for cat in Category:
                assert tables[0][row, cat] == disk[cat]
                assert tables[1][row, cat] == apparent[cat]
                assert tables[2][row, cat] == files[cat]
        assert inventory.dir_category_disk[row].sum() == snap.dir_disk[row]
        assert inventory.dir_category_apparent[row].sum() == snap.dir_apparent[row]
        assert inventory.dir_category_files[row].sum() == snap.dir_files[row]
        seen |= {c for c in Category if inventory.dir_category_files[row, c]}
    assert {Category.CHECKPOINT, Category.LOG, Category.DATASET} <= seen


def _walk(inventory, folder: int, leaving_out: np.ndarray | None):  # noqa: ANN001, ANN202
    """Per-category disk, apparent and file counts of a folder's subtree, entry by entry."""
    snap = inventory.snapshot
    disk, apparent, files = (dict.fromkeys(Category, 0) for _ in range(3))
    for entry in snap.subtree(folder):
        if leaving_out is not None and leaving_out[entry]:
            continue
        cat = inventory.category(entry)
        if snap.counted[entry]:
            disk[cat] += int(snap.blocks[entry]) * 512
            apparent[cat] += int(snap.apparent[entry])
        files[cat] += not snap.is_dir(entry)
    return disk, apparent, files


def test_sums_stay_exact_beyond_float_precision() -> None:
    """Sparse files can claim exabytes: the per-folder sums must not round."""
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 50, 5000)
    for scale in (2**20, 2**56):  # the float path and the two-halves path
        values = rng.integers(0, scale, 5000, dtype=np.int64) + 1
        expected = [sum(int(v) for k, v in zip(keys, values, strict=True) if k == key)
                    for key in range(50)]
        assert exact_bincount(keys, values, 50).tolist() == expected

