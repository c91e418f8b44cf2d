"""Assemble walk chunks into one :class:`Snapshot` and compute every directory's totals once."""

from __future__ import annotations

import os
import stat
from array import array
from dataclasses import replace

import numpy as np

from mlspace.scan.arrays import LARGEST_TOTAL, DirTree, exact_sum, ordered_ranges, parent_rows_of
from mlspace.scan.listing import Listing, offsets_of
from mlspace.scan.snapshot import ScanError, Snapshot
from mlspace.scan.walker import KIND_DIR, NLINK_CAP, DirTask, WalkChunk, describe_error

_COLUMNS = ("kind", "size", "blocks", "mtime", "ino", "nlink", "uid")
#: The typecodes a column is kept in, narrowest first: it moves to the next the first time
#: a value does not fit, so it is never held wide (at 1M entries each byte per entry is a
#: megabyte). The native walker widens the same way, so both walkers give the same types.
_LADDERS = {"kind": "B", "size": "Iq", "blocks": "Iq", "mtime": "Iq", "ino": "IQ",
            "nlink": "H", "uid": "HI"}
#: The largest value of each narrow typecode.
_LIMITS = {"H": 0xFFFF, "I": 0xFFFFFFFF}
#: Bytes of the name buffer searched for separators at a time, to bound transient memory
#: (about 2 bytes of temporaries per byte searched: 1 MB windows cost 6 B/entry at 300k).
_NAME_WINDOW = 1 << 18
#: Entries summed at a time: the temporaries of a sum stay a few MB, not entry-sized.
_SUM_WINDOW = 1 << 16


