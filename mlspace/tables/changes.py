"""Growth since a compared saved scan: how much each entry of the scan shown grew (negative:
shrank), in the size mode, of what is on disk now whatever the filter."""

from __future__ import annotations

import numpy as np

from mlspace.index.growth import SizesThen
from mlspace.tables.now import DiskNow


def change_of(now: DiskNow, then: SizesThen, entry: int, apparent: bool) -> int:
    """How much ``entry`` grew since ``then``: everything in it, when it was not there."""
    totals = now.totals(entry)
    size = totals.apparent_size if apparent else totals.disk_usage
    return size - int((then.apparent if apparent else then.disk)[entry])


def changes_of(now: DiskNow, then: SizesThen, entries: list[int], apparent: bool
               ) -> tuple[np.ndarray, np.ndarray]:
    """change_of() of many entries at once, with their sizes now: (change, now) (the
    treemap's growth colours for thousands of tiles)."""
    at = np.asarray(entries, dtype=np.int64)
    sizes = np.where(now.removed[at], 0, now.whole.sizes(now.inventory, at, apparent))
    return sizes - (then.apparent if apparent else then.disk)[at], sizes
