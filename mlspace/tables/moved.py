"""What the app moved to the trash since the scan, less what it put back: the second half of
the truth the views show (the first is the scan), and the folder times those moves changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from mlspace.scan import Snapshot


class Moved:
    """The paths in the trash now that the app moved there since ``snapshot`` was made,
    each with its entry (-1: not in the scan), and the folders a move changed, with their
    own time now (``touched``: entry -> mtime)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.gone: dict[str, int] = {}
        self.touched: dict[int, float] = {}

    def mark(self, paths: list[str], removed: bool = True) -> bool:
        """``paths`` went to the trash (or, ``removed=False``, came back). False when one
        came back that this scan never saw (an earlier scan's cleanup undone)."""
        exact = True
        for path in paths:
            if removed:
                self.gone[path] = self.snapshot.find(path)
            elif path in self.gone:
                del self.gone[path]
            else:
                exact = False
        self._touch({os.path.dirname(p) for p in paths})
        return exact

    def entries(self) -> Iterator[int]:
        """The scan's entries of the paths in the trash now."""
        return (entry for entry in self.gone.values() if entry >= 0)

    def __contains__(self, path: object) -> bool:
        return path in self.gone

    def _touch(self, folders: Iterable[str]) -> None:
        """Moving an entry in or out of a folder changes the folder's own time: read it
        again (one lstat per folder), so "Modified" shows what a scan would."""
        for folder in folders:
            entry = self.snapshot.find(folder)
            if entry < 0:
                continue
            try:
                self.touched[entry] = os.lstat(folder).st_mtime
            except OSError:
                self.touched.pop(entry, None)
