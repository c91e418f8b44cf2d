"""Write a scan in ncdu's JSON export format, version 1.2, as ``ncdu -o`` writes it, for ncdu
and gdu users (``ncdu -f FILE`` browses it).

Per entry: its own apparent and allocated size (omitted when 0, as ncdu does), the device
of the scanned folder and of any folder on another device, inode, ``hlnkc`` and link count
for hard-linked files (ncdu counts each inode once, as mlspace does), ``notreg`` for what is
neither a file nor a folder, ``read_error`` and ``excluded: "otherfs"`` where the scan
could not list a folder or did not enter one; and, as ``ncdu -e`` adds, the owner and the
modification time (whole seconds). Names are written as the raw bytes they are on disk,
with only what JSON requires escaped.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import BinaryIO

import numpy as np

from mlspace import __version__
from mlspace.index.ncdu_read import UNKNOWN_UID
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR, KIND_FILE

_SPECIAL = re.compile(rb'[\x00-\x1f"\\\x7f]')
_BATCH = 1 << 16  # entries between two writes


def check_exportable(snapshot: Snapshot) -> str | None:
    """Why this scan cannot be written in ncdu's format, or None: the format holds one
    scanned folder."""
    if len(snapshot.roots) != 1:
        return "ncdu's format holds one scanned folder: scan one PATH to export it"
    if snapshot.row_of(snapshot.root_entries[0]) < 0:
        return "ncdu's format holds a scanned folder, not a file"
    return None


def write_ncdu(snapshot: Snapshot, out: BinaryIO, now: float | None = None) -> None:
    """Write the export to ``out`` (see check_exportable for what it takes)."""
    problem = check_exportable(snapshot)
    if problem:
        raise ValueError(problem)
    stamp = int(time.time() if now is None else now)
    out.write(b'[1,2,{"progname":"mlspace","progver":"%s","timestamp":%d},\n'
              % (__version__.encode(), stamp))
    batch: list[bytes] = []
    for piece in _pieces(snapshot):
        batch.append(piece)
        if len(batch) >= _BATCH:
            out.write(b"".join(batch))
            batch.clear()
    batch.append(b"]\n")
    out.write(b"".join(batch))


def _pieces(snapshot: Snapshot) -> Iterator[bytes]:
    """The folder arrays, depth first, with an explicit stack (trees can nest deeply)."""
    info = _InfoWriter(snapshot)
    row_of = np.full(len(snapshot), -1, dtype=np.int64)
    row_of[snapshot.dir_entry] = np.arange(len(snapshot.dir_entry))
    rows, first, count = row_of.tolist(), snapshot.dir_first.tolist(), snapshot.dir_count.tolist()

    def children(entry: int) -> Iterator[int]:
        row = rows[entry]
        return iter(range(first[row], first[row] + count[row]))

    root = snapshot.root_entries[0]
    yield b"[" + info(root)
    stack = [children(root)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            yield b"]"
        elif rows[child] >= 0:
            yield b",\n[" + info(child)
            stack.append(children(child))
        elif info.kind[child] == KIND_DIR and child not in info.other_fs:
            # A folder the scan could not list: an empty folder array, as ncdu writes one
            # it could not read (a mount point not entered is a plain object).
            yield b",\n[" + info(child) + b"]"
        else:
            yield b",\n" + info(child)


class _InfoWriter:
    """Formats one entry's info object; columns are read as Python lists once."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.kind = snapshot.kind.tolist()
        self.apparent = snapshot.apparent.tolist()
        self.disk = snapshot.disk_sizes().tolist()
        self.ino = snapshot.ino.tolist()
        self.nlink = snapshot.nlink.tolist()
        self.uid = snapshot.uid.tolist()
        self.mtime = snapshot.mtime.astype(np.int64).tolist()
        self.buffer = bytes(snapshot.name_buffer)
        self.offsets = snapshot.name_offsets.tolist()
        self.errors = {snapshot.find(e.path) for e in snapshot.errors} - {-1}
        self.other_fs = {snapshot.find(p) for p in snapshot.other_filesystems} - {-1}
        parent_dev = np.append(snapshot.dir_dev, -1)[snapshot.dir_parent]
        changed = np.flatnonzero(snapshot.dir_dev != parent_dev)
        self.devices = dict(zip(snapshot.dir_entry[changed].tolist(),
                                snapshot.dir_dev[changed].tolist(), strict=True))

    def __call__(self, entry: int) -> bytes:
        name = self.buffer[self.offsets[entry] : self.offsets[entry + 1] - 1]
        if _SPECIAL.search(name):
            name = _SPECIAL.sub(_escape, name)
        parts = [b'{"name":"', name, b'"']
        if self.apparent[entry]:
            parts.append(b',"asize":%d' % self.apparent[entry])
        if self.disk[entry]:
            parts.append(b',"dsize":%d' % self.disk[entry])
        if entry in self.devices:
            parts.append(b',"dev":%d' % self.devices[entry])
        kind = self.kind[entry]
        if kind != KIND_DIR and self.nlink[entry] > 1:
            parts.append(b',"ino":%d,"hlnkc":true,"nlink":%d'
                         % (self.ino[entry], self.nlink[entry]))
        if kind not in (KIND_DIR, KIND_FILE):
            parts.append(b',"notreg":true')
        if self.uid[entry] != UNKNOWN_UID:
            parts.append(b',"uid":%d' % self.uid[entry])
        if self.mtime[entry] > 0:
            parts.append(b',"mtime":%d' % self.mtime[entry])
        if entry in self.errors:
            parts.append(b',"read_error":true')
        if entry in self.other_fs:
            parts.append(b',"excluded":"otherfs"')
        parts.append(b"}")
        return b"".join(parts)


def _escape(match: re.Match[bytes]) -> bytes:
    char = match.group()
    if char in (b'"', b"\\"):
        return b"\\" + char
    return b"\\u%04x" % char[0]
