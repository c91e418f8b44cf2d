"""Growth over the saved scans of a folder: the app's Growth tab and the report's growth
section.

Two things are read from the history (mlspace.index.history):

- ``growth_points(roots)``: every kept scan of exactly these folders with its totals per
  category, from each file's footer only (no entry is read), so a chart over thirty scans of
  a million files each reads a few megabytes.
- ``sizes_then(old, new)``: one saved scan matched, entry by entry, with the scan shown, by
  path below the scanned folder as ``mlspace diff`` matches folders
  (mlspace.index.diff.match_folders), giving each entry's size in the saved scan. The app
  subtracts these from what is on disk now, so "change since" follows a cleanup or an undo
  like every other number on screen, without matching again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mlspace.classify import Category
from mlspace.index import history
from mlspace.index.diff import match_folders
from mlspace.index.errors import CannotOpen
from mlspace.scan import Snapshot


@dataclass(frozen=True)
class GrowthPoint:
    """One kept scan of the folders: when, where, and its space per category."""

    id: str
    finished: float  # seconds since the epoch
    host: str
    path: str  # the saved scan's file
    disk: tuple[int, ...]  # per Category (by its value), on disk
    apparent: tuple[int, ...]  # per Category, apparent

    def sizes(self, apparent: bool) -> tuple[int, ...]:
        return self.apparent if apparent else self.disk


def growth_points(roots: Sequence[str]) -> list[GrowthPoint]:
    """The kept scans of exactly these folders, oldest first. A file that cannot be read
    (damaged, removed meanwhile) is left out: the chart shows what can be shown."""
    from mlspace.index.parquet_read import read_metadata

    wanted = tuple(roots)
    points = []
    for entry in history.entries():
        if entry.roots != wanted:
            continue
        try:
            categories = read_metadata(str(entry.path)).get("categories")
        except CannotOpen:
            continue
        if not isinstance(categories, dict):
            continue
        points.append(GrowthPoint(entry.id, entry.finished, entry.host, str(entry.path),
                                  _per_category(categories, "disk_usage"),
                                  _per_category(categories, "apparent_size")))
    return points


def _per_category(records: dict, key: str) -> tuple[int, ...]:
    sizes = []
    for category in Category:
        value = records.get(category.id, {})
        size = value.get(key, 0) if isinstance(value, dict) else 0
        sizes.append(size if isinstance(size, int) and not isinstance(size, bool) else 0)
    return tuple(sizes)


@dataclass(frozen=True, eq=False)
class SizesThen:
    """Per entry of the scan shown (``snapshot``): its size in an older scan, and whether it
    was there at all. A folder's size is its whole subtree's then, so what went since counts
    in its change too."""

    snapshot: Snapshot
    disk: np.ndarray  # int64 per entry, 0 when it was not there
    apparent: np.ndarray
    was_there: np.ndarray  # bool per entry


def sizes_then(old: Snapshot, new: Snapshot) -> SizesThen:
    """Match ``old`` with ``new``: folders by path below the scanned folder (as ``diff``
    does), every other entry by its name in the matched folder. Sizes are what each counts
    in its scan (a second path to a hard-linked file counts nothing)."""
    n = len(new)
    disk, apparent = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    was_there = np.zeros(n, dtype=bool)
    folder_rows = match_folders(old, new)
    rows = np.flatnonzero(folder_rows >= 0)
    old_rows = folder_rows[rows]
    folders = new.dir_entry[rows]
    disk[folders], apparent[folders] = old.dir_disk[old_rows], old.dir_apparent[old_rows]
    was_there[folders] = True
    new_entries, old_entries = _same_names(old, new, rows, old_rows)
    # Folders were matched by path above; a file that became a folder (or the other way
    # round) is not the same thing.
    plain = (new.rows_of(new_entries) < 0) & (old.rows_of(old_entries) < 0)
    new_entries, old_entries = new_entries[plain], old_entries[plain]
    counted = old.counted[old_entries]
    disk[new_entries] = np.where(counted, old.disk_sizes(old_entries), 0)
    apparent[new_entries] = np.where(counted, old.apparent[old_entries], 0)
    was_there[new_entries] = True
    return SizesThen(new, disk, apparent, was_there)


def _same_names(old: Snapshot, new: Snapshot, rows: np.ndarray, old_rows: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The children of each pair of matched folders that have the same name, as (entries
    in new, entries in old). A folder listed in the same order as before (nothing came or
    went, the usual case) is matched whole, without a lookup per name."""
    new_parts, old_parts = [], []
    for row, old_row in zip(rows.tolist(), old_rows.tolist(), strict=True):
        first, old_first = int(new.dir_first[row]), int(old.dir_first[old_row])
        # Compared as stored: decoding a folder of 100,000 names and comparing the lists
        # held the interpreter 50 ms, and the app's window with it (this runs in a worker).
        if new.child_name_bytes(row) == old.child_name_bytes(old_row):
            count = int(new.dir_count[row])
            new_parts.append(np.arange(first, first + count, dtype=np.int64))
            old_parts.append(np.arange(old_first, old_first + count, dtype=np.int64))
            continue
        names, old_names = new.child_names(row), old.child_names(old_row)
        where = {name: i for i, name in enumerate(old_names)}
        pairs = [(first + i, old_first + where[name]) for i, name in enumerate(names)
                 if name in where]
        if pairs:
            both = np.array(pairs, dtype=np.int64)
            new_parts.append(both[:, 0])
            old_parts.append(both[:, 1])
    if not new_parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(new_parts), np.concatenate(old_parts)


def short_date(when: float, now: float | None = None) -> str:
    """A scan's time as briefly as it stays clear: "14:05" today, "7 Jan" this year,
    "7 Jan 2024" before."""
    now = time.time() if now is None else now
    then, today = time.localtime(when), time.localtime(now)
    if then[:3] == today[:3]:
        return time.strftime("%H:%M", then)
    day = f"{then.tm_mday} {time.strftime('%b', then)}"
    return day if then.tm_year == today.tm_year else f"{day} {then.tm_year}"
