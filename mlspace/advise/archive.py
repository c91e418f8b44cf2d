"""Archive suggestions: what could move to the cold tier, offered only once one is configured.

Like the cleanup policies (:mod:`mlspace.advise.policies`) these read the inventory, never
the disk, and name exact paths. They differ in what they pick: not what is no longer
needed, but what is needed rarely: the checkpoints retention *keeps* (best and latest) of
runs finished long ago, datasets untouched for months (raw data included: it is moved,
never trashed), and old log archives. Applying one moves the items to the tier and leaves
a link (mlspace.act carries it out). Only this module knows which policies archive rather
than trash (:func:`action_of`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from mlspace import fmt
from mlspace.advise import (
    REVIEW,
    SAFE,
    AdviceSettings,
    Plan,
    PlanItem,
    Suggestion,
    kept_checkpoints,
    plan_item,
)
from mlspace.advise.model import suggestion_id
from mlspace.classify import Category, Inventory
from mlspace.config import Settings
from mlspace.disks import same_disk_as
from mlspace.paths import within
from mlspace.scan.walker import KIND_DIR

DAY = 86400.0
ARCHIVE_POLICIES = ("archive-checkpoints", "archive-datasets", "archive-logs")
_LOG_ARCHIVE_ENDINGS = (".tar.gz", ".tgz", ".tar.zst", ".tar.xz", ".tar.bz2", ".tar", ".zip")


@dataclass(frozen=True)
class ArchiveAges:
    """Days untouched before each kind of item is suggested for the tier."""

    checkpoints: float = 60.0
    datasets: float = 180.0
    logs: float = 180.0
    now: float | None = None  # for tests

    @classmethod
    def from_settings(cls, settings: Settings) -> ArchiveAges:
        return cls(settings.archive_checkpoints_days, settings.archive_datasets_days,
                   settings.archive_logs_days)

    def old(self, mtime: float, days: float) -> bool:
        return self.since(mtime) >= days * DAY

    def since(self, mtime: float) -> float:
        return (self.now or time.time()) - mtime


def action_of(suggestion: Suggestion) -> str:
    """"archive" for the archive suggestions, "trash" for every other (``plan`` JSON)."""
    return "archive" if suggestion.policy in ARCHIVE_POLICIES else "trash"


def _item(inv: Inventory, entry: int) -> PlanItem:
    """What moving the entry off this disk frees: a folder's usage, a file's own, less
    what other hard links keep here."""
    return plan_item(inv.snapshot, entry)


def _suggest(policy: str, title: str, reason: str, risk: str, items: list[PlanItem],
             subject: str | None) -> Suggestion:
    items = sorted(items, key=lambda i: i.path)
    paths = tuple(i.path for i in items)
    return Suggestion(suggestion_id(policy, paths), policy, title, reason, risk, tuple(items),
                      subject)


def archive_checkpoints(inv: Inventory, settings: AdviceSettings, ages: ArchiveAges
                        ) -> list[Suggestion]:
    """The checkpoints retention keeps, of series nothing has written to for the age."""
    out = []
    for s in inv.series:
        members = [inv.artifact_by_id[m] for m in s.members]
        run = inv.run_by_id.get(s.run or "")
        newest = max([a.newest_mtime for a in members] + ([run.newest_mtime] if run else []))
        if not members or not ages.old(newest, ages.checkpoints):
            continue
        kept = kept_checkpoints(inv, s, settings)
        items = [_item(inv, e) for a in members if a.id in kept and a.role != "partial"
                 and not a.archived for e in a.entries]
        if items:
            label = run.name if run else s.path.rsplit("/", 1)[-1]
            out.append(_suggest(
                "archive-checkpoints", f"Archive the kept checkpoints of {label}",
                f"The run has not written anything for {fmt.age(ages.since(newest))}; its "
                f"best and latest checkpoints move to the archive folder, and a link to each "
                "is left so code that loads them keeps working.", SAFE, items, s.id))
    return out


def archive_datasets(inv: Inventory, ages: ArchiveAges) -> list[Suggestion]:
    """Data untouched for the age: each outermost data folder (raw data: ``data/``,
    ``datasets/``...), then processed and augmented datasets found elsewhere. Review only:
    training code reading it will read from the slower disk."""
    snap = inv.snapshot
    folders = np.flatnonzero((inv.categories == Category.DATASET) & (snap.kind == KIND_DIR))
    paths = {snap.path(e): e for e in folders.tolist()}
    tops = [e for p, e in paths.items() if os.path.dirname(p) not in paths]
    tops += [a.entry for a in inv.artifacts if a.kind in ("dataset", "augmented")
             and a.is_dir and not within(a.path, set(paths))]
    out = []
    for entry in tops:
        newest = snap.totals(entry).newest_mtime
        if not ages.old(newest, ages.datasets):
            continue
        name = snap.name(entry)
        out.append(_suggest(
            "archive-datasets", f"Archive the data in {name}",
            f"Untouched for {fmt.age(ages.since(newest))}. It moves to the archive folder with "
            "a link left in its place: reading it still works, from the slower disk.", REVIEW,
            [_item(inv, entry)], snap.path(entry)))
    return out


def archive_logs(inv: Inventory, ages: ArchiveAges) -> list[Suggestion]:
    """Log archives (e.g. the .tar.gz that log compression leaves) untouched for the age."""
    snap = inv.snapshot
    cutoff = (ages.now or time.time()) - ages.logs * DAY
    logs = np.flatnonzero((inv.categories == Category.LOG) & (snap.mtime < cutoff))
    items = [_item(inv, e) for e in logs.tolist() if not snap.is_dir(e)
             and snap.name(e).endswith(_LOG_ARCHIVE_ENDINGS)]
    if not items:
        return []
    return [_suggest("archive-logs", f"Archive {fmt.plural(len(items), 'old log archive')}",
                     f"Packed logs untouched for more than {ages.logs:g} days. They move to "
                     "the archive folder with a link left in their place.", SAFE, items,
                     None)]


def archive_suggestions(inv: Inventory, settings: AdviceSettings, ages: ArchiveAges
                        ) -> list[Suggestion]:
    return [*archive_checkpoints(inv, settings, ages), *archive_datasets(inv, ages),
            *archive_logs(inv, ages)]


def with_archive_suggestions(plan: Plan, inv: Inventory, settings: AdviceSettings | None = None,
                             ages: ArchiveAges | None = None) -> Plan:
    """The plan with the archive suggestions added (replacing any it had: calling this
    twice gives the same plan), no two overlapping. An item a cleanup names (or one inside
    it) is not archived: what is removed is not worth archiving. A cleanup item inside an
    archived folder (a kept checkpoint's optimizer state) is left out of the cleanup: the
    archive keeps all of it, off this disk."""
    cleanups = [s for s in plan.suggestions if s.policy not in ARCHIVE_POLICIES]
    taken = {p for s in cleanups for p in s.paths}
    archives = []
    for suggestion in archive_suggestions(inv, settings or AdviceSettings(),
                                          ages or ArchiveAges()):
        kept = _narrowed(suggestion, lambda p: not within(p, taken))
        if kept is not None:
            taken.update(kept.paths)
            archives.append(kept)
    archived = {p for s in archives for p in s.paths}
    narrowed = (_narrowed(s, lambda p: not within(os.path.dirname(p), archived))
                for s in cleanups)
    out = [s for s in narrowed if s is not None] + archives
    out.sort(key=lambda s: -s.bytes)
    return Plan(plan.roots, tuple(out))


def _narrowed(suggestion: Suggestion, keep: Callable[[str], bool]) -> Suggestion | None:
    """The suggestion with only the items ``keep`` accepts (a new id if any went), or None
    when none is left."""
    items = tuple(i for i in suggestion.items if keep(i.path))
    if not items:
        return None
    if len(items) == len(suggestion.items):
        return suggestion
    return replace(suggestion, id=suggestion_id(suggestion.policy, tuple(i.path for i in items)),
                   items=items)


def with_configured_archive(plan: Plan, inv: Inventory,
                            settings: AdviceSettings | None = None) -> Plan:
    """The plan, with the archive suggestions when config.toml names a cold tier (what
    ``plan``, ``report`` and the app show). Raises mlspace.config.ConfigError for a broken
    config.toml."""
    from mlspace.config import load_settings

    return with_user_archive(plan, inv, load_settings(), settings)


def with_user_archive(plan: Plan, inv: Inventory, user: Settings,
                      settings: AdviceSettings | None = None) -> Plan:
    """The plan with the archive suggestions of the user's settings (its tier and ages);
    unchanged when no tier is named, or one on the scanned folders' own disk (Settings
    says why). The app calls this again when the settings change."""
    if not user.archive_root or same_disk_as(user.archive_root, inv.snapshot.roots):
        return plan  # a tier on the scanned disk frees nothing: each item would be refused
    return with_archive_suggestions(plan, inv, settings, ArchiveAges.from_settings(user))
