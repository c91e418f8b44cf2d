"""Age buckets ("today" ... "older"): per-file age, per-folder totals, and the
category x age table the age chart shows. Ages count from the newest modification."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from mlspace.classify import Category, Inventory
from mlspace.scan.walker import KIND_DIR

DAY = 86400.0


@dataclass(frozen=True)
class AgeBucket:
    key: str
    label: str
    max_days: float  # files younger than this (and older than the previous bucket's)


BUCKETS: tuple[AgeBucket, ...] = (
    AgeBucket("today", "Today", 1),
    AgeBucket("week", "This week", 7),
    AgeBucket("month", "This month", 30),
    AgeBucket("quarter", "3 months", 91),
    AgeBucket("year", "This year", 365),
    AgeBucket("older", "Older", float("inf")),
)


def bucket_of_mtimes(mtime: np.ndarray, now: float | None = None) -> np.ndarray:
    """The bucket index of each modification time (files from the future count as today)."""
    now = time.time() if now is None else now
    age_days = (now - mtime) / DAY
    edges = np.array([b.max_days for b in BUCKETS[:-1]])
    return np.searchsorted(edges, age_days, side="right").astype(np.uint8)


def bucket_of_age(age_seconds: float) -> int:
    return int(bucket_of_mtimes(np.array([time.time() - age_seconds]))[0])


@dataclass(frozen=True, eq=False)
class AgeTable:
    """Space per (age bucket, category) over files, and each folder's per-bucket totals."""

    buckets: np.ndarray  # uint8 per entry
    by_category: np.ndarray  # buckets x categories, on disk
    by_category_apparent: np.ndarray
    dir_disk: np.ndarray  # folder rows x buckets
    dir_apparent: np.ndarray


def age_table(inv: Inventory, now: float | None = None) -> AgeTable:
    snap = inv.snapshot
    buckets = bucket_of_mtimes(snap.mtime, now)
    files = (snap.kind != KIND_DIR) & snap.counted
    n_cat, n_age = len(Category), len(BUCKETS)
    index = buckets.astype(np.int64) * n_cat + inv.categories
    disk = snap.disk_sizes()
    by_cat = np.bincount(index[files], weights=disk[files], minlength=n_age * n_cat)
    by_cat_apparent = np.bincount(index[files], weights=snap.apparent[files],
                                  minlength=n_age * n_cat)
    dir_disk = np.zeros((len(snap.dir_entry), n_age), dtype=np.int64)
    dir_apparent = np.zeros_like(dir_disk)
    scratch = np.empty(len(snap), dtype=np.int64)
    for b in range(n_age):
        mask = files & (buckets == b)
        for out, values in ((dir_disk, disk), (dir_apparent, snap.apparent)):
            np.multiply(values, mask, out=scratch)
            out[:, b] = snap.tree.subtree_sums(scratch)
    return AgeTable(
        buckets=buckets,
        by_category=by_cat.reshape(n_age, n_cat).astype(np.int64),
        by_category_apparent=by_cat_apparent.reshape(n_age, n_cat).astype(np.int64),
        dir_disk=dir_disk,
        dir_apparent=dir_apparent,
    )
