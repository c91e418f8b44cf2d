"""Undo: the inverse of each step a cleanup's journal recorded, item by item, newest first.

- In the trash: renamed back (the very same files), after checking that the trash still
  holds the item this cleanup moved (its record names the path, same inode).
- In the cold tier: copied back and verified against the digest taken when it was archived,
  then it replaces its link or stub, and the archived copy is removed (an archive run of
  an earlier version also left the original in the trash: that is renamed back instead).
- Deleted for good by a purge: nothing can bring it back; the outcome says when it went.
- Stopped half-way (a kill, a full disk, the tier gone): settled first
  (:mod:`mlspace.act.settle`).

A path that exists again is never overwritten: it is refused, or with ``beside`` restored
next to it as "<name> (restored)".
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence

from mlspace.act import moves, pointer, trash
from mlspace.act.copy_back import copy_back, discard_copy, free_name, listing_of, tier_root
from mlspace.act.folder_times import of_folder
from mlspace.act.journal import (
    ARCHIVED,
    GONE,
    OUT_OF_PLACE,
    REMOVED,
    RESTORE_FAILED,
    RESTORED,
    TRASHED,
    CleanupRecord,
    Journal,
    JournalUnavailable,
    history,
    read,
    unusable_reason,
)
from mlspace.act.journal import load as journal_load
from mlspace.act.moves import MoveRefused
from mlspace.act.outcomes import Progress, RestoreOutcome
from mlspace.act.settle import settle


def undo(cleanup_id: str, beside: bool = False, progress: Progress | None = None
         ) -> list[RestoreOutcome]:
    """Put back everything the cleanup took out (module doc). ``progress`` follows the
    bytes of archived items copied back from the cold tier. Raises KeyError for an unknown
    id, NotImplementedError where the trash cannot be read back (macOS, Windows)."""
    loaded = journal_load(cleanup_id)
    if loaded is None:
        raise KeyError(unusable_reason(cleanup_id))
    record, journal = loaded
    if not trash.CAN_RESTORE:
        raise NotImplementedError("restoring from the trash is supported on Linux only; put "
                                  "items back from the system trash")
    out = settle(record, journal, finish=False)
    record = (journal_load(cleanup_id) or (record, journal))[0]
    for entry in _to_restore(record):
        if entry.get("gone"):
            out.append(_gone(entry["path"], record))
        elif entry.get("dest"):
            out.append(undo_archived(entry, record, journal, beside, progress))
        else:
            out.append(restore_one(entry, record, journal, beside))
    return out


def _to_restore(record: CleanupRecord) -> list[dict]:
    """What the cleanup has out of place, newest first, each as the journal's event that
    says where it is: items in the trash (also those that reached it without their journal
    line, found by their .trashinfo record), archived items, and items a purge deleted
    (said, not restored)."""
    entries = []
    for item in reversed(record.items):
        path = item["path"]
        last = (record.state(path) or {}).get("event")
        trashed = next((e for e in reversed(record.events)
                        if e.get("path") == path and e["event"] == TRASHED), None)
        if last in GONE:
            entries.append({"path": path, "gone": True})
        elif last in OUT_OF_PLACE or last == REMOVED:
            if trashed is not None:
                entries.append({**trashed, "dest": trashed.get("dest") or item.get("dest")})
            elif item.get("dest"):
                entries.append({"path": path, "dest": item["dest"]})
        elif last is None:  # moved, maybe, just before a crash
            found = trash.locate(path)
            if found is not None and os.lstat(found.info_file).st_mtime >= record.created - 1:
                entries.append({"path": path, "trash_file": found.trash_file,
                                "info_file": found.info_file, "inode": item.get("inode", 0)})
    return entries


def _gone(path: str, record: CleanupRecord) -> RestoreOutcome:
    when = next((e.get("time") for e in reversed(record.events)
                 if e.get("path") == path and e["event"] in GONE), None)
    day = time.strftime("%Y-%m-%d %H:%M", time.localtime(when)) if when else "earlier"
    return RestoreOutcome(path, None, f"deleted for good (freed from the trash, {day}): it "
                          "cannot be put back")


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


def restore_one(entry: dict, record: CleanupRecord, journal: Journal,
                beside: bool) -> RestoreOutcome:
    """Rename one trashed item back to its path (or beside it)."""
    path = entry["path"]
    if entry.get("trash_file") and os.path.lexists(entry["trash_file"]):
        item: trash.TrashedItem | None = trash.TrashedItem(entry["trash_file"],
                                                           entry.get("info_file") or "")
    else:
        item = trash.locate(path)
    reason = "not found in the trash (emptied?)" if item is None else \
        _not_the_trashed_item(item, path, int(entry.get("inode") or 0))
    destination = path
    if reason is None and os.path.lexists(path):
        if beside:
            destination = free_name(path)
        else:
            reason = "a new item exists at this path; restore beside it instead"
    set_ns = None
    if reason is None:
        assert item is not None
        try:
            set_ns = trash.restore(item, destination, record.roots,
                                   of_folder([record], os.path.dirname(destination)))
        except (MoveRefused, trash.TrashUnavailable) as err:
            reason = str(err)
        except OSError as err:
            reason = f"could not be put back ({err.strerror or err})"
    if reason is not None:
        with contextlib.suppress(JournalUnavailable):
            journal.record(RESTORE_FAILED, path, reason=reason)
        return RestoreOutcome(path, None, reason)
    with contextlib.suppress(JournalUnavailable):
        journal.record(RESTORED, path, restored_to=destination, parent_set_ns=set_ns)
        _trash_archive_of(path, record.roots, journal)
    return RestoreOutcome(path, destination)


def _trash_archive_of(path: str, roots: Sequence[str], journal: Journal) -> None:
    """A compressed log folder is back: its archive goes to the trash (never deleted)."""
    record = read(journal.path)
    archived = [e for e in (record.events if record else []) if e["event"] == ARCHIVED
                and e["path"] == path]
    for event in archived:
        if os.path.lexists(event["archive"]):
            with contextlib.suppress(OSError, MoveRefused, trash.TrashUnavailable):
                trash.move_to_trash(event["archive"], roots)


def undo_archived(entry: dict, record: CleanupRecord, journal: Journal, beside: bool,
                   progress: Progress | None) -> RestoreOutcome:
    """An archived item back in place of its pointer: from the trash where an earlier
    version left the original there, else copied back from the tier."""
    path, dest = entry["path"], entry["dest"]
    if not any(e["event"] == TRASHED and e.get("path") == path for e in record.events):
        return copy_back(path, dest, record, journal, beside, progress)
    mode = str(record.meta.get("link") or "symlink")
    removed = False
    with contextlib.suppress(pointer.PointerChanged, MoveRefused, OSError), \
            moves.parent_of(path, record.roots) as (fd, name):
        removed = pointer.present(fd, name, dest)
        pointer.remove(fd, name, dest)
    trashed = next(e for e in reversed(record.events)
                   if e["event"] == TRASHED and e.get("path") == path)
    outcome = restore_one(trashed, record, journal, beside)
    if outcome.restored_to is None and outcome.reason.startswith(("not found", "the trash",
                                                                  "its trash")):
        if removed:
            with contextlib.suppress(MoveRefused, OSError), \
                    moves.parent_of(path, record.roots) as (fd, name):
                pointer.leave(fd, name, path, dest, mode, record.id)
        return copy_back(path, dest, record, journal, beside, progress)
    if outcome.restored_to is None and removed:
        with contextlib.suppress(MoveRefused, OSError), \
                moves.parent_of(path, record.roots) as (fd, name):
            pointer.leave(fd, name, path, dest, mode, record.id)
    if outcome.restored_to is not None:
        kept = discard_copy(dest, tier_root(record), listing_of(record, path))
        if kept:
            return RestoreOutcome(path, outcome.restored_to, kept)
    return outcome


def last_undoable() -> CleanupRecord | None:
    """The newest cleanup that has something to put back."""
    return next((r for r in history() if r.undoable), None)
