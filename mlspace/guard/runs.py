"""Learning what the active runs write, cheaply.

Where the runs are comes from the last saved scan of the workspace (``mlspace scan --save``
or the app's history), or, when there is none, from one scan when the guard starts; never
from a full rescan on a timer. From then on each round only stats a few folders per run:
the run folder, its checkpoint series' folders and the newest checkpoint (a checkpoint
being written changes its own folder). When a series' folder changed, it alone is listed,
and its new entries shaped like its checkpoints (``checkpoint-#``) are measured, the newest
one again too (it may have been half-written): they become sightings with their size and
time. The folders holding runs are stat'ed too; a folder new in one of them is rescanned
and classified once (that folder only), so a run started after the last scan is found.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mlspace.guard.cadence import KEEP, Sighting

if TYPE_CHECKING:  # the guard's state file reads Watched without the classifier
    from mlspace.classify import Inventory

_DIGITS = re.compile(r"\d+")


@dataclass
class Watched:
    """One run folder the guard follows: its series' checkpoints seen so far, and the
    folders' mtimes when it last looked."""

    folder: str
    root: str
    series: dict[str, list[Sighting]] = field(default_factory=dict)  # series folder -> seen
    stamps: dict[str, int] = field(default_factory=dict)  # folder -> st_mtime_ns

    def to_json(self) -> dict:
        return {"folder": self.folder, "root": self.root, "stamps": self.stamps,
                "series": {p: [[s.name, s.mtime, s.size] for s in seen]
                           for p, seen in self.series.items()}}

    @classmethod
    def from_json(cls, data: dict) -> Watched:
        return cls(str(data["folder"]), str(data["root"]),
                   {str(p): [Sighting(str(n), float(m), int(z)) for n, m, z in seen]
                    for p, seen in dict(data.get("series", {})).items()},
                   {str(k): int(v) for k, v in dict(data.get("stamps", {})).items()})


def _mtime_ns(path: str) -> int | None:
    try:
        return os.stat(path, follow_symlinks=False).st_mtime_ns
    except OSError:
        return None


def series_of(inv: Inventory) -> dict[str, dict[str, list[Sighting]]]:
    """{run folder: {series folder: its checkpoints}} of an inventory (a series without a
    run is its own run folder)."""
    artifacts, runs = inv.artifact_by_id, inv.run_by_id
    out: dict[str, dict[str, list[Sighting]]] = {}
    for s in inv.series:
        run = runs.get(s.run) if s.run else None
        folder = run.path if run is not None else s.path
        seen = [Sighting(a.path, a.newest_mtime, a.disk_usage)
                for a in (artifacts.get(m) for m in s.members) if a is not None]
        out.setdefault(folder, {})[s.path] = sorted(seen, key=lambda x: x.mtime)[-KEEP:]
    return out


def light_scan(folder: str) -> Inventory:
    """One folder scanned and classified in this process (the guard's only walks)."""
    from mlspace.classify import classify
    from mlspace.scan import ScanOptions, scan

    return classify(scan([folder], ScanOptions(workers=1, threads=2)))


def watched_from(inv: Inventory, root: str) -> list[Watched]:
    """The runs of a workspace's inventory, as folders to follow."""
    return [Watched(folder, root, series) for folder, series in series_of(inv).items()]


def _stamp_targets(w: Watched) -> list[str]:
    newest = [max(seen, key=lambda s: s.mtime).name for seen in w.series.values() if seen]
    return sorted({w.folder, *w.series, *newest})


def restamp(w: Watched) -> None:
    w.stamps = {p: t for p in _stamp_targets(w) if (t := _mtime_ns(p)) is not None}


def changed(w: Watched) -> bool:
    """Did any folder the run writes into change since the guard last looked?"""
    return not w.stamps or any(_mtime_ns(p) != t for p, t in w.stamps.items())


