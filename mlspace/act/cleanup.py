"""Execute a confirmed plan, and undo it.

Order of work for every cleanup: write the journal (all items, as scanned), then for each
item re-check it, move it to the trash, and record where it went. Nothing is ever deleted:
an item that cannot go to the trash is skipped with the reason, never removed another way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from mlspace.act import checks, trash
from mlspace.act.archive import make_archive
from mlspace.act.journal import (
    ARCHIVED,
    RESTORE_FAILED,
    RESTORED,
    SKIPPED,
    TRASHED,
    CleanupRecord,
    Journal,
)
from mlspace.act.journal import history as journal_history
from mlspace.act.journal import load as journal_load
from mlspace.advise import PlanItem, Suggestion

Progress = Callable[[int, int, str], None]  # done, total, path


@dataclass(frozen=True)
class Outcome:
    path: str
    done: bool
    reason: str = ""  # why it was skipped, or where it went
    disk_usage: int = 0


@dataclass(frozen=True)
class CleanupResult:
    cleanup_id: str
    outcomes: tuple[Outcome, ...]

    @property
    def freed(self) -> int:
        return sum(o.disk_usage for o in self.outcomes if o.done)

    @property
    def skipped(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if not o.done)


def execute(suggestions: Sequence[Suggestion], roots: Sequence[str],
            recent_seconds: float = checks.RECENT_SECONDS, progress: Progress | None = None,
            ) -> CleanupResult:
    """Move every item of the suggestions to the trash, after re-checking each."""
    items = [(s, i) for s in suggestions for i in s.items]
    title = suggestions[0].title if len(suggestions) == 1 else f"{len(suggestions)} cleanups"
    journal, cleanup_id = Journal.begin(
        title, list(roots), [{**asdict(i), "suggestion": s.id} for s, i in items])
    opened = checks.open_files()
    outcomes = []
    for n, (suggestion, item) in enumerate(items):
        if progress is not None:
            progress(n, len(items), item.path)
        outcomes.append(_one(item, roots, opened, recent_seconds, journal, suggestion.archive))
    if progress is not None:
        progress(len(items), len(items), "")
    return CleanupResult(cleanup_id, tuple(outcomes))


def _one(item: PlanItem, roots: Sequence[str], opened: set[str], recent_seconds: float,
         journal: Journal, archive: bool = False) -> Outcome:
    reason = (checks.outside_roots(item.path, roots)
              or checks.changed_since_scan(item, recent_seconds)
              or checks.in_use(item.path, opened))
    if reason is None:
        try:
            trash.check_trash_available(item.path)
        except trash.TrashUnavailable as err:
            reason = f"{err}; nothing was done to it"
    if reason is not None:
        journal.record(SKIPPED, item.path, reason=reason)
        return Outcome(item.path, False, reason)
    archived = 0
    if archive:
        try:
            packed = make_archive(item.path)
        except OSError as err:
            reason = f"could not be compressed: {err}"
            journal.record(SKIPPED, item.path, reason=reason)
            return Outcome(item.path, False, reason)
        journal.record(ARCHIVED, item.path, archive=packed)
        archived = os.lstat(packed).st_blocks * 512
    try:
        where = trash.move_to_trash(item.path)
    except (OSError, trash.TrashUnavailable) as err:
        reason = f"could not be moved to the trash: {err}"
        journal.record(SKIPPED, item.path, reason=reason)
        return Outcome(item.path, False, reason)
    journal.record(TRASHED, item.path, trash_file=where.trash_file if where else None,
                   info_file=where.info_file if where else None)
    return Outcome(item.path, True, where.trash_file if where else "trash",
                   max(item.disk_usage - archived, 0))


# ---------------------------------------------------------------------------------- undo
@dataclass(frozen=True)
class RestoreOutcome:
    path: str
    restored_to: str | None
    reason: str = ""


def undo(cleanup_id: str, beside: bool = False) -> list[RestoreOutcome]:
    """Put back everything a cleanup moved to the trash, newest first. A path that exists
    again is not overwritten: it is refused, or with ``beside`` restored next to it as
    "<name> (restored)". Items of an interrupted cleanup that reached the trash without
    their journal line are found by their .trashinfo record."""
    loaded = journal_load(cleanup_id)
    if loaded is None:
        raise KeyError(f"no cleanup {cleanup_id!r} in the journal")
    record, journal = loaded
    if not trash.CAN_RESTORE:
        raise NotImplementedError("restoring from the trash is supported on Linux only; put "
                                  "items back from the system trash")
    results = []
    for entry in _to_restore(record):
        results.append(_restore_one(entry, journal, beside))
    return results


def _to_restore(record: CleanupRecord) -> list[dict]:
    entries = list(reversed(record.trashed))
    for item in record.pending:  # moved, maybe, just before a crash
        found = trash.locate(item["path"])
        if found is not None and os.lstat(found.info_file).st_mtime >= record.created - 1:
            entries.append({"path": item["path"], "trash_file": found.trash_file,
                            "info_file": found.info_file})
    return entries


def _restore_one(entry: dict, journal: Journal, beside: bool) -> RestoreOutcome:
    path = entry["path"]
    item = None
    if entry.get("trash_file") and os.path.lexists(entry["trash_file"]):
        item = trash.TrashedItem(entry["trash_file"], entry.get("info_file") or "")
    else:
        item = trash.locate(path)
    if item is None:
        journal.record(RESTORE_FAILED, path, reason="not found in the trash (emptied?)")
        return RestoreOutcome(path, None, "not found in the trash (emptied?)")
    destination = path
    if os.path.lexists(path):
        if not beside:
            reason = "a new item exists at this path; restore beside it instead"
            journal.record(RESTORE_FAILED, path, reason=reason)
            return RestoreOutcome(path, None, reason)
        destination = _free_name(path)
    trash.restore(item, destination)
    journal.record(RESTORED, path, restored_to=destination)
    _trash_archive_of(path, journal)
    return RestoreOutcome(path, destination)


def _trash_archive_of(path: str, journal: Journal) -> None:
    """An archived log folder is back: its archive goes to the trash (never deleted)."""
    from mlspace.act.journal import read

    record = read(journal.path)
    archived = [e for e in (record.events if record else []) if e["event"] == ARCHIVED
                and e["path"] == path]
    for event in archived:
        if os.path.lexists(event["archive"]):
            trash.move_to_trash(event["archive"])


def _free_name(path: str) -> str:
    candidate = f"{path} (restored)"
    n = 2
    while os.path.lexists(candidate):
        candidate = f"{path} (restored {n})"
        n += 1
    return candidate


def history() -> list[CleanupRecord]:
    return journal_history()


def last_undoable() -> CleanupRecord | None:
    return next((r for r in history() if r.trashed or r.pending), None)
