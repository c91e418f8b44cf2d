"""View filters (categories, age bucket, minimum size, name text) applied to a whole
inventory at once: which entries match, and each folder's totals over what matches.

One mechanism serves every view: the tree, the treemap and the charts all read sizes from a
FilterResult, so they always agree with each other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlspace.ages import AgeTable
from mlspace.classify import Category, Inventory
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True)
class FilterSpec:
    categories: frozenset[Category] | None = None  # None: all
    bucket: int | None = None  # an index into ages.BUCKETS, None: any age
    min_size: int = 0  # entries smaller than this (in the current size mode) are hidden
    text: str = ""  # case-insensitive part of a file's name

    @property
    def narrows(self) -> bool:
        """True when some files may be left out (destructive actions are then disabled on
        folders: a cleanup must never act on a folder whose contents the user cannot see)."""
        return self.categories is not None or self.bucket is not None or bool(self.text)


@dataclass(frozen=True, eq=False)
class FilterResult:
    spec: FilterSpec
    matches: np.ndarray | None  # bool per entry (files), None when nothing narrows
    dir_disk: np.ndarray  # per folder row, over matching files (and folders' own size)
    dir_apparent: np.ndarray
    dir_files: np.ndarray

    def sizes(self, inv: Inventory, entries: np.ndarray, apparent: bool) -> np.ndarray:
        """size() for many entries at once (a folder's children), vectorised."""
        snap = inv.snapshot
        rows = snap.rows_of(entries)
        listed = rows >= 0
        own = snap.apparent[entries] if apparent else snap.blocks[entries] * 512
        own = np.where(snap.counted[entries], own, 0)
        if self.matches is not None:
            own = np.where(self.matches[entries], own, 0)
        totals = np.append(self.dir_apparent if apparent else self.dir_disk, 0)  # [-1] -> 0
        return np.where(listed, totals[rows], own).astype(np.int64)

    def visible_mask(self, inv: Inventory, entries: np.ndarray, apparent: bool,
                     sizes: np.ndarray | None = None) -> np.ndarray:
        """visible() for many entries at once."""
        snap = inv.snapshot
        keep = np.ones(len(entries), dtype=bool)
        if self.matches is not None:
            rows = snap.rows_of(entries)
            files_now = np.append(self.dir_files, 0)[rows]
            files_then = np.append(snap.dir_files, 0)[rows]
            keep &= np.where(rows >= 0, (files_now > 0) | (files_then == 0),
                             self.matches[entries] | (snap.kind[entries] == KIND_DIR))
        if self.spec.narrows:
            rows = snap.rows_of(entries)
            listed = rows >= 0
            has_files = np.append(self.dir_files, 0)[rows] > 0  # row -1 reads the 0
            keep &= np.where(listed, has_files,
                             True if self.matches is None else self.matches[entries])
        if self.spec.min_size > 0:
            sizes = self.sizes(inv, entries, apparent) if sizes is None else sizes
            keep &= sizes >= self.spec.min_size
        return keep

    def size(self, inv: Inventory, entry: int, apparent: bool) -> int:
        snap = inv.snapshot
        row = snap.row_of(entry)
        if row >= 0:
            return int((self.dir_apparent if apparent else self.dir_disk)[row])
        if not snap.counted[entry] or (self.matches is not None and not self.matches[entry]):
            return 0
        return int(snap.apparent[entry]) if apparent else snap.disk_usage(entry)

    def visible(self, inv: Inventory, entry: int, apparent: bool) -> bool:
        snap = inv.snapshot
        row = snap.row_of(entry)
        if self.matches is not None and row >= 0 and self.dir_files[row] == 0 and \
                snap.dir_files[row] > 0:
            return False  # everything in it was filtered out or removed
        if self.spec.narrows:
            if row >= 0:
                if self.dir_files[row] == 0:
                    return False
            elif self.matches is not None and not self.matches[entry]:
                return False
        return self.spec.min_size <= 0 or self.size(inv, entry, apparent) >= self.spec.min_size


def apply_filter(inv: Inventory, ages: AgeTable, spec: FilterSpec,
                 removed: np.ndarray | None = None) -> FilterResult:
    """Sizes under ``spec``; entries in ``removed`` (moved to the trash since the scan)
    count nothing and are not shown, so views update without a rescan."""
    snap = inv.snapshot
    removed_any = removed is not None and bool(removed.any())
    if not spec.narrows and not removed_any:
        return FilterResult(spec, None, snap.dir_disk, snap.dir_apparent, snap.dir_files)
    matches = snap.kind != KIND_DIR
    if removed_any:
        matches &= ~removed  # type: ignore[operator]
    if spec.categories is not None:
        matches &= np.isin(inv.categories, [int(c) for c in spec.categories])
    if spec.bucket is not None:
        matches &= ages.buckets == spec.bucket
    if spec.text:
        named = np.zeros(len(snap), dtype=bool)
        named[snap.names_containing(spec.text.encode("utf-8", "surrogateescape"), True)] = True
        matches &= named
    counted = matches & snap.counted
    scratch = np.empty(len(snap), dtype=np.int64)
    np.multiply(snap.blocks * 512, counted, out=scratch)
    disk = snap.tree.subtree_sums(scratch)
    np.multiply(snap.apparent, counted, out=scratch)
    apparent = snap.tree.subtree_sums(scratch)
    np.copyto(scratch, matches, casting="unsafe")
    files = snap.tree.subtree_sums(scratch)
    return FilterResult(spec, matches, disk, apparent, files)
