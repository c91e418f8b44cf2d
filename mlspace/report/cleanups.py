"""The cleanup history in words, the same in ``mlspace undo --list``, the app's *Cleanup
history* and the reports: what made each run, how much it moved, how much the disk really
got back, and where its items are now (in the trash, freed for good, archived, undone)."""

from __future__ import annotations

from mlspace import fmt
from mlspace.act.journal import RESTORED, CleanupRecord


def record_kind(record: CleanupRecord) -> str:
    """What made a journaled run, as the history lists it."""
    if record.meta.get("policy"):
        return "Policy run"
    if record.meta.get("guard"):
        return "Guard"
    return {"tier": "Archive", "bring-back": "Bring back"}.get(record.kind, "Cleanup")


def record_state(record: CleanupRecord) -> str:
    """Where a run's items are now: in the trash (still on the disk), freed (deleted for
    good), archived (a link left), back, or half done (an interrupted run, which undo or
    a re-run settles)."""
    if record.kind == "bring-back":
        done = any(e["event"] == RESTORED for e in record.events)
        return "brought back" if done else "not brought back"
    if record.undone:
        return "undone"
    parts = [f"{len(record.in_trash)} in the trash" if record.in_trash else "",
             f"{len(record.purged)} freed" if record.purged else "",
             f"{len(record.archived)} archived" if record.archived else "",
             "interrupted" if record.pending or record.in_flight else ""]
    return ", ".join(p for p in parts if p) or "nothing moved"


def record_sizes(record: CleanupRecord, apparent: bool = False) -> tuple[str, str]:
    """(what it moved, in the size mode shown; what the disk got back, measured by statvfs,
    blank while nothing of the run left the disk)."""
    return fmt.size(record.moved_when_run_apparent if apparent else record.moved_when_run), \
        fmt.size(max(record.freed, 0)) if record.removed_any else ""


def can_free(record: CleanupRecord) -> bool:
    """Does the run have items in the trash that a purge would free?"""
    return bool(record.in_trash)
