"""Which files of a folder are worth opening as records: the regular files the scan saw
with something in them.

Readers of a run's records (trainer_state.json, a trial's JSON, a table of scores) open
files through mlspace.safe_read, which takes regular files only; an empty one parses as
nothing. The snapshot already knows each entry's kind and size, so such files are left
unopened: on a tree of many checkpoint folders that saves a few system calls per record.
"""

from __future__ import annotations

import numpy as np

from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_FILE


def record_names(snapshot: Snapshot, row: int) -> list[str]:
    """The names of the regular, non-empty files directly in listed folder ``row``, in
    listing order (none for a row of -1: a folder that was not listed)."""
    if row < 0:
        return []
    return member_record_names(snapshot, [int(snapshot.dir_entry[row])])[0]


def member_record_names(snapshot: Snapshot, entries: list[int]) -> list[list[str]]:
    """record_names() of each folder entry in ``entries`` (of each listed one; [] for a
    file or a folder that was not listed), with the kinds and sizes of all their children
    looked at in one pass (a series has many small folders: numpy per folder costs more
    than the look)."""
    rows = snapshot.rows_of(np.asarray(entries, dtype=np.int64))
    listed = rows >= 0
    firsts = np.where(listed, snapshot.dir_first[np.maximum(rows, 0)], 0).astype(np.int64)
    counts = np.where(listed, snapshot.dir_count[np.maximum(rows, 0)], 0).astype(np.int64)
    children = np.repeat(firsts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    keep = ((snapshot.kind[children] == KIND_FILE) & (snapshot.apparent[children] > 0)).tolist()
    out, at = [], 0
    for row, count in zip(rows.tolist(), counts.tolist(), strict=True):
        wanted = keep[at:at + count]
        at += count
        if not any(wanted):
            out.append([])
            continue
        names = snapshot.child_names(row)
        out.append([name for name, take in zip(names, wanted, strict=True) if take])
    return out
