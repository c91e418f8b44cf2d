"""Execute a confirmed plan, and undo it.

Order of work for every cleanup: write the journal (all items, as scanned), then for each
item re-check it, move it to the trash, and record where it went. Nothing is ever deleted:
an item that cannot go to the trash is skipped with the reason, never removed another way.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from mlspace.act import checks, moves, trash
from mlspace.act.archive import make_archive
from mlspace.act.journal import (
    ARCHIVED,
    RESTORE_FAILED,
    RESTORED,
    SKIPPED,
    TRASHED,
    CleanupRecord,
    Journal,
    JournalUnavailable,
    run_title,
    unusable_reason,
)
from mlspace.act.journal import history as journal_history
from mlspace.act.journal import load as journal_load
from mlspace.act.moves import MoveRefused
from mlspace.act.tier_advice import ARCHIVE_POLICIES
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
    stopped: str = ""  # why the cleanup stopped before the end (the journal failed)

    @property
    def freed(self) -> int:
        return sum(o.disk_usage for o in self.outcomes if o.done)

    @property
    def skipped(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if not o.done)

    @property
    def trashes(self) -> tuple[str, ...]:
        """The trash folders the moved items are in (none where the system trash took
        them): emptying these gives the space back."""
        found = {trash.trash_holding(o.reason) for o in self.outcomes if o.done}
        return tuple(sorted(t for t in found if t))


def execute(suggestions: Sequence[Suggestion], roots: Sequence[str],
            recent_seconds: float = checks.RECENT_SECONDS, progress: Progress | None = None,
            ) -> CleanupResult:
    """Move every item of the suggestions to the trash, after re-checking each. Raises
    JournalUnavailable, having moved nothing, when the journal cannot be started; stops
    early (``stopped`` says why) when it cannot be written any more."""
    items = [(s, i) for s in suggestions for i in s.items]
    title = run_title([s.title for s in suggestions])
    journal, cleanup_id = Journal.begin(
        title, list(roots), [{**asdict(i), "suggestion": s.id} for s, i in items])
    busy = checks.paths_in_use()
    outcomes: list[Outcome] = []
    stopped = ""
    for n, (suggestion, item) in enumerate(items):
        if progress is not None:
            progress(n, len(items), item.path)
        with contextlib.suppress(JournalUnavailable):  # journal.failed says it
            if suggestion.policy in ARCHIVE_POLICIES:  # archive-only (raw data among them)
                outcomes.append(_refuse(item, journal, "an archive suggestion is never "
                                        "trashed: apply it with `mlspace archive`"))
            else:
                outcomes.append(_one(item, roots, busy, recent_seconds, journal,
                                     suggestion.archive))
        if journal.failed:
            stopped = f"{journal.failed}; nothing more was moved"
            done = {o.path for o in outcomes}
            outcomes += [Outcome(i.path, False, "not attempted: " + stopped)
                         for _, i in items[n:] if i.path not in done]
            break
    if progress is not None:
        progress(len(items), len(items), "")
    return CleanupResult(cleanup_id, tuple(outcomes), stopped)


def _refuse(item: PlanItem, journal: Journal, reason: str) -> Outcome:
    journal.record(SKIPPED, item.path, reason=reason)
    return Outcome(item.path, False, reason)


def _recheck(item: PlanItem, roots: Sequence[str], busy: list[str],
             recent_seconds: float) -> str | None:
    """Why the item must not move now, or None."""
    try:
        moves.containing_root(item.path, roots)
    except MoveRefused as err:
        return str(err)
    reason = checks.changed_since_scan(item, recent_seconds) or checks.in_use(item.path, busy)
    if reason is None:
        try:
            trash.check_trash_available(item.path)
        except trash.TrashUnavailable as err:
            reason = f"{err}; nothing was done to it"
    return reason


def _one(item: PlanItem, roots: Sequence[str], busy: list[str], recent_seconds: float,
         journal: Journal, archive: bool = False) -> Outcome:
    reason = _recheck(item, roots, busy, recent_seconds)
    archived = 0
    if reason is None:
        try:
            with moves.parent_of(item.path, roots) as (parent_fd, name):
                st = moves.entry_stat(parent_fd, name)
                reason = "no longer there" if st is None else \
                    moves.same_entry(st, item.is_dir, item.inode)
                if reason is None and archive:
                    packed = make_archive(parent_fd, name, item.path)
                    journal.record(ARCHIVED, item.path, archive=packed)
                    archived = os.lstat(packed).st_blocks * 512
                if reason is None:
                    where = _trash(parent_fd, name, item.path)
        except MoveRefused as err:
            reason = str(err)
        except (OSError, trash.TrashUnavailable) as err:
            reason = f"could not be moved to the trash: {err}"
    if reason is not None:
        return _refuse(item, journal, reason)
    assert st is not None
    outcome = Outcome(item.path, True, where.trash_file if where else "trash",
                      max(item.disk_usage - archived, 0))
    with contextlib.suppress(JournalUnavailable):  # moved: undo finds it by its .trashinfo
        journal.record(TRASHED, item.path, trash_file=where.trash_file if where else None,
                       info_file=where.info_file if where else None,
                       inode=st.st_ino, device=st.st_dev)
    return outcome


def _trash(parent_fd: int, name: str, path: str) -> trash.TrashedItem | None:
    """Move the checked entry to the trash; on systems whose trash mlspace cannot read
    back, the system's own (send2trash), by path."""
    if trash.CAN_RESTORE:
        return trash.trash_entry(parent_fd, name, path)
    from send2trash import send2trash

    send2trash(path)
    return None


