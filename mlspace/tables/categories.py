"""Which category a row or tile is drawn in: a file's own, a folder's commonest by space
(in the size mode) of what it shows, under the filter or on disk now."""

from __future__ import annotations

import numpy as np

from mlspace.classify import Category, CategoryTotals, Inventory
from mlspace.tables.now import CategoryTables, DiskNow

_CATEGORY = {int(c): c for c in Category}  # by value: faster than Category(value)


def dominant(inv: Inventory, entry: int, tables: CategoryTables, now: CategoryTables,
             apparent: bool) -> Category:
    """The category holding most of ``entry`` in ``tables`` (per folder row x category);
    a folder showing nothing there is drawn as on disk now (``now``), one holding nothing
    now as classification said."""
    row = inv.snapshot.row_of(entry)
    if row < 0:
        return inv.category(entry)
    per_category = (tables[1] if apparent else tables[0])[row]
    if per_category.sum() == 0:
        if tables is not now:
            return dominant(inv, entry, now, now, apparent)
        return inv.category(entry)
    return Category(int(per_category.argmax()))


def dominant_of_many(inv: Inventory, entries: list[int], tables: CategoryTables,
                     now: CategoryTables, apparent: bool, picked: Category | None
                     ) -> list[Category]:
    """dominant() of many entries at once (the treemap's thousands of tiles): one table
    lookup for all folders instead of one call each. ``picked``: the one category the
    filter shows, which every folder is drawn in."""
    at = np.asarray(entries, dtype=np.int64)
    rows = inv.snapshot.rows_of(at)
    table = (tables[1] if apparent else tables[0])
    folders = rows >= 0
    per_folder = table[rows[folders]]
    best = inv.categories[at].astype(np.int64)  # a file: its own category
    best[folders] = np.where(per_folder.sum(axis=1) > 0, per_folder.argmax(axis=1), -1)
    out = []
    for entry, is_folder, category in zip(entries, folders.tolist(), best.tolist(),
                                          strict=True):
        if is_folder and picked is not None:
            out.append(picked)
        elif category >= 0:
            out.append(_CATEGORY[category])
        else:  # a folder showing nothing: the one-entry rule says what
            out.append(dominant(inv, entry, tables, now, apparent))
    return out


def breakdown(now: DiskNow, entry: int) -> dict[Category, CategoryTotals]:
    """Per category, what an entry holds on disk now (a file: all of it in its own)."""
    inv = now.inventory
    row = inv.snapshot.row_of(entry)
    if row < 0:
        out = {c: CategoryTotals(0, 0, 0) for c in Category}
        t = now.totals(entry)
        out[inv.category(entry)] = CategoryTotals(t.disk_usage, t.apparent_size, t.files)
        return out
    disk, apparent, files = now.categories()
    return {c: CategoryTotals(int(disk[row, c]), int(apparent[row, c]), int(files[row, c]))
            for c in Category}
