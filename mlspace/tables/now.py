"""What is on disk now, in a scan's entries: the scan less what moved to the trash since.

A cleanup or an undo makes a new ``DiskNow`` (the workspace does, mlspace.ui.workspace);
each table it holds is made on first ask and kept until then, so a view that asks for the
same numbers on every paint pays for them once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

from mlspace.ages import AgeTable
from mlspace.classify import Inventory
from mlspace.filtering import FilterResult, FilterSpec, apply_filter, counted_links, removed_entries
from mlspace.scan import Totals
from mlspace.scan.walker import KIND_DIR
from mlspace.tables.moved import Moved

T = TypeVar("T")
#: Per folder row x category: space on disk, apparent size, files.
CategoryTables = tuple[np.ndarray, np.ndarray, np.ndarray]


class DiskNow:
    """The scan as the disk holds it now. ``removed``: per entry, in the trash now (None:
    nothing moved); ``counted``: per entry, counted in the totals now (a hard link's other
    path counts once its counted path went); ``whole``: the unfiltered sizes now;
    ``touched``: folders a move changed, with their time now (read again by the caller)."""

    def __init__(self, inventory: Inventory, ages: AgeTable, removed: np.ndarray | None,
                 counted: np.ndarray, whole: FilterResult,
                 touched: Mapping[int, float] | None = None) -> None:
        self.inventory, self.ages = inventory, ages
        self.snapshot = inventory.snapshot
        self.any_removed = removed is not None
        self.removed = removed if removed is not None else \
            np.zeros(len(self.snapshot), dtype=bool)
        self.counted, self.whole = counted, whole
        self.touched = dict(touched or {})
        self._made: dict[str, object] = {}

    @property
    def as_scanned(self) -> bool:
        """Nothing moved since the scan, and every hard link counts as it did."""
        return not self.any_removed and self.counted is self.snapshot.counted

    def once(self, key: str, make: Callable[[], T]) -> T:
        """The table ``key``, made by ``make`` the first time it is asked for."""
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]  # type: ignore[return-value]

    def totals(self, entry: int) -> Totals:
        """An entry's totals as on disk now: what is left of a folder, with its newest time
        (a folder a cleanup moved something out of is new)."""
        snap = self.snapshot
        if not self.any_removed and not self.touched:
            return snap.totals(entry)
        row = snap.row_of(entry)
        whole = self.whole
        if row >= 0:
            return Totals(int(whole.dir_disk[row]), int(whole.dir_apparent[row]),
                          int(whole.dir_files[row]), int(self._dirs()[row]),
                          float(self._newest()[row]))
        present = not self.removed[entry]
        counted = present and bool(self.counted[entry])
        is_dir = snap.is_dir(entry)
        return Totals(snap.disk_usage(entry) if counted else 0,
                      int(snap.apparent[entry]) if counted else 0,
                      int(present and not is_dir), int(present and is_dir),
                      float(self._mtimes()[entry]))

    def _mtimes(self) -> np.ndarray:
        def make() -> np.ndarray:
            if not self.touched:
                return self.snapshot.mtime
            mtime = self.snapshot.mtime.copy()
            mtime[list(self.touched)] = list(self.touched.values())
            return mtime
        return self.once("mtime", make)

    def _newest(self) -> np.ndarray:
        return self.once("newest", lambda: self.snapshot.tree.subtree_max(
            np.where(self.removed, -np.inf, self._mtimes())))

    def _dirs(self) -> np.ndarray:
        return self.once("dirs", lambda: self.snapshot.tree.subtree_sums(
            ((self.snapshot.kind == KIND_DIR) & ~self.removed).astype(np.int64)))

    def categories(self) -> CategoryTables:
        """Per folder row x category: disk, apparent, files of what is on disk now."""
        def make() -> CategoryTables:
            inv = self.inventory
            if not self.any_removed:
                return inv.dir_category_disk, inv.dir_category_apparent, inv.dir_category_files
            return inv.folder_category_totals(self.removed, self.counted)
        return self.once("categories", make)

    def counted_changes(self) -> tuple[np.ndarray, np.ndarray]:
        """(entries counted now and not in the scan, entries counted in the scan and not
        now): what the charts add and take away. A cleanup or an undo changes a few."""
        def make() -> tuple[np.ndarray, np.ndarray]:
            keep = ~self.removed & self.counted
            changed = np.flatnonzero(keep != self.snapshot.counted)
            return changed[keep[changed]], changed[~keep[changed]]
        return self.once("counted-changes", make)


def disk_now(inventory: Inventory, ages: AgeTable, moved: Moved) -> DiskNow:
    """The scan less what ``moved`` says went to the trash since (and came back)."""
    snap = inventory.snapshot
    removed = removed_entries(snap, moved.entries())
    counted = counted_links(snap, removed)
    whole = apply_filter(inventory, ages, FilterSpec(), removed, counted)
    return DiskNow(inventory, ages, removed, counted, whole, moved.touched)
