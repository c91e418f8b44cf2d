"""Vectorised lookups over contiguous child ranges (a directory's children are one range)."""

from __future__ import annotations

import numpy as np


def ordered_ranges(dir_first: np.ndarray, dir_count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows with children, sorted by where their child range starts, and those starts.

    These non-empty ranges tile every non-root entry in order, so a binary search over the
    starts finds the directory holding any entry.
    """
    rows = np.flatnonzero(dir_count > 0)
    rows = rows[np.argsort(dir_first[rows], kind="stable")]
    return rows, dir_first[rows]


def parent_rows_of(entries: np.ndarray, rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """For each of ``entries``, the row of the directory listing it, or -1 for a root.
    ``rows`` and ``starts`` come from :func:`ordered_ranges`."""
    if len(rows) == 0:
        return np.full(len(entries), -1, dtype=np.int64)
    pos = np.searchsorted(starts, entries, side="right") - 1
    return np.where(pos >= 0, rows[np.maximum(pos, 0)], -1)


class DirTree:
    """Subtree aggregates over the directory table, deepest directories first.

    A listed directory's total is its own value, plus its other children's values summed over
    its child range, plus its listed subdirectories' totals. Works for any per-entry column
    (sizes, counts, sizes of one category), so every layer computes totals the same way.
    """

    def __init__(self, dir_entry: np.ndarray, dir_first: np.ndarray, dir_count: np.ndarray,
                 dir_parent: np.ndarray) -> None:
        self.dir_entry = dir_entry
        self.dir_first = dir_first
        self.dir_count = dir_count
        self.dir_parent = dir_parent
        self.levels = _levels(dir_parent)

    def subtree_sums(self, values: np.ndarray) -> np.ndarray:
        """Per directory row, the sum of ``values`` over its subtree. ``values`` (int64, one
        per entry) is used as scratch and overwritten."""
        own_of_dirs = values[self.dir_entry]
        values[self.dir_entry] = 0
        np.cumsum(values, out=values)
        # Entry 0 is always a root, so every child range starts at 1 or later.
        first, count = self.dir_first, self.dir_count
        return self.add_up(own_of_dirs + values[first + count - 1] - values[first - 1])

    def add_up(self, per_row: np.ndarray) -> np.ndarray:
        """Turns what each row holds itself into what its subtree holds, in place: every row
        is added to its parent, deepest first. ``per_row`` may carry more axes (a row's
        totals per column and group) and more rows than the table (left alone)."""
        for level in self.levels:
            np.add.at(per_row, self.dir_parent[level], per_row[level])
        return per_row

    def subtree_max(self, values: np.ndarray) -> np.ndarray:
        """Per directory row, the maximum of ``values`` over its subtree (values untouched)."""
        out = values[self.dir_entry].astype(np.float64)
        rows, starts = ordered_ranges(self.dir_first, self.dir_count)
        if len(rows):
            # reduceat runs each range up to the next start; the non-empty ranges tile all
            # non-root entries, so that is exactly each range.
            out[rows] = np.maximum(out[rows], np.maximum.reduceat(values, starts))
        return self.max_up(out)

    def max_up(self, per_row: np.ndarray) -> np.ndarray:
        """Turns each row's own maximum into its subtree's, in place, deepest first."""
        for level in self.levels:
            np.maximum.at(per_row, self.dir_parent[level], per_row[level])
        return per_row


def exact_bincount(keys: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """Integer sums of integer ``values`` per key, exactly. np.bincount adds in float64 (and
    runs ~20x faster here than np.add.at), which is exact while every sum stays below 2**53
    (8 PiB). Sparse files can claim more: then each value is summed in two exact halves."""
    if float(values.sum(dtype=np.float64)) < 2.0**52:
        return np.bincount(keys, weights=values, minlength=length).astype(np.int64)
    low = np.bincount(keys, weights=values & 0xFFFFFF, minlength=length).astype(np.int64)
    high = np.bincount(keys, weights=values >> 24, minlength=length).astype(np.int64)
    return (high << 24) + low


def _levels(parent: np.ndarray) -> list[np.ndarray]:
    """Rows grouped by depth, deepest first, roots left out (they have no parent to add to)."""
    depth = np.zeros(len(parent), dtype=np.int64)
    has_parent = parent >= 0
    while True:
        proposed = np.where(has_parent, depth[np.maximum(parent, 0)] + 1, 0)
        if np.array_equal(proposed, depth):
            break
        depth = proposed
    return [np.flatnonzero(depth == d) for d in range(int(depth.max(initial=0)), 0, -1)]


#: The most bytes mlspace adds up: past it, 64-bit totals would wrap negative.
LARGEST_TOTAL = 2**63 - 1


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of non-negative int64 ``values`` as a Python int, whatever its size
    (numpy's own sum wraps past 2**63): in two halves that cannot overflow."""
    high = np.right_shift(values, 31).sum(dtype=np.int64)  # < 2**32 each, < 2**31 of them
    low = np.bitwise_and(values, 2**31 - 1).sum(dtype=np.int64)
    return (int(high) << 31) + int(low)
