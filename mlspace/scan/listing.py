"""A stretch of consecutive entries, with the folders whose listing they are: what one step
of a scan recorded, or a whole snapshot.

Why: a consumer (the classifier) can work through a scan while it runs, one step at a time,
in the scanning process's idle time, and through a finished snapshot with the same code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads with the first stretch: a scan starts walking before it
    import numpy as np

#: Entries handed to a consumer at a time, at least: a consumer pays a fixed cost per
#: stretch, and larger stretches mean larger temporary arrays (32k measured best for the
#: classifier, against 16k and 64k).
LISTING_ENTRIES = 1 << 15


@dataclass(frozen=True)
class Listing:
    """Entries ``first_entry`` to ``first_entry + len(self) - 1``.

    Names are in ``name_buffer``, each followed by NUL, and ``name_offsets`` (len + 1) are
    local to it. The folders listed in this stretch are rows ``first_row`` onwards, given
    by their entry, first child and child count (all global). A scan step's entries are
    exactly its folders' children; a stretch may also hold entries that no folder of it
    lists (the scan roots), whose folder is then not in this stretch or does not exist.
    """

    first_entry: int
    name_buffer: bytes | memoryview
    name_offsets: np.ndarray
    kind: np.ndarray  # uint8 per entry, st_mode >> 12
    first_row: int
    dir_entry: np.ndarray
    dir_first: np.ndarray
    dir_count: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)

    def names_of(self, entries: np.ndarray) -> list[str]:
        """Names of entries given as indices local to this stretch."""
        return names_at(self.name_buffer, self.name_offsets, entries)

    def local_parent_rows(self) -> np.ndarray:
        """For each entry, the global row of the folder in this stretch that lists it, or -1
        where none of this stretch's folders does."""
        import numpy as np

        parents = np.full(len(self), -1, dtype=np.int64)
        counts = self.dir_count
        rows = self.first_row + np.arange(len(counts))
        covered = np.repeat(rows, counts)
        starts = self.dir_first - self.first_entry
        if len(covered):
            # Each folder's children are contiguous; the folders' ranges are in entry order.
            positions = np.repeat(starts - np.r_[0, np.cumsum(counts)[:-1]], counts)
            parents[positions + np.arange(len(covered))] = covered
        return parents


def names_at(buffer: bytes | memoryview, offsets: np.ndarray, entries: np.ndarray
             ) -> list[str]:
    """The names of ``entries`` in a NUL-terminated name buffer, decoded in one go
    (surrogateescape, so names that are not UTF-8 round-trip)."""
    import numpy as np

    starts = offsets[entries].tolist()
    ends = (offsets[np.asarray(entries) + 1] - 1).tolist()
    return [str(buffer[a:b], "utf-8", "surrogateescape")
            for a, b in zip(starts, ends, strict=True)]


def entries_containing(buffer: bytes | memoryview, offsets: np.ndarray, needle: bytes
                       ) -> np.ndarray:
    """Indices (sorted) of the names in ``buffer`` that contain ``needle``: one literal search
    over the whole buffer, which runs at memory speed, and no name decoded."""
    import numpy as np

    if not needle:
        return np.zeros(0, dtype=np.int64)
    pattern = re.compile(re.escape(needle))
    hits = np.fromiter((m.start() for m in pattern.finditer(buffer)), dtype=np.int64)
    entries = np.searchsorted(offsets, hits, side="right") - 1  # sorted, maybe repeated
    return entries[np.r_[True, entries[1:] != entries[:-1]]] if len(entries) else entries


def offsets_of(buffer: bytes) -> np.ndarray:
    """Local name offsets of a NUL-terminated name buffer (len names + 1)."""
    import numpy as np

    view = np.frombuffer(buffer, dtype=np.uint8)
    return np.r_[0, np.flatnonzero(view == 0) + 1].astype(np.int64)
