"""A folder's modification time around mlspace's own moves, so that putting items back
leaves a run as old as it was.

Taking an item out of a folder (to the trash, or to the cold tier with a link left) changes
the folder's time, truthfully. Putting it back changes it again, and a finished run then
looks freshly written: its suggestions vanish (archiving a finished run's checkpoints, above
all). So each move out records the folder's time before and after it, and each put-back
gives the folder the time it had before mlspace first took anything out of it — but only
while the folder still has a time mlspace itself left it with: a folder someone wrote to
meanwhile keeps its newer time.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass

from mlspace.act.journal import LINKED, RESTORED, TRASHED, CleanupRecord


@dataclass(frozen=True)
class FolderTimes:
    original: int | None  # the folder's mtime (ns) before mlspace first took an item out
    left: frozenset[int]  # the mtimes mlspace left it with since

    def put_back(self, folder_fd: int, seen: os.stat_result) -> int | None:
        """After an item came back into the open folder (``seen``: its state just before):
        give it its original time when ``seen`` is a time mlspace left it with; the time
        set, or None."""
        if self.original is None or seen.st_mtime_ns not in self.left:
            return None
        with contextlib.suppress(OSError):
            os.utime(folder_fd, ns=(seen.st_atime_ns, self.original))
            return self.original
        return None


def of_folder(records: Iterable[CleanupRecord], folder: str) -> FolderTimes:
    """What ``records`` say of ``folder``'s times (module doc)."""
    befores, left = [], set()
    for record in records:
        for event in record.events:
            path = str(event.get("path") or "")
            if os.path.dirname(path) != folder:
                continue
            times = event.get("parent_mtime_ns")
            if event["event"] in (TRASHED, LINKED) and isinstance(times, list) and \
                    len(times) == 2 and all(isinstance(t, int) for t in times):
                befores.append(times[0])
                left.add(times[1])
            if event["event"] == RESTORED and isinstance(event.get("parent_set_ns"), int):
                left.add(event["parent_set_ns"])
    original = min(befores) if befores else None
    if original is not None:
        left.add(original)  # as mlspace gave it back earlier in the same undo
    return FolderTimes(original, frozenset(left))