# ---------------------------------------------------------------------------------- undo
@dataclass(frozen=True)
class RestoreOutcome:
    path: str
    restored_to: str | None
    reason: str = ""


def undo(cleanup_id: str, beside: bool = False, progress: Progress | None = None
         ) -> list[RestoreOutcome]:
    """Put back everything a cleanup moved to the trash, newest first. A path that exists
    again is not overwritten: it is refused, or with ``beside`` restored next to it as
    "<name> (restored)". Items of an interrupted cleanup that reached the trash without
    their journal line are found by their .trashinfo record. Only the very item the
    cleanup moved is put back: one the trash holds under the same name (after the trash
    was emptied and another cleanup ran) is refused. ``progress`` follows the bytes of
    archived items copied back from the cold tier (the trash no longer had them)."""
    loaded = journal_load(cleanup_id)
    if loaded is None:
        raise KeyError(unusable_reason(cleanup_id))
    record, journal = loaded
    if not trash.CAN_RESTORE:
        raise NotImplementedError("restoring from the trash is supported on Linux only; put "
                                  "items back from the system trash")
    if record.kind != "clean":  # moved to the cold tier too: the pointer and copy go
        from mlspace.act.tier_undo import undo_tier

        return undo_tier(record, journal, beside, progress)
    return [_restore_one(entry, record, journal, beside) for entry in _to_restore(record)]


def _to_restore(record: CleanupRecord) -> list[dict]:
    entries = list(reversed(record.trashed))
    for item in record.pending:  # moved, maybe, just before a crash
        found = trash.locate(item["path"])
        if found is not None and os.lstat(found.info_file).st_mtime >= record.created - 1:
            entries.append({"path": item["path"], "trash_file": found.trash_file,
                            "info_file": found.info_file, "inode": item.get("inode", 0)})
    return entries


def _not_the_trashed_item(item: trash.TrashedItem, path: str, inode: int) -> str | None:
    """Why the item in the trash is not the one this cleanup moved from ``path``, or None:
    its record must name ``path`` and it must be the same inode (a rename keeps it)."""
    recorded = trash.original_path(item.info_file)
    if recorded is None:
        return "its trash record is missing or unreadable"
    if recorded != path:
        return f"the trash holds another item under this name (it came from {recorded})"
    try:
        st = os.lstat(item.trash_file)
    except OSError:
        return "not found in the trash (emptied?)"
    if inode and st.st_ino != inode:
        return ("the trash holds another item under this name (the trash was emptied, and "
                "this one came from a later cleanup)")
    return None


def _restore_one(entry: dict, record: CleanupRecord, journal: Journal,
                 beside: bool) -> RestoreOutcome:
    path = entry["path"]
    item = None
    if entry.get("trash_file") and os.path.lexists(entry["trash_file"]):
        item = trash.TrashedItem(entry["trash_file"], entry.get("info_file") or "")
    else:
        item = trash.locate(path)
    reason = "not found in the trash (emptied?)" if item is None else \
        _not_the_trashed_item(item, path, int(entry.get("inode") or 0))
    destination = path
    if reason is None and os.path.lexists(path):
        if beside:
            destination = _free_name(path)
        else:
            reason = "a new item exists at this path; restore beside it instead"
    if reason is None:
        assert item is not None
        try:
            trash.restore(item, destination, record.roots)
        except (MoveRefused, trash.TrashUnavailable) as err:
            reason = str(err)
        except OSError as err:
            reason = f"could not be put back ({err.strerror or err})"
    if reason is not None:
        with contextlib.suppress(JournalUnavailable):
            journal.record(RESTORE_FAILED, path, reason=reason)
        return RestoreOutcome(path, None, reason)
    with contextlib.suppress(JournalUnavailable):
        journal.record(RESTORED, path, restored_to=destination)
        _trash_archive_of(path, record.roots, journal)
    return RestoreOutcome(path, destination)


def _trash_archive_of(path: str, roots: Sequence[str], journal: Journal) -> None:
    """An archived log folder is back: its archive goes to the trash (never deleted)."""
    from mlspace.act.journal import read

    record = read(journal.path)
    archived = [e for e in (record.events if record else []) if e["event"] == ARCHIVED
                and e["path"] == path]
    for event in archived:
        if os.path.lexists(event["archive"]):
            with contextlib.suppress(OSError, MoveRefused, trash.TrashUnavailable):
                trash.move_to_trash(event["archive"], roots)


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
    return next((r for r in history() if r.trashed or r.pending or r.in_flight), None)
