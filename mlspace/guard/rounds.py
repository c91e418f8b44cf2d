"""One round of the guard, for every filesystem of the workspaces it watches: learn what
the runs wrote, sample the free space, forecast, warn once per episode, and act where the
policy allows. ``mlspace guard --once`` is one round; the service runs rounds forever, as
often as :func:`mlspace.guard.samples.interval` says.

An *episode* is a stretch of time the disk is in danger (the next checkpoint will not fit,
or it may fill within the policy's ``warn_hours``): it opens when that starts, is warned
about once, and closes only when the danger is well past (twice the warning time), so a
forecast hovering at the threshold does not warn every minute.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from mlspace import fmt
from mlspace.act.policy import Policy
from mlspace.act.policy_guard import GuardSettings
from mlspace.disks import FileSystem, filesystem_of
from mlspace.guard import notify, runs, samples
from mlspace.guard.cadence import Cadence, cadence
from mlspace.guard.forecast import Forecast, forecast, words
from mlspace.guard.freeing import Freed, free
from mlspace.guard.state import DiskState, Episode, GuardState

WATCHING, WARNED, ACTED, GONE = "watching", "warned", "acted", "gone"
Warn = Callable[..., list[str]]


@dataclass(frozen=True)
class DiskRound:
    """What one round found and did on one filesystem."""

    mount: str
    roots: tuple[str, ...]
    status: str  # WATCHING, WARNED, ACTED, GONE
    line: str  # the forecast in words
    forecast: Forecast | None
    fs: FileSystem | None
    warned: tuple[str, ...] = ()  # channels a warning went to this round
    freed: Freed | None = None
    next_round: float = samples.RARELY


def learn(root: str, state: GuardState) -> None:
    """Know the runs of ``root``: from its last saved scan, else from one scan now."""
    inventory = None
    try:
        from mlspace.index.history import latest
        from mlspace.index.saved import open_saved

        entry = latest(root)
        if entry is not None:
            inventory = open_saved(str(entry.path)).saved_inventory
    except Exception:  # noqa: BLE001 - any saved scan that cannot be used: scan instead
        inventory = None
    if inventory is None:
        inventory = runs.light_scan(root)
    found = runs.watched_from(inventory, root)
    for w in found:
        state.runs.setdefault(w.folder, w)
    state.parents[root] = runs.parents_of(found) or \
        {root: os.stat(root, follow_symlinks=False).st_mtime_ns}
    for parent in state.parents[root]:
        state.children[parent] = runs.child_folders(parent)
    state.learned[root] = time.time()


def _label(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)
    return os.path.basename(root.rstrip("/")) if rel == "." else rel


def _cadences(state: GuardState, roots: Sequence[str]) -> dict[str, Cadence]:
    out = {}
    for w in state.runs.values():
        if w.root in roots:
            for path, seen in w.series.items():
                c = cadence(seen)
                if c is not None:
                    out[_label(path, w.root)] = c
    return out


def _in_danger(fc: Forecast, guard: GuardSettings, factor: float = 1.0) -> bool:
    soon = fc.earliest is not None and fc.earliest < guard.warn_hours * 3600 * factor
    return soon or fc.next_will_not_fit() is not None


def _target(fc: Forecast, guard: GuardSettings) -> int:
    """What the guard frees up to: keep_free, or the biggest next checkpoint (the high end
    of its range) when that is more: keep_free met with no room for it would still fail
    the run."""
    need = [n.size.high for n in fc.runs]
    return int(max([guard.keep_free or 0, *need]))


def _body(line: str, fs: FileSystem, freed: Freed | None, roots: Sequence[str]) -> str:
    parts = [f"{fs.mount}: {fmt.size(fs.available)} free; {line}."]
    if freed is not None and not freed.nothing_safe:
        parts.append(f"The guard freed {fmt.size(max(freed.freed, 0))} (deleted for good; "
                     f"see {freed.report or 'mlspace policy runs'}).")
    elif freed is not None and freed.cleaned is not None and freed.cleaned.skipped:
        parts.append(f"The guard could not free anything ({freed.cleaned.skipped[0].reason})"
                     ": free space by hand.")
    elif freed is not None:
        parts.append("Nothing is left that the guard may free: free space by hand.")
    parts.append(f"Open: mlspace {' '.join(roots)}")
    return " ".join(parts)


def guard_round(roots: Sequence[str], policies: Mapping[str, Policy | None],
                state: GuardState, now: float | None = None,
                warn: Warn = notify.warn) -> list[DiskRound]:
    """One round over ``roots`` (each with its policy, or None: watch and warn only)."""
    now = time.time() if now is None else now
    here = [r for r in roots if os.path.isdir(r)]  # a disk pulled away is only named
    for root in here:
        if root not in state.learned:
            learn(root, state)
    added: dict[str, int] = {}
    for root in here:
        known = set(state.runs)
        for w in runs.new_runs(state.parents.get(root, {}), state.children, known, root):
            state.runs[w.folder] = w
    for w in list(state.runs.values()):
        if w.root in here:
            grew = runs.observe(w)
            added[w.root] = added.get(w.root, 0) + grew
    by_mount: dict[str, list[str]] = {}
    for root in roots:
        fs = filesystem_of(root)
        by_mount.setdefault(fs.mount if fs else root, []).append(root)
    return [_disk_round(mount, group, policies, state, now, added, warn)
            for mount, group in by_mount.items()]


def _disk_round(mount: str, roots: list[str], policies: Mapping[str, Policy | None],
                state: GuardState, now: float, added: Mapping[str, int],
                warn: Warn) -> DiskRound:
    fs = filesystem_of(roots[0])
    disk = state.disks.setdefault(mount, DiskState(mount))
    if fs is None:
        disk.last = {"status": GONE, "time": now, "line": "cannot be read (unmounted, or "
                     "the folder is gone): nothing is done there"}
        return DiskRound(mount, tuple(roots), GONE, disk.last["line"], None, None)
    disk.samples = samples.keep([*disk.samples, samples.next_sample(
        disk.samples, now, fs.available, sum(added.get(r, 0) for r in roots))])
    acting = next(((r, p) for r in roots if (p := policies.get(r)) is not None
                   and p.guard is not None and p.guard.act), None)
    guard = next((p.guard for r in roots if (p := policies.get(r)) and p.guard), None) \
        or GuardSettings()
    fc = forecast(fs.available, samples.other_growth(disk.samples),
                  _cadences(state, roots), now)
    freed, channels = None, ()
    if _in_danger(fc, guard):
        disk.episode = disk.episode or Episode(since=now)
        target = _target(fc, guard)
        if acting is not None and fs.available < target:  # keep_free met: nothing to do
            freed = free(acting[0], acting[1], target, now)
            if not freed.nothing_safe:
                disk.episode.acted += 1
                disk.episode.freed += max(freed.freed, 0)
            fs = filesystem_of(roots[0]) or fs
            fc = forecast(fs.available, samples.other_growth(disk.samples),
                          _cadences(state, roots), now)
        if not disk.episode.warned:
            line = words(fc)
            title = f"{fs.mount} is filling up" if fc.next_will_not_fit() is None else \
                f"The next checkpoint will not fit on {fs.mount}"
            channels = tuple(warn(title, _body(line, fs, freed, roots), guard.mail))
            disk.episode.warned = True
    elif disk.episode is not None and not _in_danger(fc, guard, factor=2.0):
        disk.episode = None
    status = WATCHING if disk.episode is None else \
        ACTED if disk.episode.acted else WARNED
    due = [n.due.low for n in fc.runs]
    wait = samples.interval(fc.earliest, min(due) if due else None, fs.percent_full)
    line = words(fc)
    disk.last = {"status": status, "time": now, "line": line, "available": fs.available,
                 "size": fs.size, "full_in": None if fc.full_in is None else
                 [fc.full_in.mid, fc.full_in.low, fc.full_in.high],
                 "next_round": now + wait, "roots": roots,
                 "acting": acting is not None, "freed": disk.episode.freed if disk.episode
                 else 0, "report": freed.report if freed else disk.last.get("report")}
    return DiskRound(mount, tuple(roots), status, line, fc, fs, channels, freed, wait)
