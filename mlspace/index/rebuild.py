"""Saved columns back into a :class:`Snapshot`, with nothing read from the disk it describes.

A saved scan keeps one row per entry and, for each, the row of the folder holding it; the
folder table, the hard-link bookkeeping and every folder's totals are worked out again here,
the way the scan worked them out. Saved data may be damaged or hostile, so the structure is
checked first (in numpy, a few passes over the columns) and any fault is a
:class:`CannotOpen` with the reason, never an IndexError later in a report.

Rows must come in scan order: the roots first, then the entries of each listed folder
together, a folder always before its entries.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from mlspace import fmt
from mlspace.index.errors import CannotOpen
from mlspace.scan import ScanError, Snapshot
from mlspace.scan.arrays import LARGEST_TOTAL, DirTree, exact_sum, ordered_ranges
from mlspace.scan.build import counted_links
from mlspace.scan.listing import names_at
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True)
class EntryColumns:
    """A scan's entries in scan order; sizes are each entry's own, never cumulative."""

    names: bytes | memoryview  # every name followed by NUL; a root is named by its path
    name_offsets: np.ndarray  # int64, one per entry plus the end
    parent: np.ndarray  # int64: the entry of the folder holding it, -1 for a root
    kind: np.ndarray  # uint8, st_mode >> 12
    apparent: np.ndarray  # int64
    blocks: np.ndarray  # int64, 512-byte units
    mtime: np.ndarray  # float64
    ino: np.ndarray  # uint64
    nlink: np.ndarray  # uint16
    uid: np.ndarray  # uint32

    def __len__(self) -> int:
        return len(self.kind)


@dataclass(frozen=True)
class ScanFacts:
    """What a saved scan says beyond its entries."""

    unlisted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # folders (entries) that were not listed: unreadable, on another filesystem, cancelled
    devices: dict[int, int] = field(default_factory=dict)  # folder entry -> st_dev, where
    # it differs from the folder above it (roots always)
    counted: np.ndarray | None = None  # None: the first path of each inode counts, and the
    # later paths of a hard-linked file take its sizes (a saved scan stores them as 0)
    errors: tuple[ScanError, ...] = ()
    other_filesystems: tuple[str, ...] = ()
    duration: float = 0.0
    cancelled: bool = False


def rebuild_snapshot(columns: EntryColumns, facts: ScanFacts) -> Snapshot:
    """The Snapshot these columns describe, marked ``source="import"``."""
    roots = _check_structure(columns)
    _check_names(columns, roots)
    table = _folder_table(columns, roots, facts.unlisted)
    dir_entry, dir_first, dir_count, dir_parent = table
    tree = DirTree(dir_entry, dir_first, dir_count, dir_parent)
    dir_dev = _devices(dir_entry, dir_parent, tree, facts.devices)
    blocks, apparent = columns.blocks.copy(), columns.apparent.copy()
    dir_paths = _folder_paths(columns, dir_entry, dir_parent)
    counted = facts.counted
    if counted is None:
        counted = _first_paths_count(columns, dir_dev, table, blocks, apparent, dir_paths)
    _check_sums(blocks, apparent, counted)
    is_dir = columns.kind == KIND_DIR
    counts = counted.astype(np.int64)
    range_rows, range_starts = ordered_ranges(dir_first, dir_count)
    order = np.argsort(dir_entry, kind="stable")
    offsets = columns.name_offsets
    snapshot = Snapshot(
        roots=tuple(_decode(columns.names[offsets[i]:offsets[i + 1] - 1]) for i in range(roots)),
        root_entries=tuple(range(roots)),
        name_buffer=memoryview(columns.names).toreadonly(),
        name_offsets=offsets.astype(np.uint32 if len(columns.names) < 2**32 - 1 else np.int64),
        kind=columns.kind,
        apparent=apparent,
        blocks=blocks,
        mtime=columns.mtime,
        ino=columns.ino,
        nlink=columns.nlink,
        uid=columns.uid,
        counted=counted,
        dir_entry=dir_entry,
        dir_first=dir_first,
        dir_count=dir_count,
        dir_dev=dir_dev,
        dir_parent=dir_parent,
        dir_paths=dir_paths,
        dir_disk=tree.subtree_sums(blocks * 512 * counts),
        dir_apparent=tree.subtree_sums(apparent * counts),
        dir_files=tree.subtree_sums((~is_dir).astype(np.int64)),
        dir_dirs=tree.subtree_sums(is_dir.astype(np.int64)),
        dir_newest=tree.subtree_max(columns.mtime),
        range_rows=range_rows,
        range_starts=range_starts,
        rows_by_entry_sorted=dir_entry[order],
        rows_by_entry_order=order,
        errors=facts.errors,
        other_filesystems=facts.other_filesystems,
        duration=facts.duration,
        cancelled=facts.cancelled,
        source="import",
    )
    for value in vars(snapshot).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return snapshot


def _decode(name: bytes | memoryview) -> str:
    return str(name, "utf-8", "surrogateescape")


def _check_structure(columns: EntryColumns) -> int:
    """Check the rows are in scan order; returns how many roots lead them."""
    parent, n = columns.parent, len(columns)
    for name in ("parent", "apparent", "blocks", "mtime", "ino", "nlink", "uid"):
        if len(getattr(columns, name)) != n:
            raise CannotOpen(f"the {name} column has {len(getattr(columns, name))} rows, "
                             f"not {n}")
    roots = int(np.count_nonzero(parent == -1))
    if n and roots == 0:
        raise CannotOpen("no entry is a scanned folder (no parent of -1)")
    if np.any(parent[:roots] != -1):
        raise CannotOpen("the scanned folders (parent -1) do not come first")
    rest = parent[roots:]
    if np.any(rest < 0) or np.any(rest >= np.arange(roots, n)):
        raise CannotOpen("an entry's parent is not an earlier row")
    if np.any(columns.kind[rest] != KIND_DIR):
        raise CannotOpen("an entry's parent is not a folder")
    starts = np.flatnonzero(np.r_[True, rest[1:] != rest[:-1]]) if len(rest) else rest
    if len(np.unique(rest[starts])) != len(starts):
        raise CannotOpen("the entries of a folder are not together")
    if np.any(columns.apparent < 0) or np.any(columns.blocks < 0):
        raise CannotOpen("an entry has a negative size")
    if not np.all(np.isfinite(columns.mtime)):
        raise CannotOpen("an entry has a modification time that is not a number")
    return roots


def _check_sums(blocks: np.ndarray, apparent: np.ndarray, counted: np.ndarray) -> None:
    """The totals of the entries that count must be sums that can be true: three entries
    of 2**62 bytes add up to 12 EiB, which wraps to -4 EiB in 64 bits and was shown as the
    scan's size. No disk holds that much; the file is damaged or made up."""
    for what, values, unit in (("on disk", blocks, 512), ("apparent", apparent, 1)):
        total = exact_sum(values[counted]) * unit
        if total > LARGEST_TOTAL:
            raise CannotOpen(f"its entries' sizes add up to {fmt.size(total)} {what}, more "
                             f"than mlspace counts ({fmt.size(LARGEST_TOTAL)}) and than any "
                             "disk holds: the file is damaged or made up")


