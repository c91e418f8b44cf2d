"""What an action reports back: per item, whether it was done and where it went; per run, what
moved to the trash, what left the disk, and what the disk really got back.

Three numbers are kept apart because users check them with ``df``: bytes *moved to the
trash* are still on the disk; bytes *removed* (archived to the cold tier, or purged) should
come back; *freed* is what the filesystem says came back (``statvfs`` before and after,
:class:`mlspace.disks.FreeSpace`), the only number ever called freed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlspace.act import trash

Progress = Callable[[int, int, str], None]  # done, total, path

#: Where a done item went.
TO_TRASH, TO_TIER, DELETED = "trash", "tier", "deleted"


@dataclass(frozen=True)
class Outcome:
    path: str
    done: bool
    reason: str = ""  # why it was skipped, or where it went
    disk_usage: int = 0  # what it took on the disk (as scanned)
    went: str = TO_TRASH  # TO_TRASH, TO_TIER or DELETED, for a done item


@dataclass(frozen=True)
class CleanupResult:
    cleanup_id: str
    outcomes: tuple[Outcome, ...]
    stopped: str = ""  # why the run stopped before the end (the journal failed, cancelled)
    freed: int | None = None  # what the disk got back (statvfs); None: nothing left it

    @property
    def done(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.done)

    @property
    def skipped(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if not o.done)

    @property
    def moved_to_trash(self) -> int:
        """Bytes now in a trash: still on the disk until purged."""
        return sum(o.disk_usage for o in self.done if o.went == TO_TRASH)

    @property
    def removed(self) -> int:
        """Bytes that left the disk by plan (archived or deleted); ``freed`` says what the
        disk really got back."""
        return sum(o.disk_usage for o in self.done if o.went != TO_TRASH)

    @property
    def trashes(self) -> tuple[str, ...]:
        """The trash folders the moved items are in (none where the system trash took
        them)."""
        found = {trash.trash_holding(o.reason) for o in self.done if o.went == TO_TRASH}
        return tuple(sorted(t for t in found if t))


@dataclass(frozen=True)
class RestoreOutcome:
    path: str
    restored_to: str | None
    reason: str = ""
    folder_time_ns: int | None = None  # the time its folder was given back, if any
