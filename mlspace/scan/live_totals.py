"""Running totals of each root's top-level entries while a scan is under way.

A user who starts a scan of a big workspace wants to see where the space is going before the
last directory is listed, as QDirStat and Baobab show their trees filling in. The walker
hands back chunks of listed directories; this adds each directory's children to the
top-level entry of the root it lies under (``root/name``), so the window can show those
entries growing. The numbers are a preview: hard links are counted at every link and
nothing is classified yet; the finished snapshot replaces them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from mlspace.scan.walker import KIND_DIR, WalkChunk

#: At most this many entries are reported per root (the biggest), so a flat folder of a
#: million files does not turn every progress report into a million-row update.
TOP_ENTRIES = 200


@dataclass(frozen=True)
class GrowingEntry:
    """A top-level entry of a root as scanned so far; name "" is the root itself, with
    everything found below it."""

    root: str
    name: str
    is_dir: bool
    bytes: int  # on disk so far (blocks × 512)
    apparent_size: int
    files: int  # entries found so far inside it, itself included

    @property
    def path(self) -> str:
        return os.path.join(self.root, self.name) if self.name else self.root


class LiveTotals:
    """Adds walked chunks to the top-level entries of the scan's roots."""

    def __init__(self, roots: list[str]) -> None:
        # Longest first, so a directory is credited to the most specific root it is under.
        self._roots = sorted(roots, key=len, reverse=True)
        self._sums: dict[tuple[str, str], list[int]] = {}  # (root, name) -> bytes, apparent, files
        self._dirs: set[tuple[str, str]] = set()

    def add(self, chunk: WalkChunk) -> None:
        rows = np.frombuffer(chunk.dirs, dtype=np.int64).reshape(-1, 4)
        if not len(rows):
            return
        blocks = np.frombuffer(chunk.blocks, dtype=np.int64)
        sizes = np.frombuffer(chunk.size, dtype=np.int64)
        # Prefix sums: one directory's children are a contiguous range of the chunk.
        block_sums = np.concatenate(([0], np.cumsum(blocks)))
        size_sums = np.concatenate(([0], np.cumsum(sizes)))
        name_block = 0
        for row, path in zip(rows.tolist(), chunk.dir_paths, strict=True):
            _, first, count, _ = row
            if not count:
                continue
            names = chunk.names[name_block]
            name_block += 1
            root, top = self._place(path)
            if root is None:
                continue
            if top is None:  # the root's own listing: each child is a top-level entry
                self._add_children(root, names, chunk, first, count, blocks, sizes)
                continue
            sums = self._sums.setdefault((root, top), [0, 0, 0])
            sums[0] += int(block_sums[first + count] - block_sums[first]) * 512
            sums[1] += int(size_sums[first + count] - size_sums[first])
            sums[2] += count

    def _add_children(self, root: str, names: bytes, chunk: WalkChunk, first: int, count: int,
                      blocks: np.ndarray, sizes: np.ndarray) -> None:
        for i, raw in enumerate(names.split(b"\0")[:count]):
            name = raw.decode("utf-8", "surrogateescape")
            sums = self._sums.setdefault((root, name), [0, 0, 0])
            sums[0] += int(blocks[first + i]) * 512
            sums[1] += int(sizes[first + i])
            sums[2] += 1
            if chunk.kind[first + i] == KIND_DIR:
                self._dirs.add((root, name))

    def _place(self, path: str) -> tuple[str | None, str | None]:
        """The root ``path`` lies under and its top-level name there (None for the root)."""
        for root in self._roots:
            if path == root:
                return root, None
            prefix = root if root.endswith("/") else root + "/"
            if path.startswith(prefix):
                return root, path[len(prefix):].split("/", 1)[0]
        return None, None

    def entries(self) -> tuple[GrowingEntry, ...]:
        """Per root: the root's own total, then its biggest top-level entries, biggest first."""
        by_root: dict[str, list[GrowingEntry]] = {}
        for (root, name), (size, apparent, files) in self._sums.items():
            by_root.setdefault(root, []).append(GrowingEntry(
                root, name, (root, name) in self._dirs, size, apparent, files))
        out: list[GrowingEntry] = []
        for root, entries in by_root.items():
            out.append(GrowingEntry(root, "", True, sum(e.bytes for e in entries),
                                    sum(e.apparent_size for e in entries),
                                    sum(e.files for e in entries)))
            entries.sort(key=lambda e: (-e.bytes, e.name))
            out += entries[:TOP_ENTRIES]
        return tuple(out)
