"""The immutable result of a scan: every entry in compact, read-only numpy columns.

Entries (files, directories, symlinks, other) are numbered in the order they were recorded:
the scan roots first, then the children of each listed directory as one contiguous range. So a
directory's children are ``dir_first[row] : dir_first[row] + dir_count[row]`` and nothing about
an entry is stored as a Python object. Names live in one byte buffer, separated by NUL (which no
file name can contain), and decode with ``surrogateescape`` so non-UTF-8 names round-trip.

Sizes are "on disk" (allocated: ``blocks * 512``) and "apparent" (``st_size``). Every total
counts a hard-linked inode once, at its first recorded path, as ``du`` does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from mlspace.scan.arrays import DirTree, parent_rows_of
from mlspace.scan.listing import LISTING_ENTRIES, Listing, entries_containing, names_at
from mlspace.scan.walker import KIND_DIR, KIND_FILE, KIND_SYMLINK

KIND_NAMES = {KIND_DIR: "dir", KIND_FILE: "file", KIND_SYMLINK: "symlink"}


def kind_name(code: int) -> str:
    """The stable, user-facing name of a kind code: dir, file, symlink or other."""
    return KIND_NAMES.get(int(code), "other")


@dataclass(frozen=True)
class ScanError:
    """A path the scan could not read, and why, in words a user understands."""

    path: str
    message: str


@dataclass(frozen=True)
class Totals:
    """Cumulative sizes and counts of a subtree (hard links counted once)."""

    disk_usage: int
    apparent_size: int
    files: int
    dirs: int
    newest_mtime: float


@dataclass(frozen=True, eq=False)
class Snapshot:
    """Everything one scan saw. Build it with :class:`mlspace.scan.build.SnapshotBuilder`."""

    roots: tuple[str, ...]
    root_entries: tuple[int, ...]
    # entry columns, parallel, one item per entry
    name_buffer: memoryview  # read-only
    name_offsets: np.ndarray  # len n + 1; name i is buffer[off[i] : off[i + 1] - 1]
    kind: np.ndarray  # uint8, st_mode >> 12
    apparent: np.ndarray  # int64, st_size
    blocks: np.ndarray  # st_blocks (512-byte units): uint32, int64 when one does not fit
    mtime: np.ndarray  # whole seconds: uint32, int64 when one does not fit (float64 if read)
    ino: np.ndarray  # uint64
    nlink: np.ndarray  # uint16, capped at 65535
    uid: np.ndarray  # uint32, st_uid: the owner (saved scans keep it)
    counted: np.ndarray  # bool: False for a second path to an already counted inode
    # directory table, one row per listed directory
    dir_entry: np.ndarray
    dir_first: np.ndarray
    dir_count: np.ndarray
    dir_dev: np.ndarray
    dir_parent: np.ndarray  # row of the parent directory, -1 for roots
    dir_paths: tuple[str, ...]  # the absolute path of each, as the walk opened it
    dir_disk: np.ndarray  # cumulative totals of each listed directory
    dir_apparent: np.ndarray
    dir_files: np.ndarray
    dir_dirs: np.ndarray
    dir_newest: np.ndarray
    # lookups between entries and directory rows
    range_rows: np.ndarray  # rows with children, ordered by where their child range starts
    range_starts: np.ndarray
    rows_by_entry_sorted: np.ndarray
    rows_by_entry_order: np.ndarray
    errors: tuple[ScanError, ...]
    other_filesystems: tuple[str, ...]
    duration: float
    cancelled: bool = False
    source: str = "disk"  # "disk", or "import" for a scan read from a file (read-only)
    walker: str = "python"  # what walked the disk: "native" (the C extension) or "python"

    # ------------------------------------------------------------------ entries
    def __len__(self) -> int:
        return len(self.kind)

    def name_bytes(self, entry: int) -> bytes:
        off = self.name_offsets
        return bytes(self.name_buffer[off[entry] : off[entry + 1] - 1])

    def name(self, entry: int) -> str:
        off = self.name_offsets
        return str(self.name_buffer[off[entry] : off[entry + 1] - 1], "utf-8", "surrogateescape")

    def names_of(self, entries: np.ndarray) -> list[str]:
        """The names of many entries at once (faster than calling name() in a loop)."""
        return names_at(self.name_buffer, self.name_offsets, entries)

    def find(self, path: str) -> int:
        """The entry at an absolute path, or -1 if the scan has none."""
        for root_index, root in enumerate(self.roots):
            if path == root:
                return self.root_entries[root_index]
            prefix = root.rstrip("/") + "/"
            if not path.startswith(prefix):
                continue
            entry = self.root_entries[root_index]
            for part in path[len(prefix):].split("/"):
                row = self.row_of(entry)
                if row < 0:
                    return -1
                names = self.child_names(row)
                try:
                    entry = int(self.dir_first[row]) + names.index(part)
                except ValueError:
                    return -1
            return entry
        return -1

    def subtree(self, entry: int) -> Iterator[int]:
        """An entry and everything below it."""
        stack = [entry]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(self.children(current))

    def names_containing(self, needle: bytes, ignore_case: bool = False) -> np.ndarray:
        """Entries whose name contains ``needle`` (sorted), without decoding any name."""
        if ignore_case:
            return entries_containing(self.lowered_names(), self.name_offsets, needle.lower())
        return entries_containing(self.name_buffer, self.name_offsets, needle)

    def lowered_names(self) -> bytes:
        """The name buffer in lower case, made once: the app's name filter searches it at
        every keystroke, and lowering a million names costs more than the search."""
        cached = self.__dict__.get("_lowered")
        if cached is None:
            cached = bytes(self.name_buffer).lower()
            object.__setattr__(self, "_lowered", cached)
        return cached

    def disk_sizes(self, entries: np.ndarray | None = None) -> np.ndarray:
        """Allocated bytes (``blocks * 512``) of every entry, or of ``entries``, as int64:
        ``blocks`` may be uint32, whose product with 512 would wrap at 4 GiB."""
        blocks = self.blocks if entries is None else self.blocks[entries]
        return np.multiply(blocks, 512, dtype=np.int64)

    def disk_usage(self, entry: int) -> int:
        """The entry's own allocated size (not cumulative)."""
        return int(self.blocks[entry]) * 512

    def is_dir(self, entry: int) -> bool:
        return int(self.kind[entry]) == KIND_DIR

    def parent(self, entry: int) -> int:
        """The entry index of the directory holding ``entry``, or -1 for a root."""
        row = self.parent_row(entry)
        return -1 if row < 0 else int(self.dir_entry[row])

    def parent_row(self, entry: int) -> int:
        """The directory row whose children include ``entry``, or -1 for a root."""
        if entry < len(self.root_entries):
            return -1
        pos = int(np.searchsorted(self.range_starts, entry, side="right")) - 1
        return int(self.range_rows[pos])

    @property
    def tree(self) -> DirTree:
        """Subtree aggregation over this snapshot's folders (built once, on first use)."""
        cached = self.__dict__.get("_tree")
        if cached is None:
            cached = DirTree(self.dir_entry, self.dir_first, self.dir_count, self.dir_parent)
            object.__setattr__(self, "_tree", cached)
        return cached

    def parent_rows_of(self, entries: np.ndarray) -> np.ndarray:
        """The parent row of each of ``entries`` (-1 for roots), in one vectorised pass."""
        return parent_rows_of(entries, self.range_rows, self.range_starts)

    def listings(self, entries_per_stretch: int = LISTING_ENTRIES) -> Iterator[Listing]:
        """The snapshot as consecutive stretches of about ``entries_per_stretch`` entries,
        cut between folders: the roots, then runs of folders with their children (each
        folder's children are contiguous and come in folder order). Consumers work on
        small arrays this way, which is faster than one pass over a million entries."""
        roots = len(self.root_entries)
        yield self._stretch(0, roots, 0, 0)
        rows = len(self.dir_entry)
        ends = (self.dir_first + self.dir_count).tolist()
        row = 0
        while row < rows:
            first = int(self.dir_first[row])
            last = row
            while last + 1 < rows and ends[last + 1] - first <= entries_per_stretch:
                last += 1
            yield self._stretch(first, ends[last], row, last + 1)
            row = last + 1

    def _stretch(self, first: int, end: int, first_row: int, end_row: int) -> Listing:
        offsets = self.name_offsets[first : end + 1]
        base = int(offsets[0])
        return Listing(first, self.name_buffer[base : int(offsets[-1])],
                       (offsets - base).astype(np.int64), self.kind[first:end], first_row,
                       self.dir_entry[first_row:end_row], self.dir_first[first_row:end_row],
                       self.dir_count[first_row:end_row])

    def all_parent_rows(self) -> np.ndarray:
        """The parent row of every entry (-1 for roots). The non-empty child ranges tile all
        non-root entries in order, so each range start adds the step from the previous row
        and a running sum fills the rest in place (no search, no temporary arrays)."""
        parents = np.zeros(len(self), dtype=np.int64)
        if len(parents) == 0:
            return parents
        parents[0] = -1  # entry 0 is always a root, so every range starts after it
        parents[self.range_starts] = np.diff(self.range_rows, prepend=-1)
        np.cumsum(parents, out=parents)
        return parents

    def path(self, entry: int) -> str:
        """The absolute path of an entry (roots are stored with their absolute path)."""
        row = self.parent_row(entry)
        if row < 0:
            return self.name(entry)
        folder = self.dir_path(row)
        return (folder if folder.endswith("/") else folder + "/") + self.name(entry)

    def dir_path(self, row: int) -> str:
        """The absolute path of a listed folder."""
        return self.dir_paths[row]

    def root_of(self, entry: int) -> int:
        """The index into ``roots`` of the root holding ``entry``."""
        while True:
            parent = self.parent(entry)
            if parent < 0:
                return self.root_entries.index(entry)
            entry = parent

    def relative_path(self, entry: int) -> str:
        """The path below its root, with "/" separators; "." for the root itself."""
        parts = []
        while self.parent(entry) >= 0:
            parts.append(self.name(entry))
            entry = self.parent(entry)
        return "/".join(reversed(parts)) if parts else "."

    # ------------------------------------------------------------- directories
    def row_of(self, entry: int) -> int:
        """The directory row of a directory entry, or -1 if it was not listed."""
        pos = int(np.searchsorted(self.rows_by_entry_sorted, entry))
        if pos < len(self.rows_by_entry_sorted) and self.rows_by_entry_sorted[pos] == entry:
            return int(self.rows_by_entry_order[pos])
        return -1

    def rows_of(self, entries: np.ndarray) -> np.ndarray:
        """row_of() for many entries at once (-1 where not a listed folder)."""
        entries = np.asarray(entries, dtype=np.int64)
        sorted_entries = self.rows_by_entry_sorted
        if len(sorted_entries) == 0:
            return np.full(len(entries), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(sorted_entries, entries), len(sorted_entries) - 1)
        found = sorted_entries[pos] == entries
        return np.where(found, self.rows_by_entry_order[pos], -1)

    def children(self, entry: int) -> range:
        """The entry indices directly inside a directory (empty for files or unlisted dirs)."""
        row = self.row_of(entry)
        if row < 0:
            return range(0)
        first = int(self.dir_first[row])
        return range(first, first + int(self.dir_count[row]))

    def totals(self, entry: int) -> Totals:
        """Cumulative totals of an entry: its subtree for a directory, itself otherwise."""
        row = self.row_of(entry)
        if row >= 0:
            return Totals(
                int(self.dir_disk[row]),
                int(self.dir_apparent[row]),
                int(self.dir_files[row]),
                int(self.dir_dirs[row]),
                float(self.dir_newest[row]),
            )
        counted = bool(self.counted[entry])
        is_dir = self.is_dir(entry)
        return Totals(
            self.disk_usage(entry) if counted else 0,
            int(self.apparent[entry]) if counted else 0,
            0 if is_dir else 1,
            1 if is_dir else 0,
            float(self.mtime[entry]),
        )

    def grand_totals(self) -> Totals:
        """Totals over all roots."""
        parts = [self.totals(e) for e in self.root_entries]
        return Totals(
            sum(t.disk_usage for t in parts),
            sum(t.apparent_size for t in parts),
            sum(t.files for t in parts),
            sum(t.dirs for t in parts),
            max((t.newest_mtime for t in parts), default=0.0),
        )

    def child_names(self, row: int) -> list[str]:
        """The names of a listed directory's children, decoded in one go."""
        first, count = int(self.dir_first[row]), int(self.dir_count[row])
        if count == 0:
            return []
        off = self.name_offsets
        block = self.name_buffer[off[first] : off[first + count] - 1]
        return str(block, "utf-8", "surrogateescape").split("\0")

    def child_name_bytes(self, row: int) -> bytes:
        """A listed directory's children's names as stored, each ended by a NUL: two
        listings are the same when these are (compared without decoding a name)."""
        first, count = int(self.dir_first[row]), int(self.dir_count[row])
        off = self.name_offsets
        return bytes(self.name_buffer[off[first] : off[first + count]])

    def iter_paths(self) -> Iterator[tuple[int, int, str]]:
        """``(entry, root index, path below the root)`` for every entry, parents first, the
        folders depth first with each folder's children in listing order: the order a walk
        in one thread records, whatever order the scan's threads or processes finished the
        folders in, so listings made of two scans of one tree are the same. Builds each
        folder's prefix once, so listing a million files stays linear."""
        root_index = {entry: i for i, entry in enumerate(self.root_entries)}
        for entry, index in root_index.items():
            yield entry, index, "."
        prefixes: dict[int, tuple[str, int]] = {}
        for row in self._rows_depth_first():
            entry, parent = int(self.dir_entry[row]), int(self.dir_parent[row])
            if parent < 0:
                prefix, index = "", root_index[entry]
            else:
                parent_prefix, index = prefixes[parent]
                prefix = parent_prefix + self.name(entry) + "/"
            prefixes[row] = (prefix, index)
            first = int(self.dir_first[row])
            for offset, name in enumerate(self.child_names(row)):
                yield first + offset, index, prefix + name

    def _rows_depth_first(self) -> list[int]:
        """Folder rows in depth-first order: the roots' in root order, each folder's listed
        subfolders in the order its listing gives them."""
        parents, entries = self.dir_parent, self.dir_entry
        order = np.lexsort((entries, parents)).tolist()  # by parent row, then listing order
        children: dict[int, list[int]] = {}
        for row in order:
            children.setdefault(int(parents[row]), []).append(row)
        out: list[int] = []
        stack = list(reversed(children.get(-1, [])))
        while stack:
            row = stack.pop()
            out.append(row)
            stack.extend(reversed(children.get(row, [])))
        return out


def _join(parts: list[str]) -> str:
    head, *rest = parts
    if not rest:
        return head
    return os.path.join(head, *rest)
