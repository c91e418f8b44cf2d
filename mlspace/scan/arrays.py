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