def blocks_of(sizes: np.ndarray) -> np.ndarray:
    """Sizes in bytes as 512-byte blocks, rounded up (``size + 511`` would wrap near 2**63
    and turn an absurd size into a negative one)."""
    return sizes // 512 + (sizes % 512 != 0)


def _check_names(columns: EntryColumns, roots: int) -> None:
    """Every name NUL-terminated and without a NUL or a slash inside (a root is a path)."""
    offsets = columns.name_offsets
    if len(offsets) != len(columns) + 1 or offsets[0] != 0 or offsets[-1] != len(columns.names):
        raise CannotOpen("the names do not match the entries")
    view = np.frombuffer(columns.names, dtype=np.uint8)
    lengths = np.diff(offsets) - 1
    if np.any(lengths < 1):
        raise CannotOpen("an entry has no name")
    if np.count_nonzero(view == 0) != len(columns) or np.any(view[offsets[1:] - 1] != 0):
        raise CannotOpen("a name holds a NUL byte")
    tail = view[offsets[roots]:]
    if np.any(tail == ord("/")):
        raise CannotOpen("a name holds a '/'")
    first = view[offsets[roots:-1]]
    second = view[np.minimum(offsets[roots:-1] + 1, len(view) - 1)]
    dots = (first == ord(".")) & ((lengths[roots:] == 1)
                                  | ((lengths[roots:] == 2) & (second == ord("."))))
    if np.any(dots):
        raise CannotOpen("an entry is named '.' or '..'")
    for i in range(roots):
        if not os.path.isabs(_decode(columns.names[offsets[i]:offsets[i + 1] - 1])):
            raise CannotOpen("a scanned folder is not named by its absolute path")


