"""Each byte of a report counted once, under one item and one category.

Artifacts nest: a Lightning ``version_N`` folder is a run (a log artifact) and holds the
run's ``.ckpt`` files, each a checkpoint artifact of its own. Listed at their whole sizes,
the checkpoints' bytes were in the report twice, once under "log", and a spreadsheet's sum
per category of the CSV disagreed with the report's own categories. So a report lists
each artifact with the bytes that are its own: its entries that no artifact inside it
holds, and of its own category (a run's ``checkpoints/`` folder listing is a checkpoint
byte, not a log one). What no listed item holds is given per category as the rest, so the
items and the rest add up, category by category, to the scan's categories exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlspace.classify import Category, Inventory
from mlspace.scan.arrays import exact_bincount
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True)
class OwnSizes:
    """Per artifact (in the order of ``inventory.artifacts``), what is its own; and per
    category, what no artifact holds."""

    disk: list[int]
    apparent: list[int]
    files: list[int]
    rest: dict[Category, tuple[int, int, int]]  # disk, apparent, files


def own_sizes(inv: Inventory) -> OwnSizes:
    snap = inv.snapshot
    n = len(inv.artifacts)
    owner = inv.artifact_of_entries()
    category_of = np.array([int(a.category) for a in inv.artifacts] + [-1], dtype=np.int64)
    own = np.flatnonzero((owner >= 0) & (inv.categories == category_of[owner]))
    counted = snap.counted[own]
    keys = owner[own]
    disk = exact_bincount(keys, np.where(counted, snap.blocks[own], 0), n) * 512
    apparent = exact_bincount(keys, np.where(counted, snap.apparent[own], 0), n)
    files = np.bincount(keys[snap.kind[own] != KIND_DIR], minlength=n)
    totals = inv.category_totals()
    rest = {}
    for category in Category:
        mine = category_of[:n] == int(category)
        rest[category] = (totals[category].disk_usage - int(disk[mine].sum()),
                          totals[category].apparent_size - int(apparent[mine].sum()),
                          totals[category].files - int(files[mine].sum()))
    return OwnSizes(disk.tolist(), apparent.tolist(), files.tolist(), rest)
