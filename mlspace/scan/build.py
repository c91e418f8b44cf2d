"""Assemble walk chunks into one :class:`Snapshot` and compute every directory's totals once."""

from __future__ import annotations

import os
import stat
from array import array

import numpy as np

from mlspace.scan.arrays import DirTree, ordered_ranges, parent_rows_of
from mlspace.scan.listing import Listing, offsets_of
from mlspace.scan.snapshot import ScanError, Snapshot
from mlspace.scan.walker import KIND_DIR, DirTask, WalkChunk, describe_error

_COLUMNS = ("kind", "size", "blocks", "mtime", "ino", "nlink", "uid")
#: Bytes of the name buffer searched for separators at a time, to bound transient memory.
_NAME_WINDOW = 1 << 20


class SnapshotBuilder:
    """Collects entries from the roots and from walk chunks (in any order), then freezes."""

    def __init__(self) -> None:
        template = WalkChunk()
        self._columns = {name: array(getattr(template, name).typecode) for name in _COLUMNS}
        self._names = bytearray()  # every name, each followed by NUL
        self._dirs = array("q")
        self._dir_paths: list[str] = []
        self._errors: list[ScanError] = []
        self._other_fs: list[str] = []
        self._roots: list[str] = []
        self._root_entries: list[int] = []

    @property
    def entries(self) -> int:
        return len(self._columns["kind"])

    def mark(self) -> tuple[int, int, int]:
        """Where the next merge will start: (entries, folder rows, name bytes) so far."""
        return self.entries, len(self._dirs) // 4, len(self._names)

    def listing_since(self, mark: tuple[int, int, int]) -> Listing:
        """The entries and folder rows added since ``mark``."""
        first_entry, first_row, name_start = mark
        names = bytes(self._names[name_start:])
        rows = np.frombuffer(self._dirs, dtype=np.int64).reshape(-1, 4)[first_row:]
        return Listing(
            first_entry=first_entry,
            name_buffer=names,
            name_offsets=offsets_of(names),
            kind=np.frombuffer(self._columns["kind"], dtype=np.uint8)[first_entry:].copy(),
            first_row=first_row,
            dir_entry=rows[:, 0].copy(),
            dir_first=rows[:, 1].copy(),
            dir_count=rows[:, 2].copy(),
        )

    def add_root(self, path: str) -> DirTask | None:
        """Record a root (following a symlink given as root: the user named that folder).
        Returns the task that lists it, or None for a root that is not a listable directory."""
        try:
            st = os.stat(path)
        except OSError as err:
            self._errors.append(ScanError(path, describe_error(err)))
            return None
        if self._dirs:
            raise RuntimeError("roots must be added before any directory is merged")
        index = self.entries
        self._roots.append(path)
        self._root_entries.append(index)
        cols = self._columns
        cols["kind"].append(st.st_mode >> 12)
        cols["size"].append(st.st_size)
        cols["blocks"].append(getattr(st, "st_blocks", (st.st_size + 511) // 512))
        cols["mtime"].append(st.st_mtime)
        cols["ino"].append(st.st_ino)
        cols["nlink"].append(st.st_nlink)
        cols["uid"].append(st.st_uid)
        self._names += os.fsencode(path) + b"\0"
        if not stat.S_ISDIR(st.st_mode):
            return None
        return DirTask(path, -1 - index, st.st_dev)

    def merge(self, chunk: WalkChunk) -> list[DirTask]:
        """Append a chunk; return its pending directories with references made global."""
        base = self.entries
        for name in _COLUMNS:
            self._columns[name].extend(getattr(chunk, name))
        for block in chunk.names:
            self._names += block
            self._names += b"\0"
        rows = np.frombuffer(chunk.dirs, dtype=np.int64).reshape(-1, 4).copy()
        if len(rows):
            refs = rows[:, 0]
            rows[:, 0] = np.where(refs < 0, -1 - refs, refs + base)
            rows[:, 1] += base
            self._dirs.frombytes(rows.tobytes())
            self._dir_paths.extend(chunk.dir_paths)
        self._errors.extend(ScanError(p, m) for p, m in chunk.errors)
        self._other_fs.extend(chunk.other_filesystems)
        return [
            DirTask(t.path, t.ref if t.ref < 0 else -1 - (t.ref + base), t.root_dev)
            for t in chunk.pending
        ]

    def freeze(self, duration: float, cancelled: bool = False) -> Snapshot:
        """Build the immutable snapshot: name offsets, hard-link dedupe, cumulative totals."""
        cols = {name: np.frombuffer(col, dtype=col.typecode) for name, col in self._columns.items()}
        n = len(cols["kind"])
        name_buffer = memoryview(self._names).toreadonly()
        offsets = _name_offsets(name_buffer, n)

        table = np.frombuffer(self._dirs, dtype=np.int64).reshape(-1, 4)
        dir_entry, dir_first, dir_count, dir_dev = (table[:, i].copy() for i in range(4))
        n_roots = len(self._root_entries)
        range_rows, range_starts = ordered_ranges(dir_first, dir_count)
        dir_parent = np.where(
            dir_entry < n_roots, -1, parent_rows_of(dir_entry, range_rows, range_starts)
        )
        counted = _first_links(cols, range_rows, range_starts, dir_dev)
        totals = _cumulative_totals(cols, counted, dir_entry, dir_first, dir_count, dir_parent)

        order = np.argsort(dir_entry, kind="stable")
        snapshot = Snapshot(
            roots=tuple(self._roots),
            root_entries=tuple(self._root_entries),
            name_buffer=name_buffer,
            name_offsets=offsets,
            kind=cols["kind"],
            apparent=cols["size"],
            blocks=cols["blocks"],
            mtime=cols["mtime"],
            ino=cols["ino"],
            nlink=cols["nlink"],
            uid=cols["uid"],
            counted=counted,
            dir_entry=dir_entry,
            dir_first=dir_first,
            dir_count=dir_count,
            dir_dev=dir_dev,
            dir_parent=dir_parent,
            dir_paths=tuple(self._dir_paths),
            dir_disk=totals["disk"],
            dir_apparent=totals["apparent"],
            dir_files=totals["files"],
            dir_dirs=totals["dirs"],
            dir_newest=totals["newest"],
            range_rows=range_rows,
            range_starts=range_starts,
            rows_by_entry_sorted=dir_entry[order],
            rows_by_entry_order=order,
            errors=tuple(self._errors),
            other_filesystems=tuple(self._other_fs),
            duration=duration,
            cancelled=cancelled,
        )
        for value in vars(snapshot).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        return snapshot


def _name_offsets(buffer: memoryview, n: int) -> np.ndarray:
    """Start of each name in the buffer (every name is followed by NUL), plus the end, found
    window by window to bound the temporary memory."""
    dtype = np.uint32 if len(buffer) < 2**32 - 1 else np.int64
    offsets = np.empty(n + 1, dtype=dtype)
    offsets[0] = 0
    view = np.frombuffer(buffer, dtype=np.uint8)
    filled = 1
    for start in range(0, len(view), _NAME_WINDOW):
        seps = np.flatnonzero(view[start : start + _NAME_WINDOW] == 0) + (start + 1)
        offsets[filled : filled + len(seps)] = seps
        filled += len(seps)
    return offsets


def _first_links(
    cols: dict[str, np.ndarray], range_rows: np.ndarray, range_starts: np.ndarray,
    dir_dev: np.ndarray,
) -> np.ndarray:
    """True for every entry whose size counts: all but the second and later paths of an inode
    (a hard link's device is its directory's; links cannot cross filesystems)."""
    counted = np.ones(len(cols["kind"]), dtype=bool)
    linked = np.flatnonzero((cols["nlink"] > 1) & (cols["kind"] != KIND_DIR))
    rows = parent_rows_of(linked, range_rows, range_starts)
    linked, rows = linked[rows >= 0], rows[rows >= 0]  # a root always counts
    if len(linked):
        keys = np.empty(len(linked), dtype=[("dev", np.int64), ("ino", np.uint64)])
        keys["dev"] = dir_dev[rows]
        keys["ino"] = cols["ino"][linked]
        _, first = np.unique(keys, return_index=True)
        counted[linked] = False
        counted[linked[first]] = True
    return counted


def _fill_own(key: str, scratch: np.ndarray, cols: dict[str, np.ndarray], counted: np.ndarray,
              is_dir: np.ndarray) -> None:
    """Write every entry's own contribution to the ``key`` total into ``scratch``."""
    if key == "disk":
        np.multiply(cols["blocks"], 512, out=scratch)
        scratch *= counted
    elif key == "apparent":
        np.copyto(scratch, cols["size"])
        scratch *= counted
    elif key == "dirs":
        np.copyto(scratch, is_dir, casting="unsafe")
    else:  # files: every entry that is not a directory
        np.copyto(scratch, ~is_dir, casting="unsafe")


def _cumulative_totals(
    cols: dict[str, np.ndarray],
    counted: np.ndarray,
    dir_entry: np.ndarray,
    dir_first: np.ndarray,
    dir_count: np.ndarray,
    dir_parent: np.ndarray,
) -> dict[str, np.ndarray]:
    """Every listed directory's subtree totals.

    A listed directory counts itself, sums its other children (files, and dirs it could not
    list or enter) over its child range, then receives its listed subdirectories' totals,
    deepest first. One entry-sized scratch buffer is reused for every column, so a
    million-file freeze needs 8 MB of scratch, not one temporary array per step.
    """
    scratch = np.empty(len(counted), dtype=np.int64)
    is_dir = cols["kind"] == KIND_DIR
    tree = DirTree(dir_entry, dir_first, dir_count, dir_parent)
    totals = {}
    for key in ("disk", "apparent", "files", "dirs"):
        _fill_own(key, scratch, cols, counted, is_dir)
        totals[key] = tree.subtree_sums(scratch)
    totals["newest"] = tree.subtree_max(cols["mtime"])
    return totals


