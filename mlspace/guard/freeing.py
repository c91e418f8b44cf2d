"""Acting before the disk fills, only where the workspace's policy says ``[guard] act =
true``, in a fixed order, stopping as soon as enough is free:

1. what mlspace itself already moved to the trash on this disk, oldest first, purged (the
   user chose to remove it already; only the space was still held);
2. the policy's *safe* suggestions, oldest first, moved and purged at once.

Never touched, whatever the policy allows: a run's best or latest checkpoint (and any
checkpoint a series protects), anything written in the recent-write window, raw data, a
review or risky suggestion, or an archive suggestion. Everything goes through act: the
executor re-checks each item as scanned (a checkpoint the training run rewrote between the
plan and the act is skipped), journals each step, and purges; what the disk got back is
the ``statvfs`` difference. Each action is recorded like a policy run (the app's banner,
the history) and written as an HTML report.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from mlspace.act import JournalUnavailable, lock, policy_report, purge, run
from mlspace.act.outcomes import CleanupResult
from mlspace.act.policy import Policy, Selection, select
from mlspace.act.policy_guard import GuardSettings
from mlspace.act.policy_runs import record_policy_run
from mlspace.advise import SAFE, Suggestion, advise
from mlspace.advise.archive import ARCHIVE_POLICIES
from mlspace.classify import Inventory
from mlspace.config import data_dir
from mlspace.disks import filesystem_of
from mlspace.guard.runs import light_scan
from mlspace.paths import within

T = TypeVar("T")


@dataclass(frozen=True)
class Freed:
    """What one act did: purged from the trash, cleaned (moved and purged), what the disk
    got back (statvfs), and what the guard would not touch (with why)."""

    from_trash: purge.PurgeResult | None
    cleaned: CleanupResult | None
    freed: int
    held: tuple[tuple[str, str], ...]
    report: str | None = None

    @property
    def nothing_safe(self) -> bool:
        """Nothing was found that the guard may free."""
        return not (self.from_trash and self.from_trash.purged) and not \
            (self.cleaned and self.cleaned.done)


def _available(root: str) -> int:
    fs = filesystem_of(root)
    return fs.available if fs is not None else 0


def _trash_on_disk(root: str) -> list[purge.PurgeItem]:
    """What mlspace moved to a trash on ``root``'s filesystem, oldest first."""
    device = os.stat(root).st_dev
    out = []
    for item in purge.in_trash():
        try:
            if os.lstat(item.trash_file).st_dev == device:
                out.append(item)
        except OSError:
            continue
    return out


def _enough(items: Sequence[T], need: int, size: Callable[[T], int]) -> list[T]:
    """The first items (in order) whose sizes add up to ``need``."""
    taken: list[T] = []
    total = 0
    for item in items:
        if total >= need:
            break
        taken.append(item)
        total += size(item)
    return taken


def _overlaps(path: str, others: set[str]) -> bool:
    """Is ``path`` one of ``others``, inside one, or a folder holding one?"""
    return within(path, others) or any(o.startswith(path.rstrip("/") + "/") for o in others)


def _never(inv: Inventory) -> tuple[set[str], set[str]]:
    """The paths the guard never frees: every checkpoint a series protects (best, latest,
    named, pointed to), and raw data."""
    artifacts = inv.artifact_by_id
    kept = {artifacts[a].path for s in inv.series for a in
            {*s.protected, *(x for x in (s.best, s.latest) if x)} if a in artifacts}
    data = {a.path for a in inv.artifacts if a.kind == "dataset"}
    return kept, data


def guard_selection(chosen: Selection, inv: Inventory, guard: GuardSettings,
                    now: float) -> tuple[list[tuple[Suggestion, str]], list[tuple[str, str]]]:
    """The policy's selection cut to what the guard may free, oldest item first, and
    what it held back with why."""
    kept, data = _never(inv)
    held: list[tuple[str, str]] = []
    items = []
    for suggestion, _action in chosen.work:
        for item in suggestion.items:
            why = None
            if suggestion.risk != SAFE or suggestion.policy in ARCHIVE_POLICIES:
                why = f"{suggestion.risk} ({suggestion.policy}): the guard frees only safe " \
                      "suggestions"
            elif _overlaps(item.path, kept):
                why = "a run's best or latest checkpoint (or holds one)"
            elif _overlaps(item.path, data):
                why = "raw data"
            elif now - item.mtime < guard.recent_seconds:
                why = f"written in the last {guard.recent_minutes:g} minutes"
            if why is None:
                items.append((item.mtime, suggestion, item))
            else:
                held.append((item.path, why))
    items.sort(key=lambda x: x[0])
    return [(replace(s, items=(i,)), "trash") for _, s, i in items], held


