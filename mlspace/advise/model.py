"""Suggestions and plans: frozen descriptions of a cleanup, computed without touching the disk.

A suggestion's id is derived from its policy and the exact paths it names, so the same tree
and settings give the same ids: a plan shown yesterday can be applied by id today (after
the paths are re-checked)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import cached_property

from mlspace.scan import Snapshot
from mlspace.scan.hardlinks import freed_totals

SAFE, REVIEW, RISKY = "safe", "review", "risky"


@dataclass(frozen=True)
class PlanItem:
    """One path a suggestion would move to the trash, with what the scan saw of it, so the
    cleanup can refuse anything that changed since."""

    path: str
    is_dir: bool
    disk_usage: int  # what removing it frees (hard links counted where their last link goes)
    apparent_size: int  # the same, apparent; a file's own size (what its re-check compares)
    mtime: float  # the newest modification in it, as scanned
    files: int
    inode: int = 0  # the entry's own inode as scanned (0: unknown), so a swap is caught
    # What the item is, for a person checking the list before it moves: a checkpoint's
    # step and metric ("step 500 · eval_loss 0.52"); empty when a name says it all.
    note: str = ""


def plan_item(snap: Snapshot, entry: int, note: str = "") -> PlanItem:
    """The plan item for one scanned entry, with what removing it frees: a folder's totals
    less the hard-linked files another link outside it keeps (mlspace.scan.hardlinks); a
    file's own size, or nothing while another link to it stays (its size as scanned is
    kept as the apparent size, which the cleanup's re-check compares)."""
    is_dir = snap.is_dir(entry)
    totals = snap.totals(entry)
    disk, apparent = freed_totals(snap, entry)
    if not is_dir:  # as scanned, also for a hard link counted at its other path
        apparent = int(snap.apparent[entry])
    return PlanItem(snap.path(entry), is_dir, disk, apparent,
                    totals.newest_mtime, totals.files if is_dir else 1, int(snap.ino[entry]),
                    note)


@dataclass(frozen=True)
class KeptItem:
    """A path a suggestion deliberately leaves in place, and why: a cleanup is checked by
    what stays as much as by what goes (the best and latest checkpoints above all)."""

    path: str
    disk_usage: int
    apparent_size: int
    why: str  # short, for a row: "the best eval_loss 0.41", "the latest"
    evidence: str = ""  # how that is known: "trainer_state.json best_model_checkpoint"


def kept_item(snap: Snapshot, entry: int, why: str, evidence: str = "") -> KeptItem:
    """The kept item for one scanned entry, with its sizes as scanned."""
    totals = snap.totals(entry)
    return KeptItem(snap.path(entry), totals.disk_usage, totals.apparent_size, why, evidence)


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
    kept: tuple[KeptItem, ...] = ()  # what it leaves in place on purpose, and why
    #: With ``archive``: about what share of the items the .tar.gz takes (a compressed
    #: sample said so); what the suggestion frees is the rest.
    packed_share: float = 0.0

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(i.path for i in self.items)

    @cached_property
    def folder(self) -> str:
        """The folder that holds everything the suggestion names, kept items included, so
        each can be shown by the part of its path that tells it apart: the common folder,
        or the parent of the one path named. Cached: every row of a long list asks."""
        paths = [*self.paths, *(k.path for k in self.kept)]
        if not paths:
            return ""
        common = os.path.commonpath(paths)
        return os.path.dirname(common) if common in paths else common

    def relative(self, path: str) -> str:
        """``path`` relative to the suggestion's folder (unchanged when outside it)."""
        folder = self.folder.rstrip("/")
        return path[len(folder) + 1:] if path.startswith(folder + "/") else path

    @property
    def bytes(self) -> int:
        """What it frees once done (and, for what goes to the trash, freed from it): a
        compressed folder's archive stays."""
        return round(sum(i.disk_usage for i in self.items) * (1 - self.packed_share))

    @property
    def apparent_bytes(self) -> int:
        return round(sum(i.apparent_size for i in self.items) * (1 - self.packed_share))


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
    #: Anything modified this recently may belong to a running training job (the cleanup's
    #: re-check refuses it; retention never counts it among the latest kept).
    recent_seconds: float = 600.0
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
        return self._ids.get(suggestion_id)

    @cached_property
    def _ids(self) -> dict[str, Suggestion]:
        """Suggestions by id, made on the first lookup (a panel of thousands asks each)."""
        return {s.id: s for s in reversed(self.suggestions)}  # the first of an id, as before
