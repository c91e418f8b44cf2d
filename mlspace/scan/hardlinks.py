"""What removing a folder frees when hard links cross its edge.

A scan counts a hard-linked file once, at the first of its paths it meets: that path's
folders hold its size. Removing such a folder frees the file's blocks only when every link
to the file lies inside it; if another link stays (outside the folder, or outside the
scan), the blocks stay allocated. The file's size is then *pinned* in each folder that
counts it without holding all its links: a folder's freed space is its total less what is
pinned in it.

The same rule gives the same number for a folder scanned alone, which is what the cleanup's
re-check compares with: a run that made ``checkpoint-1..4`` hard links of one weights file
frees nothing by removing ``checkpoint-1``, and ``checkpoint-1`` scanned again alone is
just as unchanged as it was in the whole scan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlspace.scan.snapshot import Snapshot
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True, eq=False)
class Pinned:
    """Per folder row, the bytes its totals count that removing it would not free."""

    disk: np.ndarray
    apparent: np.ndarray


def pinned(snap: Snapshot) -> Pinned:
    """The snapshot's pinned bytes per folder (made once; zero without hard links)."""
    cached = snap.__dict__.get("_pinned")
    if cached is None:
        cached = _pinned(snap)
        object.__setattr__(snap, "_pinned", cached)
    return cached


def freed_totals(snap: Snapshot, entry: int) -> tuple[int, int]:
    """(on disk, apparent) that removing ``entry`` frees: a folder's totals less what is
    pinned in it; a file's own size, or nothing while another link to it exists."""
    row = snap.row_of(entry)
    if row >= 0:
        shares = pinned(snap)
        return (int(snap.dir_disk[row] - shares.disk[row]),
                int(snap.dir_apparent[row] - shares.apparent[row]))
    if int(snap.nlink[entry]) > 1 or not snap.counted[entry]:
        return 0, 0
    return snap.disk_usage(entry), int(snap.apparent[entry])


def _pinned(snap: Snapshot) -> Pinned:
    rows = len(snap.dir_entry)
    disk = np.zeros(rows, dtype=np.int64)
    apparent = np.zeros(rows, dtype=np.int64)
    linked = np.flatnonzero((snap.nlink > 1) & (snap.kind != KIND_DIR))
    parents = snap.parent_rows_of(linked)
    linked, parents = linked[parents >= 0], parents[parents >= 0]
    if len(linked) == 0:
        return Pinned(disk, apparent)
    depth = _depths(snap)
    devices, inodes = snap.dir_dev[parents], snap.ino[linked]
    order = np.lexsort((inodes, devices))
    devices, inodes = devices[order], inodes[order]
    linked, parents = linked[order], parents[order]
    starts = np.flatnonzero(np.r_[True, (devices[1:] != devices[:-1]) |
                                  (inodes[1:] != inodes[:-1])])
    for start, end in zip(starts, [*starts[1:], len(linked)], strict=True):
        members = linked[start:end]
        counted = members[snap.counted[members]]
        if len(counted) == 0:
            continue  # every path to it is a second one: it counts elsewhere (another root)
        first = int(counted[0])
        size, size_apparent = snap.disk_usage(first), int(snap.apparent[first])
        home = int(parents[start + int(np.flatnonzero(members == first)[0])])
        disk[home] += size  # pinned from the folder that counts it up to the root ...
        apparent[home] += size_apparent
        if end - start >= int(snap.nlink[first]):  # ... unless every link was scanned:
            lowest = _lowest_common(parents[start:end].tolist(), snap.dir_parent, depth)
            if lowest >= 0:
                disk[lowest] -= size  # from the folder holding them all up, it is freed
                apparent[lowest] -= size_apparent
    tree = snap.tree
    return Pinned(tree.add_up(disk), tree.add_up(apparent))


def _depths(snap: Snapshot) -> np.ndarray:
    """Each folder row's depth below its root (roots 0)."""
    depth = np.zeros(len(snap.dir_entry), dtype=np.int64)
    for level in reversed(snap.tree.levels):  # shallowest first: a parent's depth is known
        depth[level] = depth[snap.dir_parent[level]] + 1
    return depth


def _lowest_common(rows: list[int], parent: np.ndarray, depth: np.ndarray) -> int:
    """The deepest folder row holding all of ``rows`` (-1 when they lie under different
    roots: then no folder holds every link, and the size stays pinned up to each root)."""
    common = rows[0]
    for row in rows[1:]:
        a, b = common, row
        while depth[a] > depth[b]:
            a = int(parent[a])
        while depth[b] > depth[a]:
            b = int(parent[b])
        while a != b:
            a, b = int(parent[a]), int(parent[b])
            if a < 0 or b < 0:
                return -1
        common = a
    return common