def free(root: str, chosen_policy: Policy, target: int, now: float | None = None) -> Freed:
    """Free space on ``root``'s disk until ``target`` bytes are available (module doc),
    holding the tree as a policy run does: while another run of mlspace works on it (the
    nightly apply-policy), the guard does nothing and says so."""
    try:
        with lock.hold([root], f"mlspace guard (policy {chosen_policy.path})"):
            return _free(root, chosen_policy, target, now)
    except lock.Busy as err:
        return Freed(None, None, 0, ((root, str(err)),))


def _free(root: str, chosen_policy: Policy, target: int, now: float | None) -> Freed:
    guard = chosen_policy.guard or GuardSettings()
    now = time.time() if now is None else now
    start = _available(root)
    from_trash = None
    waiting = _enough(_trash_on_disk(root), target - start, lambda p: p.disk_usage)
    if waiting:
        from_trash = purge.purge(waiting)
    cleaned, held = None, ()
    short = target - _available(root)
    if short > 0:
        inv = light_scan(root)
        roots = tuple(inv.snapshot.roots)
        settings = replace(chosen_policy.advice_settings(inv, roots),
                           recent_seconds=guard.recent_seconds, now=now)
        chosen = select(advise(inv, settings), chosen_policy, now)
        work, held_list = guard_selection(chosen, inv, guard, now)
        held = tuple(chosen.held) + tuple(held_list)
        work = _enough(work, short, lambda w: w[0].bytes)
        if work:
            cleaned = run(work, roots, None, recent_seconds=guard.recent_seconds,
                          free_now=True, title=f"Guard: freed space on {root}",
                          meta={"policy": chosen_policy.path, "unattended": True})
    freed = _available(root) - start
    done = Freed(from_trash, cleaned, freed, held)
    if not done.nothing_safe:
        done = replace(done, report=_record(root, chosen_policy, done))
    return done


# ------------------------------------------------------------------------------ record
def report_path(root: str) -> str:
    tag = hashlib.sha1(os.path.abspath(root).encode("utf-8", "surrogateescape")).hexdigest()
    return str(data_dir() / "reports" / f"mlspace-guard-{tag[:10]}.html")


def summary(root: str, chosen_policy: Policy, done: Freed, report: str | None) -> dict:
    """The act as a policy run's record (mlspace.act.policy_report's keys)."""
    moved = []
    if done.from_trash:
        moved += [{"path": p.path, "action": "purged", "to": "deleted for good from the trash",
                   "bytes": p.disk_usage} for p in done.from_trash.purged]
    skipped = [{"path": p.path, "reason": why} for p, why in
               (done.from_trash.left if done.from_trash else ())]
    if done.cleaned:
        moved += [{"path": o.path, "action": "purged", "to": o.reason, "bytes": o.disk_usage}
                  for o in done.cleaned.done]
        skipped += [{"path": o.path, "reason": o.reason} for o in done.cleaned.skipped]
    return {
        "time": time.time(), "host": socket.gethostname(), "policy": chosen_policy.path,
        "roots": [root], "dry_run": False, "exit_code": 1 if skipped else 0,
        "cleanup_id": done.cleaned.cleanup_id if done.cleaned else None, "report": report,
        "stopped": done.cleaned.stopped if done.cleaned else "", "guard": True,
        "moved_bytes": sum(m["bytes"] for m in moved), "freed": max(done.freed, 0),
        "planned": moved, "moved": moved, "skipped": skipped,
        "held": [{"path": p, "reason": why} for p, why in done.held],
    }


def _record(root: str, chosen_policy: Policy, done: Freed) -> str | None:
    """Record the act as a policy run and write its report; the report's path."""
    from mlspace.trust import write_private

    path = report_path(root)
    run_record = summary(root, chosen_policy, done, path)
    record_policy_run(policy_report.brief(run_record))
    try:
        write_private(path, policy_report.render_html(run_record), errors="surrogateescape")
    except (OSError, JournalUnavailable):
        return None
    return path
