"""Bringing one archived item back by its pointer (the app's right-click *Bring back from
archive*, ``mlspace bring-back PATH``): copy the archived copy back, verify it, let it
replace the symlink or stub, then remove the archived copy. Journaled as a cleanup of its
own (kind "bring-back"), so a kill half-way is settled like any move (see
:mod:`mlspace.act.settle`); the archive run that moved the item is told it came back,
so undoing that run later does not try again. An item archived by an earlier version of
mlspace, whose original the trash still holds, is renamed back from there instead (the very
same files, nothing left in the trash); the copy back is verified against the digest taken
when it was archived (:mod:`mlspace.act.copy_back`)."""

from __future__ import annotations

import contextlib
import os

from mlspace.act import pointer
from mlspace.act.copy_back import copy_back
from mlspace.act.folder_times import of_folder
from mlspace.act.journal import (
    LINKED,
    RESTORED,
    TRASHED,
    CleanupRecord,
    Journal,
    JournalUnavailable,
)
from mlspace.act.journal import history as journal_history
from mlspace.act.journal import load as journal_load
from mlspace.act.outcomes import Progress, RestoreOutcome
from mlspace.act.treecopy import Cancel
from mlspace.act.undoing import undo_archived


class NotArchived(Exception):
    """The path is not an archived item mlspace can bring back; ``str(err)`` says why."""


def _archive_run(original: str, dest: str) -> CleanupRecord | None:
    """The newest archive run that left this very pointer (and has not brought it back)."""
    for record in journal_history():
        last = record.state(original)
        if record.kind == "tier" and last is not None and last["event"] == LINKED \
                and last.get("dest") == dest:
            return record
    return None


def _trash_holds_original(run: CleanupRecord, original: str) -> bool:
    """Did that (earlier) archive run trash the original, and is it still there?"""
    event = next((e for e in reversed(run.events)
                  if e.get("path") == original and e["event"] == TRASHED), None)
    return event is not None and os.path.lexists(str(event.get("trash_file") or ""))


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def bring_back(path: str, archive_root: str | None = None, progress: Progress | None = None,
               cancel: Cancel | None = None) -> RestoreOutcome:
    """Bring back the archived item whose pointer is ``path`` (the item's own path, or its
    ``.mlspace-archived.json`` stub). The archived copy must be one an archive run of this
    user recorded, or lie inside ``archive_root``: a link to anywhere else is not followed.
    Raises NotArchived, or JournalUnavailable having changed nothing."""
    original = pointer.original_of(os.path.abspath(path))
    dest = pointer.target(original)
    if dest is None:
        raise NotArchived(f"{path} is not an archived item (no mlspace link or stub)")
    run = _archive_run(original, dest)
    tier_root = str(run.meta.get("tier") or "") if run is not None else (archive_root or "")
    if not tier_root or not _inside(dest, tier_root):
        raise NotArchived(f"{path} points to {dest}, which is not in the archive folder; "
                          "mlspace only brings back what it archived")
    if run is not None and _trash_holds_original(run, original):
        loaded_run = journal_load(run.id)
        if loaded_run is not None:
            entry = {"path": original, "dest": dest}
            outcome = undo_archived(entry, loaded_run[0], loaded_run[1], False, progress)
            if outcome.restored_to is not None or "exists" in outcome.reason:
                return outcome
    roots = list(run.roots) if run is not None else [os.path.dirname(original)]
    item = {"path": original, "is_dir": os.path.isdir(dest) and not os.path.islink(dest),
            "disk_usage": 0, "apparent_size": 0, "mtime": 0.0, "files": 0, "dest": dest}
    journal, _ = Journal.begin(f"Bring back {os.path.basename(original)}", roots, [item],
                               kind="bring-back", meta={"tier": tier_root,
                                                        "archive": run.id if run else None})
    loaded = journal_load(journal.path.stem)
    assert loaded is not None
    times = of_folder([run], os.path.dirname(original)) if run is not None else None
    outcome = copy_back(original, dest, loaded[0], journal, progress=progress, cancel=cancel,
                        times=times)
    if outcome.restored_to is not None and run is not None:
        archived = journal_load(run.id)
        if archived is not None:
            with contextlib.suppress(JournalUnavailable):
                archived[1].record(RESTORED, original, restored_to=outcome.restored_to,
                                   by=journal.path.stem, parent_set_ns=outcome.folder_time_ns)
    return outcome
