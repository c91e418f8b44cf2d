"""What the user's filter shows of the disk now: the sizes, children, file counts and
category tables a row or tile is drawn from.

The workspace (mlspace.ui.workspace) keeps the filter and the size mode and asks these for
the numbers; a filter that narrows nothing is the unfiltered sizes of
:class:`~mlspace.tables.now.DiskNow`, made once per change of the disk.
"""

from __future__ import annotations

import numpy as np

from mlspace.classify import Category, Inventory
from mlspace.filtering import FilterResult, FilterSpec, apply_filter
from mlspace.tables.now import CategoryTables, DiskNow


def filtered(now: DiskNow, spec: FilterSpec) -> FilterResult:
    """The filter ``spec`` over what is on disk now (no filter: ``now.whole`` itself)."""
    if spec == FilterSpec():
        return now.whole
    return apply_filter(now.inventory, now.ages, spec,
                        now.removed if now.any_removed else None, now.counted)


def visible_children(inv: Inventory, shown: FilterResult, folder: int, apparent: bool
                     ) -> tuple[np.ndarray, np.ndarray]:
    """A folder's visible children and their sizes (-1: the scan roots), unsorted."""
    snap = inv.snapshot
    kids = (np.asarray(snap.root_entries, dtype=np.int64) if folder < 0 else
            np.arange(snap.children(folder).start, snap.children(folder).stop,
                      dtype=np.int64))
    sizes = shown.sizes(inv, kids, apparent)
    keep = shown.visible_mask(inv, kids, apparent, sizes)
    return kids[keep], sizes[keep]


def files_shown(inv: Inventory, shown: FilterResult, entry: int) -> int | None:
    """Files a folder shows under the filter (None for a file)."""
    row = inv.snapshot.row_of(entry)
    return int(shown.dir_files[row]) if row >= 0 else None


def categories_shown(now: DiskNow, shown: FilterResult) -> CategoryTables:
    """Per folder row x category, of what the filter shows."""
    if not shown.spec.narrows or shown.matches is None:
        return now.categories()
    return now.inventory.folder_category_totals(~shown.matches, now.counted)


def picked(spec: FilterSpec) -> Category | None:
    """The one category the filter shows, if it shows one."""
    chosen = spec.categories
    return next(iter(chosen)) if chosen is not None and len(chosen) == 1 else None