def shape(name: str) -> str:
    """A checkpoint's name with its numbers taken out (``checkpoint-#``,
    ``epoch=#-step=#.ckpt``): a new entry of that shape in a series' folder is its next
    checkpoint."""
    return _DIGITS.sub("#", os.path.basename(name))


def measure(path: str) -> tuple[float, int] | None:
    """(newest mtime, bytes on disk) of a file or a folder's tree, never following a link;
    None when it is gone."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    newest, used = st.st_mtime, st.st_blocks * 512
    folders = [path] if stat.S_ISDIR(st.st_mode) else []
    while folders:
        with contextlib.suppress(OSError), os.scandir(folders.pop()) as it:
            for entry in it:
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    newest, used = max(newest, info.st_mtime), used + info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
    return newest, used


def _look(path: str, seen: list[Sighting], folder_changed: bool, newest_changed: bool
          ) -> tuple[list[Sighting], int]:
    """One series: its new checkpoints (when its folder changed) and the newest one again
    (it may have been measured half-written); the bytes they added."""
    names, shapes = {s.name for s in seen}, {shape(s.name) for s in seen}
    out, added = list(seen), 0
    newest = max(seen, key=lambda s: s.mtime) if seen else None
    if newest is not None and (folder_changed or newest_changed):
        again = measure(newest.name)
        if again is not None:
            out[out.index(newest)] = Sighting(newest.name, newest.mtime, again[1])
            added += max(again[1] - newest.size, 0)
    fresh: list[str] = []
    if folder_changed:
        with contextlib.suppress(OSError), os.scandir(path) as it:
            fresh = [e.path for e in it if e.path not in names and shape(e.name) in shapes]
        for entry in fresh:
            found = measure(entry)
            if found is not None:
                out.append(Sighting(entry, found[0], found[1]))
                added += found[1]
    return sorted(out, key=lambda s: s.mtime)[-KEEP:], added


def observe(w: Watched) -> int:
    """Look at one run: in each series folder that changed since the guard last looked,
    the new entries shaped like its checkpoints are measured (no walk of the run, no
    classification). Returns the bytes its new (or grown) checkpoints added."""
    if not changed(w) or not os.path.isdir(w.folder):
        return 0  # quiet; or gone, or its disk is away: what was learned stays
    added = 0
    for path, seen in list(w.series.items()):
        newest = max(seen, key=lambda s: s.mtime).name if seen else ""
        w.series[path], grew = _look(path, seen, _mtime_ns(path) != w.stamps.get(path),
                                     bool(newest) and
                                     _mtime_ns(newest) != w.stamps.get(newest))
        added += grew
    restamp(w)
    return added


def child_folders(parent: str) -> list[str]:
    """The names of the folders in ``parent`` (none when it cannot be listed)."""
    with contextlib.suppress(OSError), os.scandir(parent) as it:
        return sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
    return []


def new_runs(parents: dict[str, int], children: dict[str, list[str]], known: set[str],
             root: str) -> list[Watched]:
    """Runs started in a folder that holds runs since the guard last looked: when its
    mtime changed, each folder in it that was not there before is rescanned once (a
    folder that was there, a dataset being written into, is not). ``parents`` and
    ``children`` are updated."""
    found: list[Watched] = []
    for parent, stamp in list(parents.items()):
        now = _mtime_ns(parent)
        if now is None or now == stamp:
            continue
        parents[parent] = now
        names = child_folders(parent)
        before = set(children.get(parent, ()))
        children[parent] = names
        for name in names:
            child = os.path.join(parent, name)
            if name in before or child in known:
                continue
            for w in watched_from(light_scan(child), root):
                if w.folder not in known:
                    known.add(w.folder)
                    found.append(w)
    return found


def parents_of(watched: list[Watched]) -> dict[str, int]:
    """The folders holding the runs, with their mtimes now."""
    folders = {os.path.dirname(w.folder) for w in watched}
    return {p: t for p in sorted(folders) if (t := _mtime_ns(p)) is not None}
