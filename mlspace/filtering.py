"""What is on disk now, and view filters over it.

The app knows the disk as one scan plus what it moved to the trash since (and put back): an
entry is *present* unless it, or a folder holding it, is in the trash now. Every number a
view shows is a sum over present entries, under the user's filter (categories, age bucket,
minimum size, name text, owner), computed here for the whole inventory at once. So the tree, the
treemap, the charts, the runs and the details all read one result and always agree with
each other, and with what a fresh scan of the disk would say.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from mlspace.ages import AgeTable
from mlspace.classify import Category, Inventory
from mlspace.scan import Snapshot
from mlspace.scan.arrays import parent_rows_of
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True)
class FilterSpec:
    categories: frozenset[Category] | None = None  # None: all
    bucket: int | None = None  # an index into ages.BUCKETS, None: any age
    min_size: int = 0  # entries smaller than this (in the current size mode) are hidden
    text: str = ""  # case-insensitive part of a file's name
    owners: frozenset[int] | None = None  # uids whose files are shown, None: everyone's

    @property
    def narrows(self) -> bool:
        """True when some files may be left out (destructive actions are then disabled on
        folders: a cleanup must never act on a folder whose contents the user cannot see)."""
        return self.categories is not None or self.bucket is not None or bool(self.text) \
            or self.owners is not None

    # What a click on a chart's bar makes of the filter shown.
    def toggled_category(self, category: Category) -> FilterSpec:
        """Click a category: show only it; click it again: show all."""
        chosen = None if self.categories == frozenset({category}) else frozenset({category})
        return replace(self, categories=chosen)

    def toggled_age(self, bucket: int, category: Category | None = None) -> FilterSpec:
        """Click an age (of a category): show only it; click it again: every age."""
        if self.bucket == bucket and (category is None or self.categories == {category}):
            return replace(self, bucket=None, categories=None)
        cats = frozenset({category}) if category is not None else self.categories
        return replace(self, bucket=bucket, categories=cats)

    def toggled_owner(self, uid: int) -> FilterSpec:
        """Click an owner: show only what they own; click again: everyone's."""
        return replace(self, owners=None if self.owners == frozenset({uid}) else
                       frozenset({uid}))


@dataclass(frozen=True, eq=False)
class FilterResult:
    spec: FilterSpec
    # What counts, per entry, None when everything does. Under a narrowing filter only
    # matching files count; otherwise every present entry, folders with their own size,
    # exactly as a scan adds up a folder.
    matches: np.ndarray | None
    present: np.ndarray | None  # per entry: still on disk (None: nothing was removed)
    counted: np.ndarray  # per entry: its size counts (a hard link's first present path)
    dir_disk: np.ndarray  # per folder row, over what counts
    dir_apparent: np.ndarray
    dir_files: np.ndarray  # per folder row: files that count (matching, present)

    def sizes(self, inv: Inventory, entries: np.ndarray, apparent: bool) -> np.ndarray:
        """size() for many entries at once (a folder's children), vectorised."""
        snap = inv.snapshot
        rows = snap.rows_of(entries)
        listed = rows >= 0
        own = snap.apparent[entries] if apparent else snap.disk_sizes(entries)
        own = np.where(self.counted[entries], own, 0)
        if self.matches is not None:
            own = np.where(self.matches[entries], own, 0)
        totals = np.append(self.dir_apparent if apparent else self.dir_disk, 0)  # [-1] -> 0
        return np.where(listed, totals[rows], own).astype(np.int64)

    def visible_mask(self, inv: Inventory, entries: np.ndarray, apparent: bool,
                     sizes: np.ndarray | None = None) -> np.ndarray:
        """visible() for many entries at once."""
        snap = inv.snapshot
        keep = (np.ones(len(entries), dtype=bool) if self.present is None
                else self.present[entries].copy())
        if self.spec.narrows:
            assert self.matches is not None
            rows = snap.rows_of(entries)
            has_files = np.append(self.dir_files, 0)[rows] > 0  # row -1 reads the 0
            keep &= np.where(rows >= 0, has_files, self.matches[entries])
        if self.spec.min_size > 0:
            sizes = self.sizes(inv, entries, apparent) if sizes is None else sizes
            keep &= sizes >= self.spec.min_size
        return keep

    def size(self, inv: Inventory, entry: int, apparent: bool) -> int:
        return int(self.sizes(inv, np.array([entry], dtype=np.int64), apparent)[0])

    def visible(self, inv: Inventory, entry: int, apparent: bool) -> bool:
        return bool(self.visible_mask(inv, np.array([entry], dtype=np.int64), apparent)[0])


