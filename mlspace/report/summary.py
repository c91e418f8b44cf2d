"""The short human summary of a scan that ``mlspace scan`` prints on a terminal."""

from __future__ import annotations

import os

import numpy as np

from mlspace import fmt
from mlspace.scan import Snapshot


def largest_directories(snapshot: Snapshot, n: int = 10, apparent: bool = False) -> list[int]:
    """Directory rows (roots excluded) with the largest cumulative size, largest first, ties
    by path: the same tree gives the same list, whatever order its folders were walked in."""
    sizes = snapshot.dir_apparent if apparent else snapshot.dir_disk
    candidates = np.flatnonzero(snapshot.dir_parent >= 0)
    order = candidates[np.argsort(-sizes[candidates], kind="stable")]
    if len(order) > n:  # the n-th size's ties are in, to be ordered by path
        order = order[sizes[order] >= sizes[order[n - 1]]]
    paths = snapshot.dir_paths
    ranked = sorted(order.tolist(), key=lambda r: (-int(sizes[r]), os.fsencode(paths[r])))
    return ranked[:n]


def scan_summary(snapshot: Snapshot, apparent: bool = False) -> str:
    """Roots, totals on disk and apparent, counts, errors, time, and the largest directories."""
    t = snapshot.grand_totals()
    lines = ["Scanned " + ", ".join(snapshot.roots)]
    if snapshot.cancelled:
        lines.append("  (cancelled: the numbers below cover only what was scanned)")
    lines += [
        f"  on disk   {fmt.size(t.disk_usage):>12}",
        f"  apparent  {fmt.size(t.apparent_size):>12}",
        f"  files     {fmt.count(t.files):>12}",
        f"  folders   {fmt.count(t.dirs):>12}",
        f"  errors    {fmt.count(len(snapshot.errors)):>12}",
        f"  time      {fmt.duration(snapshot.duration):>12}",
    ]
    if snapshot.other_filesystems:
        lines.append(f"  not entered (other filesystems): {len(snapshot.other_filesystems)}")
    rows = largest_directories(snapshot, apparent=apparent)
    if rows:
        label = "apparent" if apparent else "on disk"
        lines += ["", f"Largest folders ({label}):"]
        sizes = snapshot.dir_apparent if apparent else snapshot.dir_disk
        for row in rows:
            path = snapshot.path(int(snapshot.dir_entry[row]))
            lines.append(f"  {fmt.size(int(sizes[row])):>12}  {path}")
    if snapshot.errors:
        lines += ["", "Could not read:"]
        for err in snapshot.errors[:10]:
            lines.append(f"  {err.path}: {err.message}")
        if len(snapshot.errors) > 10:
            lines.append(f"  … and {len(snapshot.errors) - 10} more (see --format json)")
    return "\n".join(lines)
