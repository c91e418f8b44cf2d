"""The charts' bars as on disk now: space per category, per age bucket and category, and
per owner, whatever the user's filter (the charts are where filters are chosen).

The scan's tables come from what classification and the age table already hold; after a
cleanup, only the entries that changed are summed (less what went to the trash, plus what
counts in its place, a hard link's other path), so a cleanup of a few checkpoints in a
million files costs microseconds, not a pass over the entries.
"""

from __future__ import annotations

import numpy as np

from mlspace.ages import BUCKETS
from mlspace.classify import ORDER, Category
from mlspace.owners import space_by_owner
from mlspace.scan.arrays import exact_bincount
from mlspace.scan.walker import KIND_DIR
from mlspace.tables.now import DiskNow

#: (space per category, space per age bucket x category, files per category).
ChartTables = tuple[np.ndarray, np.ndarray, np.ndarray]


def chart_tables(now: DiskNow, apparent: bool) -> ChartTables:
    """The three chart tables of what is on disk now, in the size mode."""
    def make() -> ChartTables:
        scanned = _scanned(now, apparent)
        if now.as_scanned:
            return scanned
        added, taken = now.counted_changes()
        files_gone = np.flatnonzero(now.removed & (now.snapshot.kind != KIND_DIR))
        plus = _sums(now, added, np.zeros(0, dtype=np.int64), apparent)
        minus = _sums(now, taken, files_gone, apparent)
        return tuple(a + b - c for a, b, c in zip(scanned, plus, minus, strict=True))  # type: ignore[return-value]
    return now.once(f"charts:{apparent}", make)


def category_bars(now: DiskNow, apparent: bool) -> list[tuple[Category, int]]:
    """The category chart's bars: every category that holds files or space now."""
    per_cat, _, files = chart_tables(now, apparent)
    return [(c, int(per_cat[c])) for c in ORDER if files[c] or per_cat[c]]


def owner_bars(now: DiskNow, apparent: bool) -> list[tuple[int, int]]:
    """The owner chart's bars: (uid, space) of each owner of something on disk now,
    largest first: the scan's table less what went since, summed over the entries that
    changed only."""
    def make() -> list[tuple[int, int]]:
        if now.as_scanned:
            return space_by_owner(now.snapshot, apparent)
        return space_by_owner(now.snapshot, apparent, *now.counted_changes(), now.removed)
    return now.once(f"owners:{apparent}", make)


def _scanned(now: DiskNow, apparent: bool) -> ChartTables:
    """The chart tables of the scan as it was, from the totals classification and the age
    table already hold."""
    per_cat = np.zeros(len(Category), dtype=np.int64)
    files = np.zeros(len(Category), dtype=np.int64)
    for category, t in now.inventory.category_totals().items():
        per_cat[category] = t.apparent_size if apparent else t.disk_usage
        files[category] = t.files
    table = now.ages.by_category_apparent if apparent else now.ages.by_category
    return per_cat, table, files


def _sums(now: DiskNow, counted: np.ndarray, files: np.ndarray, apparent: bool
          ) -> ChartTables:
    """The chart tables of the ``counted`` entries (space) and the ``files`` (counts)."""
    inv, snap = now.inventory, now.snapshot
    n_cat = len(Category)
    sizes = snap.apparent[counted] if apparent else snap.disk_sizes(counted)
    categories = inv.categories[counted]
    per_cat = exact_bincount(categories, sizes, n_cat)
    counted_files = snap.kind[counted] != KIND_DIR
    index = now.ages.buckets[counted[counted_files]].astype(np.int64) * n_cat + \
        categories[counted_files]
    table = exact_bincount(index, sizes[counted_files], len(BUCKETS) * n_cat)
    file_counts = np.bincount(inv.categories[files], minlength=n_cat).astype(np.int64)
    return per_cat, table.reshape(len(BUCKETS), n_cat), file_counts
