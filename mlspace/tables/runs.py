"""Runs, checkpoint series and artifacts as they are on disk now: the scan's, less what the
app moved to the trash since (the workspace keeps that mask, and what is made here is kept
until the next cleanup or undo); and whether a move took what a series' records are read
from, which the scan cannot follow. Plain arrays and values, no Qt."""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain

import numpy as np

from mlspace.classify import Artifact, Inventory, Run, Series
from mlspace.filtering import FilterResult
from mlspace.paths import within
from mlspace.scan.arrays import exact_bincount
from mlspace.tables.now import DiskNow


@dataclass(frozen=True)
class SeriesNow:
    """A checkpoint series as it is on disk now: the members still there, oldest first."""

    series: Series
    members: tuple[str, ...]
    tool: str  # the commonest tool of the members left (a fresh scan's rule)
    disk_usage: int  # hard-link copies not counted twice
    apparent_size: int


@dataclass(frozen=True)
class RunNow:
    """A run as it is on disk now, with the series that still hold checkpoints."""

    run: Run
    tool: str | None
    series: tuple[SeriesNow, ...]


class SeriesPaths:
    """A scan's checkpoint series by the paths through which moving something can change
    what a scan would say of them: their folder (a record or pointer beside the
    checkpoints) and their best and latest checkpoints."""

    def __init__(self, inventory: Inventory) -> None:
        self.by_folder: dict[str, list[Series]] = {}
        named: list[tuple[str, int]] = []
        for index, s in enumerate(inventory.series):
            self.by_folder.setdefault(s.path, []).append(s)
            named += [(inventory.artifact_by_id[a].path, index) for a in (s.best, s.latest)
                      if a]
        named.sort()
        self.named = [path for path, _ in named]  # sorted, for bisecting
        self.named_series = [inventory.series[index] for _, index in named]

    def near(self, paths: Iterable[str]) -> list[Series]:
        """The series with one of ``paths`` in their folder, or whose best or latest
        checkpoint is one of ``paths`` or lies inside one."""
        found: dict[str, Series] = {}
        for path in paths:
            for s in self.by_folder.get(os.path.dirname(path), ()):
                found[s.id] = s
            inside = path.rstrip("/") + "/"
            # The path itself, then every path under it: "a/" up to "a0" ("0" follows "/").
            for low, high in ((path, path + "\0"), (inside, inside[:-1] + "0")):
                for i in range(bisect_left(self.named, low), bisect_left(self.named, high)):
                    found[self.named_series[i].id] = self.named_series[i]
        return list(found.values())


def current_artifacts(inv: Inventory, artifacts: list[Artifact], removed: np.ndarray,
                      whole: FilterResult) -> tuple[list[bool], list[int], list[int]]:
    """Of each artifact: is any of it left, and (on disk, apparent) what is left, with
    ``removed`` the entries gone and ``whole`` the unfiltered sizes now. All in array
    passes: a run list measures thousands of checkpoints at once (a Python call an entry
    made a list of a thousand runs take a tenth of a second)."""
    entries = [a.entries or (a.entry,) for a in artifacts]
    lengths = np.fromiter(map(len, entries), dtype=np.int64, count=len(entries))
    flat = np.fromiter(chain.from_iterable(entries), dtype=np.int64, count=int(lengths.sum()))
    owner = np.repeat(np.arange(len(artifacts)), lengths)
    gone = removed[flat]
    n = len(artifacts)
    sums = [exact_bincount(owner, np.where(gone, 0, whole.sizes(inv, flat, apparent)),
                           n).tolist() for apparent in (False, True)]
    left = (exact_bincount(owner, gone.astype(np.int64), n) < lengths).tolist()
    return left, sums[0], sums[1]


def current_series(inv: Inventory, removed: np.ndarray, whole: FilterResult
                   ) -> dict[str, SeriesNow]:
    """Every series with checkpoints left, by id, with what they hold now (the checkpoints
    of all series measured together)."""
    members = [inv.artifact_by_id[m] for s in inv.series for m in s.members]
    present, disk, apparent = current_artifacts(inv, members, removed, whole)
    by_id: dict[str, SeriesNow] = {}
    at = 0
    for s in inv.series:
        mine = range(at, at + len(s.members))
        at = mine.stop
        left = [i for i in mine if present[i]]
        if not left:
            continue
        tools = [members[i].tool or "checkpoint" for i in left]
        counted = [i for i in left if members[i].copy_kind != "hard link"]
        by_id[s.id] = SeriesNow(s, tuple(members[i].id for i in left),
                                max(dict.fromkeys(tools), key=tools.count),
                                sum(disk[i] for i in counted), sum(apparent[i] for i in counted))
    return by_id


def current_runs(inv: Inventory, series: Mapping[str, SeriesNow], removed: np.ndarray,
                 artifact_at: Mapping[int, Artifact]) -> tuple[RunNow, ...]:
    """The runs a scan would find now: without those whose folder went, or whose only
    reason to be a run (their checkpoints, ``series`` as current_series gives them) went.
    ``artifact_at``: the artifact whose folder an entry is."""
    runs = []
    for run in inv.runs:
        if removed[run.entry]:
            continue
        held = tuple(series[s] for s in run.series if s in series)
        folder = artifact_at.get(run.entry)
        is_run_folder = folder is not None and folder.kind == "run"
        if not held and not is_run_folder:
            continue
        tool = folder.tool if is_run_folder and folder.tool else held[0].tool if held else None
        runs.append(RunNow(run, tool, held))
    return tuple(runs)


def runs_now(now: DiskNow, artifact_at: Mapping[int, Artifact]
             ) -> tuple[tuple[RunNow, ...], dict[str, SeriesNow]]:
    """(the runs a scan would find now, every series left by id), made once per DiskNow."""
    def make() -> tuple[tuple[RunNow, ...], dict[str, SeriesNow]]:
        by_id = current_series(now.inventory, now.removed, now.whole)
        return current_runs(now.inventory, by_id, now.removed, artifact_at), by_id
    return now.once("runs", make)


def records_gone(inv: Inventory, near: SeriesPaths, paths: list[str], now: DiskNow) -> bool:
    """Did any of ``paths`` (moved to the trash, ``now`` after it) take what a series' best
    or latest is read from: that checkpoint itself, or a file beside the checkpoints (a
    pointer, a record)? A rescan must say then what the series holds."""
    moved = set(paths)
    # A scan has thousands of series, a cleanup a few paths: only the series those paths
    # can concern are looked at.
    for s in near.near(moved):
        named = {inv.artifact_by_id[i].path for i in (s.best, s.latest) if i}
        took_named = any(within(p, moved) for p in named)
        beside = [p for p in moved if os.path.dirname(p) == s.path]
        if not took_named and not beside:
            continue
        kept = [inv.artifact_by_id[m] for m in s.members]
        if not any(current_artifacts(inv, kept, now.removed, now.whole)[0]):
            continue  # the whole series went: a scan finds no series there either
        members = {a.path for a in kept}
        if took_named or any(p not in members for p in beside):
            return True
    return False