def removed_entries(snap: Snapshot, gone: Iterable[int]) -> np.ndarray | None:
    """Per entry: is it, or a folder holding it, one of the ``gone`` entries (moved to the
    trash)? None when nothing is. One pass down the folder table, so a trashed folder of a
    million files costs array operations, not a walk."""
    marked = np.zeros(len(snap), dtype=bool)
    marked[np.fromiter(gone, dtype=np.int64)] = True
    if not marked.any():
        return None
    rows = len(snap.dir_entry)
    row_gone = np.append(marked[snap.dir_entry], False)  # [-1]: "no parent", never gone
    for level in reversed(snap.tree.levels):  # shallowest first: a parent before its rows
        row_gone[level] |= row_gone[snap.dir_parent[level]]
    parents = snap.all_parent_rows()
    parents[parents < 0] = rows
    return marked | row_gone[parents]


def counted_links(snap: Snapshot, removed: np.ndarray | None) -> np.ndarray:
    """``snap.counted`` for what is left: a hard-linked file counts at its first path still
    present, as a scan counts it at its first path (so trashing one link of two moves its
    size to the other, and frees nothing)."""
    if removed is None:
        return snap.counted
    linked = np.flatnonzero((snap.nlink > 1) & (snap.kind != KIND_DIR) & ~removed)
    if not (removed & snap.counted & (snap.nlink > 1) & (snap.kind != KIND_DIR)).any():
        return snap.counted  # no counted path of a hard-linked file was removed
    counted = snap.counted.copy()
    rows = parent_rows_of(linked, snap.range_rows, snap.range_starts)
    linked, rows = linked[rows >= 0], rows[rows >= 0]  # a root always counts
    if len(linked):
        keys = np.empty(len(linked), dtype=[("dev", np.int64), ("ino", np.uint64)])
        keys["dev"] = snap.dir_dev[rows]
        keys["ino"] = snap.ino[linked]
        _, first = np.unique(keys, return_index=True)
        counted[linked] = False
        counted[linked[first]] = True
    return counted


def apply_filter(inv: Inventory, ages: AgeTable, spec: FilterSpec,
                 removed: np.ndarray | None = None, counted: np.ndarray | None = None
                 ) -> FilterResult:
    """Sizes under ``spec`` over what is present: entries in ``removed`` (moved to the trash
    since the scan) count nothing and are not shown, so views update without a rescan.
    ``counted`` is counted_links(snap, removed), when the caller has it already."""
    snap = inv.snapshot
    if removed is not None and not removed.any():
        removed = None
    if counted is None:
        counted = counted_links(snap, removed)
    present = None if removed is None else ~removed
    if not spec.narrows and present is None:
        return FilterResult(spec, None, None, counted, snap.dir_disk, snap.dir_apparent,
                            snap.dir_files)
    is_file = snap.kind != KIND_DIR
    if spec.narrows:
        matches = is_file if present is None else is_file & present
        if spec.categories is not None:
            matches = matches & np.isin(inv.categories, [int(c) for c in spec.categories])
        if spec.bucket is not None:
            matches = matches & (ages.buckets == spec.bucket)
        if spec.text:
            named = np.zeros(len(snap), dtype=bool)
            named[snap.names_containing(spec.text.encode("utf-8", "surrogateescape"), True)] = \
                True
            matches = matches & named
        if spec.owners is not None:
            matches = matches & np.isin(snap.uid, np.fromiter(spec.owners, dtype=np.int64))
    else:
        assert present is not None
        matches = present
    scratch = np.empty(len(snap), dtype=np.int64)
    weights = matches & counted
    np.multiply(snap.disk_sizes(), weights, out=scratch)
    disk = snap.tree.subtree_sums(scratch)
    np.multiply(snap.apparent, weights, out=scratch)
    apparent = snap.tree.subtree_sums(scratch)
    np.copyto(scratch, matches & is_file, casting="unsafe")
    files = snap.tree.subtree_sums(scratch)
    return FilterResult(spec, matches, present, counted, disk, apparent, files)