def _folder_table(columns: EntryColumns, roots: int, unlisted: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(dir_entry, dir_first, dir_count, dir_parent) of the listed folders.

    The rows are ordered by where their entries start, as a scan records them: a listed
    folder with entries starts where they do; an empty one is put where its parent's
    entries end (so stretches of the snapshot stay contiguous), a root at the first entry
    after the roots; a folder's row always comes before its subfolders' rows.
    """
    parent, n = columns.parent, len(columns)
    is_dir = columns.kind == KIND_DIR
    unlisted = np.asarray(unlisted, dtype=np.int64)
    if len(unlisted) and (np.any(unlisted < 0) or np.any(unlisted >= n)
                          or np.any(~is_dir[unlisted])):
        raise CannotOpen("a folder said to be unlisted is not a folder of this scan")
    counts = np.bincount(parent[roots:], minlength=n) if n else np.zeros(0, dtype=np.int64)
    if len(unlisted) and np.any(counts[unlisted] > 0):
        raise CannotOpen("a folder said to be unlisted has entries")
    listed = is_dir.copy()
    listed[unlisted] = False
    entries = np.flatnonzero(listed)
    rest = parent[roots:]
    starts = np.flatnonzero(np.r_[True, rest[1:] != rest[:-1]]) + roots if len(rest) else rest
    first_of = np.zeros(n, dtype=np.int64)
    first_of[parent[starts]] = starts
    own_parent = parent[entries]
    end_of_parent = first_of[own_parent] + counts[own_parent]
    count = counts[entries]
    first = np.where(count > 0, first_of[entries], np.where(own_parent < 0, roots, end_of_parent))
    order = np.lexsort((entries, count > 0, first))
    dir_entry, dir_first, dir_count = entries[order], first[order], count[order]
    row_of = np.full(n + 1, -1, dtype=np.int64)  # the extra -1 is read for roots' parent -1
    row_of[dir_entry] = np.arange(len(dir_entry))
    dir_parent = row_of[parent[dir_entry]]
    return dir_entry, dir_first.astype(np.int64), dir_count.astype(np.int64), dir_parent


def _devices(dir_entry: np.ndarray, dir_parent: np.ndarray, tree: DirTree,
             known: dict[int, int]) -> np.ndarray:
    """Every listed folder's device: the saved one, else its parent folder's."""
    dev = np.full(len(dir_entry), -1, dtype=np.int64)
    if known:
        row_of = {int(e): r for r, e in enumerate(dir_entry.tolist())}
        for entry, device in known.items():
            row = row_of.get(int(entry))
            if row is not None:
                dev[row] = device
    dev[(dir_parent < 0) & (dev < 0)] = 0
    for level in reversed(tree.levels):  # shallowest first
        unknown = level[dev[level] < 0]
        dev[unknown] = dev[dir_parent[unknown]]
    return dev


def _first_paths_count(columns: EntryColumns, dir_dev: np.ndarray,
                       table: tuple[np.ndarray, ...], blocks: np.ndarray,
                       apparent: np.ndarray, dir_paths: tuple[str, ...]) -> np.ndarray:
    """Which entries count: one path per inode, by the scan's own rule (the smallest folder
    path and name, see scan.build.counted_links). The other paths were saved with sizes 0,
    so that a plain sum over the file is right; they get their inode's sizes back here (in
    ``blocks`` and ``apparent``, in place) from the path saved with them (a scan saved
    before that rule kept them at its first path in scan order)."""
    dir_entry = table[0]
    n = len(columns)
    counted = np.ones(n, dtype=bool)
    linked = np.flatnonzero((columns.nlink > 1) & (columns.kind != KIND_DIR)
                            & (columns.parent >= 0))
    if not len(linked):
        return counted
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[dir_entry] = np.arange(len(dir_entry))
    rows = row_of[columns.parent[linked]]
    keys = np.empty(len(linked), dtype=[("dev", np.int64), ("ino", np.uint64)])
    keys["dev"] = dir_dev[rows]
    keys["ino"] = columns.ino[linked]
    _, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.ravel()
    counted[linked] = counted_links(linked, rows, keys["dev"], keys["ino"], columns.names,
                                    columns.name_offsets, dir_paths)
    # the saved sizes of each inode: at whichever of its paths holds them (the largest)
    groups = int(inverse.max()) + 1
    saved_blocks = np.zeros(groups, dtype=np.int64)
    saved_apparent = np.zeros(groups, dtype=np.int64)
    np.maximum.at(saved_blocks, inverse, blocks[linked].astype(np.int64))
    np.maximum.at(saved_apparent, inverse, apparent[linked].astype(np.int64))
    blocks[linked] = saved_blocks[inverse]
    apparent[linked] = saved_apparent[inverse]
    return counted


def _folder_paths(columns: EntryColumns, dir_entry: np.ndarray, dir_parent: np.ndarray
                  ) -> tuple[str, ...]:
    """The absolute path of every listed folder (rows come after their parent's row)."""
    names = names_at(columns.names, columns.name_offsets, dir_entry)
    paths: list[str] = []
    for name, up in zip(names, dir_parent.tolist(), strict=True):
        if up < 0:
            paths.append(name)
        else:
            base = paths[up]
            paths.append((base if base.endswith("/") else base + "/") + name)
    return tuple(paths)
