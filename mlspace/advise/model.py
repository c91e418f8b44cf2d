"""Suggestions and plans: frozen descriptions of a cleanup, computed without touching the disk.

A suggestion's id is derived from its policy and the exact paths it names, so the same tree
and settings give the same ids: a plan shown yesterday can be applied by id today (after
the paths are re-checked)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from mlspace.scan import Snapshot

SAFE, REVIEW, RISKY = "safe", "review", "risky"


@dataclass(frozen=True)
class PlanItem:
    """One path a suggestion would move to the trash, with what the scan saw of it, so the
    cleanup can refuse anything that changed since."""

    path: str
    is_dir: bool
    disk_usage: int  # what removing it frees (hard links counted where their last link goes)
    apparent_size: int
    mtime: float  # the newest modification in it, as scanned
    files: int
    inode: int = 0  # the entry's own inode as scanned (0: unknown), so a swap is caught


def plan_item(snap: Snapshot, entry: int, disk_usage: int) -> PlanItem:
    """The plan item for one scanned entry, freeing ``disk_usage`` when removed."""
    is_dir = snap.is_dir(entry)
    totals = snap.totals(entry)
    return PlanItem(snap.path(entry), is_dir, disk_usage, totals.apparent_size,
                    totals.newest_mtime, totals.files if is_dir else 1, int(snap.ino[entry]))


@dataclass(frozen=True)
class Suggestion:
    id: str
    policy: str
    title: str
    reason: str
    risk: str  # safe / review / risky
    items: tuple[PlanItem, ...]
    subject: str | None = None  # the artifact, series or run id it is about (right-click)
    archive: bool = False  # compress each item to "<path>.tar.gz" beside it first

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(i.path for i in self.items)

    @property
    def bytes(self) -> int:
        return sum(i.disk_usage for i in self.items)

    @property
    def apparent_bytes(self) -> int:
        return sum(i.apparent_size for i in self.items)


def suggestion_id(policy: str, paths: tuple[str, ...]) -> str:
    digest = hashlib.sha1("\0".join(sorted(paths)).encode("utf-8", "surrogateescape"))
    return f"{policy}-{digest.hexdigest()[:10]}"


@dataclass(frozen=True)
class AdviceSettings:
    """Every policy's knob in one place (the CLI flags and the app's settings map here)."""

    keep_best: int = 1
    keep_latest: int = 2
    keep_per_series: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (K, N)
    augmented_min_age_days: float = 30.0
    debug_min_age_days: float = 14.0
    logs_min_age_days: float = 90.0
    logs_min_bytes: int = 1 << 20
    now: float | None = None  # for tests; None means the time of advising

    def keep_for(self, series_id: str) -> tuple[int, int]:
        return self.keep_per_series.get(series_id, (self.keep_best, self.keep_latest))


@dataclass(frozen=True)
class Plan:
    """The suggestions for a set of roots, largest first."""

    roots: tuple[str, ...]
    suggestions: tuple[Suggestion, ...]

    @property
    def total_bytes(self) -> int:
        return sum(s.bytes for s in self.suggestions)

    def by_id(self, suggestion_id: str) -> Suggestion | None:
        return next((s for s in self.suggestions if s.id == suggestion_id), None)