class SnapshotBuilder:
    """Collects entries from the roots and from walk chunks (in any order), then freezes."""

    def __init__(self) -> None:
        self._columns = {name: array(_LADDERS[name][0]) for name in _COLUMNS}
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
        values = {"kind": st.st_mode >> 12, "size": st.st_size,
                  "blocks": getattr(st, "st_blocks", (st.st_size + 511) // 512),
                  "mtime": st.st_mtime_ns // 1_000_000_000, "ino": st.st_ino,
                  "nlink": min(st.st_nlink, NLINK_CAP), "uid": st.st_uid}
        template = WalkChunk()
        for name, value in values.items():
            self._extend(name, array(getattr(template, name).typecode, [value]))
        self._names += os.fsencode(path) + b"\0"
        if not stat.S_ISDIR(st.st_mode):
            return None
        return DirTask(path, -1 - index, st.st_dev)

    def merge(self, chunk: WalkChunk) -> list[DirTask]:
        """Append a chunk; return its pending directories with references made global."""
        base = self.entries
        for name in _COLUMNS:
            self._extend(name, getattr(chunk, name))
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

    def _extend(self, name: str, values: array) -> None:
        """Append a chunk's column, in the column's typecode, widening the column first
        when one of ``values`` does not fit it."""
        column = self._columns[name]
        if column.typecode == values.typecode:
            column.extend(values)
            return
        wide = np.frombuffer(values, dtype=values.typecode)
        ladder = _LADDERS[name]
        code = column.typecode
        while code != ladder[-1] and len(wide) and (int(wide.min()) < 0
                                                    or int(wide.max()) > _LIMITS[code]):
            code = ladder[ladder.index(code) + 1]
        if code != column.typecode:
            column = self._columns[name] = array(code, np.frombuffer(
                column, dtype=column.typecode).astype(code).tobytes())
        column.frombytes(wide.astype(code).tobytes())

    def freeze(self, duration: float, cancelled: bool = False) -> Snapshot:
        """Build the immutable snapshot: name offsets, hard-link dedupe, cumulative totals."""
        cols = {name: np.frombuffer(col, dtype=col.typecode) for name, col in self._columns.items()}
        return freeze_snapshot(
            roots=tuple(self._roots), root_entries=tuple(self._root_entries),
            names=memoryview(self._names).toreadonly(), cols=cols,
            table=np.frombuffer(self._dirs, dtype=np.int64).reshape(-1, 4),
            dir_paths=tuple(self._dir_paths), errors=tuple(self._errors),
            other_filesystems=tuple(self._other_fs), duration=duration, cancelled=cancelled)


def freeze_snapshot(
    *, roots: tuple[str, ...], root_entries: tuple[int, ...], names: memoryview,
    cols: dict[str, np.ndarray], table: np.ndarray, dir_paths: tuple[str, ...],
    errors: tuple[ScanError, ...], other_filesystems: tuple[str, ...], duration: float,
    cancelled: bool, counted: np.ndarray | None = None,
    own_totals: dict[str, np.ndarray] | None = None, walker: str = "python",
) -> Snapshot:
    """The snapshot of walked columns (``kind size blocks mtime ino nlink uid``), the folder
    table (entry, first child, child count, st_dev per row) and what goes with them. Hard
    links are deduplicated here unless the walker did it (``counted``), and the folders'
    totals summed unless the walker gave each folder's own share (``own_totals``: disk,
    apparent, files, dirs and newest of itself and its children that are not listed)."""
    n = len(cols["kind"])
    offsets = _name_offsets(names, n)
    dir_entry, dir_first, dir_count, dir_dev = (table[:, i].copy() for i in range(4))
    n_roots = len(root_entries)
    range_rows, range_starts = ordered_ranges(dir_first, dir_count)
    dir_parent = np.where(
        dir_entry < n_roots, -1, parent_rows_of(dir_entry, range_rows, range_starts)
    )
    if counted is None:
        counted = first_links(cols, names, offsets, dir_paths, range_rows, range_starts,
                              dir_dev)
    uncountable = _uncountable_sizes(cols, counted)
    if len(uncountable):
        own_totals = None  # the walker's sums hold the sizes that cannot be counted
    tree = DirTree(dir_entry, dir_first, dir_count, dir_parent)
    if own_totals is None:
        totals = {key: tree.add_up(own) for key, own in
                  _own_sums(cols, counted, dir_entry, range_rows, range_starts).items()}
        totals["newest"] = tree.subtree_max(cols["mtime"])
    else:
        totals = {key: tree.add_up(own_totals[key].copy())
                  for key in ("disk", "apparent", "files", "dirs")}
        totals["newest"] = tree.max_up(own_totals["newest"].astype(np.float64))

    snapshot = assembled(
        entries={"kind": cols["kind"], "apparent": cols["size"], "blocks": cols["blocks"],
                 "mtime": cols["mtime"], "ino": cols["ino"], "nlink": cols["nlink"],
                 "uid": cols["uid"], "counted": counted},
        folders={"dir_entry": dir_entry, "dir_first": dir_first, "dir_count": dir_count,
                 "dir_dev": dir_dev, "dir_parent": dir_parent},
        totals=totals, ranges=(range_rows, range_starts),
        roots=roots, root_entries=root_entries, name_buffer=names, name_offsets=offsets,
        dir_paths=dir_paths,
        # by path: the same scan gives the same lists, whatever order it was walked in
        errors=tuple(sorted(errors, key=lambda e: (e.path, e.message))),
        other_filesystems=tuple(sorted(other_filesystems)),
        duration=duration, cancelled=cancelled, walker=walker,
    )
    return _with_uncountable_errors(snapshot, uncountable) if len(uncountable) else snapshot


def assembled(*, entries: dict[str, np.ndarray], folders: dict[str, np.ndarray],
              totals: dict[str, np.ndarray],
              ranges: tuple[np.ndarray, np.ndarray] | None = None, **fields: object
              ) -> Snapshot:
    """The one constructor of a Snapshot from its columns, for a walk (``freeze_snapshot``)
    and a saved scan (mlspace.index.rebuild) alike: ``entries`` are the per-entry columns
    (kind apparent blocks mtime ino nlink uid counted), ``folders`` the folder table
    (dir_entry dir_first dir_count dir_dev dir_parent), ``totals`` each folder's subtree
    disk, apparent, files, dirs and newest. The lookups by entry are derived here (``ranges``
    when the caller has them already), every array is made read-only, and ``fields`` (roots,
    names, errors, ...) are passed through."""
    dir_entry = folders["dir_entry"]
    range_rows, range_starts = ranges or ordered_ranges(folders["dir_first"],
                                                        folders["dir_count"])
    order = np.argsort(dir_entry, kind="stable")
    snapshot = Snapshot(
        **entries, **folders, **{f"dir_{key}": value for key, value in totals.items()},
        range_rows=range_rows, range_starts=range_starts,
        rows_by_entry_sorted=dir_entry[order], rows_by_entry_order=order,
        **fields,  # type: ignore[arg-type]
    )
    for value in vars(snapshot).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return snapshot


def _uncountable_sizes(cols: dict[str, np.ndarray], counted: np.ndarray) -> np.ndarray:
    """Sparse files whose apparent sizes cannot all be added up: three of 2**62 bytes make
    12 EiB, which wraps to -4 EiB in 64 bits and would be shown as the scan's size. The
    largest such sizes are counted as what the files take on disk, until the total fits;
    these entries are returned (``cols["size"]`` changes in place) so the scan says so.
    Sizes on disk are real blocks and always add up."""
    sizes = cols["size"]
    total = _counted_sum(sizes, counted)
    if total <= LARGEST_TOTAL:
        return np.zeros(0, dtype=np.int64)
    on_disk = cols["blocks"].astype(np.int64) * 512
    order = np.argsort(sizes, kind="stable")[::-1]
    order = order[counted[order]]
    excess = total - LARGEST_TOTAL
    replaced = []
    for entry in order.tolist():
        if excess <= 0:
            break
        excess -= int(sizes[entry]) - int(on_disk[entry])
        replaced.append(entry)
    sizes = cols["size"] = sizes.copy()
    sizes[replaced] = on_disk[replaced]
    return np.array(replaced, dtype=np.int64)


def _counted_sum(sizes: np.ndarray, counted: np.ndarray) -> int:
    """The exact sum of the counted ``sizes``, window by window (no entry-sized temporary)."""
    return sum(exact_sum(np.where(counted[lo:lo + _SUM_WINDOW], sizes[lo:lo + _SUM_WINDOW], 0))
               for lo in range(0, len(sizes), _SUM_WINDOW))


def _with_uncountable_errors(snapshot: Snapshot, entries: np.ndarray) -> Snapshot:
    """The snapshot with a line for each file whose apparent size was counted as its size
    on disk."""
    said = tuple(ScanError(snapshot.path(e), "its apparent size is left out: added to the "
                           "others', it is more than any disk holds (a sparse file); counted "
                           f"as the {int(snapshot.apparent[e]):,} bytes it takes on disk")
                 for e in entries.tolist())
    return replace(snapshot, errors=tuple(sorted(snapshot.errors + said,
                                                 key=lambda e: (e.path, e.message))))


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


def first_links(
    cols: dict[str, np.ndarray], names: memoryview, offsets: np.ndarray,
    dir_paths: tuple[str, ...], range_rows: np.ndarray, range_starts: np.ndarray,
    dir_dev: np.ndarray,
) -> np.ndarray:
    """True for every entry whose size counts: all but one of the scanned paths to each
    inode of a non-directory (see :func:`counted_links`). A root always counts."""
    counted = np.ones(len(cols["kind"]), dtype=bool)
    linked = np.flatnonzero((cols["nlink"] > 1) & (cols["kind"] != KIND_DIR))
    rows = parent_rows_of(linked, range_rows, range_starts)
    linked, rows = linked[rows >= 0], rows[rows >= 0]
    counted[linked] = counted_links(linked, rows, dir_dev[rows], cols["ino"][linked], names,
                                    offsets, dir_paths)
    return counted


def counted_links(linked: np.ndarray, rows: np.ndarray, devices: np.ndarray,
                  inodes: np.ndarray, names: bytes | memoryview, offsets: np.ndarray,
                  dir_paths: tuple[str, ...] | list[str]) -> np.ndarray:
    """Of the ``linked`` entries (in folder ``rows``, with their device and inode), which one
    path per inode counts: the one with the smallest (folder path, name), compared as
    bytes (a hard link's device is its folder's: links cannot cross filesystems). The rule
    does not depend on the order folders were walked in, so every scan of a tree, by either
    walker, and the saved scan read back, counts each file in the same folder."""
    keep = np.ones(len(linked), dtype=bool)
    if len(linked) < 2:
        return keep
    unique_rows, row_of_link = np.unique(rows, return_inverse=True)
    folder_rank = np.empty(len(unique_rows), dtype=np.int64)
    folder_rank[np.argsort([os.fsencode(dir_paths[r]) for r in unique_rows.tolist()],
                           kind="stable")] = np.arange(len(unique_rows))
    link_names = np.array([bytes(names[a:b - 1]) for a, b in zip(
        offsets[linked].tolist(), offsets[linked + 1].tolist(), strict=True)])
    order = np.lexsort((link_names, folder_rank[row_of_link.ravel()], inodes, devices))
    sorted_dev, sorted_ino = devices[order], inodes[order]
    later = np.r_[False, (sorted_dev[1:] == sorted_dev[:-1]) & (sorted_ino[1:] == sorted_ino[:-1])]
    keep[order[later]] = False
    return keep


def _own_sums(cols: dict[str, np.ndarray], counted: np.ndarray, dir_entry: np.ndarray,
              range_rows: np.ndarray, range_starts: np.ndarray) -> dict[str, np.ndarray]:
    """Each listed folder's own share of its subtree's disk, apparent, files and dirs: its
    own entry, plus its children that are not listed folders (a listed folder brings its
    own row, added up the tree). What the native walker sums in C, here window by window:
    a running sum over the entries gives its value at every child range's start, and a
    range's sum is the difference to the next start (the ranges tile the non-root entries
    in order), so no temporary is longer than a window."""
    n = len(counted)
    listed = np.sort(dir_entry)
    bounds = np.append(range_starts, n)
    prefix = np.zeros((4, len(bounds)), dtype=np.int64)
    running = np.zeros(4, dtype=np.int64)
    done = 0  # bounds filled so far
    for lo in range(0, n, _SUM_WINDOW):
        hi = min(lo + _SUM_WINDOW, n)
        values = _own_values(cols, counted, slice(lo, hi))
        values[:, listed[np.searchsorted(listed, lo):np.searchsorted(listed, hi)] - lo] = 0
        np.cumsum(values, axis=1, out=values)
        end = int(np.searchsorted(bounds, hi))
        before = bounds[done:end] - lo - 1  # the last entry before each bound, in the window
        prefix[:, done:end] = running[:, None] + np.where(
            before >= 0, values[:, np.maximum(before, 0)], 0)
        running += values[:, -1]
        done = end
    prefix[:, done:] = running[:, None]
    own = _own_values(cols, counted, dir_entry)
    own[:, range_rows] += np.diff(prefix, axis=1)
    return dict(zip(("disk", "apparent", "files", "dirs"), own, strict=True))


def _own_values(cols: dict[str, np.ndarray], counted: np.ndarray,
                at: slice | np.ndarray) -> np.ndarray:
    """The disk, apparent, files and dirs each of the entries ``at`` adds, as int64 rows."""
    is_dir = cols["kind"][at] == KIND_DIR
    values = np.empty((4, len(is_dir)), dtype=np.int64)
    np.multiply(cols["blocks"][at], 512, out=values[0], dtype=np.int64)
    values[1] = cols["size"][at]
    values[:2] *= counted[at]
    values[2] = ~is_dir
    values[3] = is_dir
    return values
