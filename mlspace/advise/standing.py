"""Which of a plan's suggestions still stand after some paths went to the trash.

A suggestion falls when it names a path that went (or one inside it), when it names a folder
holding one (its sizes are no longer what was scanned), or when it keeps something that went
(what it says stays no longer does). The app asks this after every cleanup and undo; a plan
of thousands of suggestions is indexed once by path, so each question costs a few lookups
per trashed path instead of a walk over every suggestion's paths.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Iterable

from mlspace.advise.model import Plan


class StandingIndex:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        named = [(p, i) for i, s in enumerate(plan.suggestions) for p in s.paths]
        kept = [(k.path, i) for i, s in enumerate(plan.suggestions) for k in s.kept]
        self._named = sorted(named)
        self._named_paths = [p for p, _ in self._named]
        self._by_path: dict[str, list[int]] = {}
        for path, i in named:
            self._by_path.setdefault(path, []).append(i)
        self._kept = sorted(kept)
        self._kept_paths = [p for p, _ in self._kept]

    def standing(self, gone: Iterable[str]) -> Plan:
        """The plan without the suggestions that ``gone`` (paths in the trash) made fall."""
        fallen: set[int] = set()
        for path in gone:
            fallen |= _at_or_under(self._named, self._named_paths, path)
            fallen |= _at_or_under(self._kept, self._kept_paths, path)
            for parent in _parents(path):
                fallen.update(self._by_path.get(parent, ()))
        if not fallen:
            return self.plan
        return Plan(self.plan.roots, tuple(s for i, s in enumerate(self.plan.suggestions)
                                           if i not in fallen))


def _at_or_under(pairs: list[tuple[str, int]], paths: list[str], folder: str) -> set[int]:
    """Suggestion indices of the sorted (path, index) pairs at ``folder`` or inside it."""
    found = set()
    for low, high in ((folder, folder + "\0"), (folder + "/", folder + "0")):  # "0" follows "/"
        at = bisect_left(paths, low)
        while at < len(paths) and paths[at] < high:
            found.add(pairs[at][1])
            at += 1
    return found


def _parents(path: str) -> Iterable[str]:
    """Every folder above a path."""
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return
        yield parent
        path = parent
