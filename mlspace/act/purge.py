"""Deleting for good what mlspace itself moved to the trash: the one way a cleanup gives the
disk its space back (the trash lies on the item's own filesystem).

It works only from mlspace's journal: an item is deleted when its cleanup recorded moving
it to the trash and the trash still holds that very item — in the trash folder of its own
filesystem that mlspace uses (the user's, closed to others), under the name recorded, the
same inode and device, with a ``.trashinfo`` record naming where it came from, and its
size and times as they were when it moved. Anything else (restored since, changed in the
trash, replaced by a link or another item, another user's trash, entries mlspace did not
make) is left alone and named. Each item is then, journaled before every step:

1. ``purge-begun``: it is renamed to a private name inside the trash (a file manager's
   restore can no longer reach it half-deleted), and its ``.trashinfo`` record removed;
2. it is deleted through descriptors, never following a link;
3. ``purged``.

A purge killed half-way leaves ``purge-begun``: undo says that item is gone, and the next
purge finishes deleting what is left of it. What the disk got back is measured with
``statvfs`` before and after (:class:`mlspace.disks.FreeSpace`) and journaled.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from mlspace.act import checks, moves, trash, treecopy
from mlspace.act.journal import (
    MEASURED,
    PURGE_BEGUN,
    PURGED,
    CleanupRecord,
    Journal,
    JournalUnavailable,
    history,
    journal_dir,
    load,
)
from mlspace.act.outcomes import DELETED, CleanupResult
from mlspace.advise import PlanItem
from mlspace.disks import FreeSpace

DAY = 86400.0


@dataclass(frozen=True)
class PurgeItem:
    """One item in the trash that a cleanup of mlspace put there."""

    cleanup_id: str
    path: str  # where it came from
    trash_file: str  # where it is
    info_file: str
    disk_usage: int  # what it took as scanned
    trashed_at: float
    item: dict  # the journal's plan item
    event: dict  # the journal's "trashed" event

    def age_days(self, now: float) -> float:
        return (now - self.trashed_at) / DAY


@dataclass(frozen=True)
class PurgeResult:
    purged: tuple[PurgeItem, ...]
    left: tuple[tuple[PurgeItem, str], ...]  # (item, why it was left alone)
    freed: int  # what the disk got back (statvfs), 0 for a dry run
    finished: tuple[str, ...] = ()  # items an interrupted purge had begun, now gone

    @property
    def bytes(self) -> int:
        return sum(p.disk_usage for p in self.purged)


def in_trash(records: Iterable[CleanupRecord] | None = None) -> list[PurgeItem]:
    """Every item mlspace's cleanups have in the trash now (by the journal), oldest
    first."""
    out = []
    for record in history() if records is None else records:
        items = {i["path"]: i for i in record.items}
        for event in record.in_trash:
            if event.get("trash_file") and event["path"] in items:
                out.append(PurgeItem(record.id, event["path"], event["trash_file"],
                                     event.get("info_file") or "",
                                     int(items[event["path"]].get("disk_usage", 0)),
                                     float(event.get("time") or record.created),
                                     items[event["path"]], event))
    return sorted(out, key=lambda p: p.trashed_at)


def select(cleanup_ids: Sequence[str] = (), older_than_days: float | None = None,
           now: float | None = None) -> list[PurgeItem]:
    """What a purge of these cleanups (all when none is named) would delete: items in the
    trash for more than ``older_than_days``, when given. KeyError for an unknown id."""
    records = history()
    if cleanup_ids:
        known = {r.id: r for r in records}
        missing = [c for c in cleanup_ids if c not in known]
        if missing:
            raise KeyError(f"no cleanup {missing[0]!r} in the journal")
        records = [known[c] for c in cleanup_ids]
    now = time.time() if now is None else now
    return [p for p in in_trash(records)
            if older_than_days is None or p.age_days(now) >= older_than_days]


def why_not(item: PurgeItem) -> str | None:
    """Why ``item`` must be left alone (module doc), or None: it is what mlspace trashed."""
    if os.path.dirname(os.path.dirname(item.trash_file)) not in \
            {str(f) for f in trash.trash_dirs_for(item.path)}:
        return "it is not in a trash folder mlspace uses for that disk; it was left alone"
    if trash.original_path(item.info_file) != item.path:
        return "its trash record no longer names where it came from (restored, or another " \
               "item took its name): it was left alone"
    try:
        st = os.lstat(item.trash_file)
    except OSError:
        return "it is no longer in the trash (restored or emptied)"
    inode, device = int(item.event.get("inode") or 0), item.event.get("device")
    if (inode and st.st_ino != inode) or (device is not None and st.st_dev != device):
        return "the trash holds another item under its name now: it was left alone"
    if stat.S_ISLNK(st.st_mode) and item.item.get("is_dir"):
        return "a link took its place in the trash: it was left alone"
    scanned = PlanItem(**{k: item.item[k] for k in PlanItem.__dataclass_fields__
                          if k in item.item})
    changed = checks.changed_since_scan(replace(scanned, path=item.trash_file), 0.0)
    if changed is not None:
        return f"it {changed} (in the trash): it was left alone"
    return None


def purge(items: Sequence[PurgeItem], dry_run: bool = False) -> PurgeResult:
    """Delete ``items`` for good (module doc), after checking each; with ``dry_run`` only
    say what would go and what would be left."""
    finished = finish_interrupted() if not dry_run else ()
    meter = FreeSpace({os.path.dirname(os.path.dirname(i.trash_file)) for i in items})
    done: list[PurgeItem] = []
    left: list[tuple[PurgeItem, str]] = []
    journals: dict[str, Journal] = {}
    for item in items:
        reason = why_not(item)
        if reason is None and not dry_run:
            journal = journals.get(item.cleanup_id) or _journal(item.cleanup_id)
            journals[item.cleanup_id] = journal
            try:
                reason = _delete(item, journal)
            except JournalUnavailable as err:
                left.append((item, f"{err}; nothing more was deleted"))
                break
        if reason is None:
            done.append(item)
        else:
            left.append((item, reason))
    freed = 0
    if done and not dry_run:
        freed = meter.freed()
        for journal in journals.values():
            with contextlib.suppress(JournalUnavailable):
                journal.record(MEASURED, "", freed=round(freed * _share(journal, done)))
    return PurgeResult(tuple(done), tuple(left), freed, finished)


def _share(journal: Journal, done: Sequence[PurgeItem]) -> float:
    """The part of what a purge freed that one cleanup's items took (a purge of several
    cleanups is one measurement)."""
    total = sum(p.disk_usage for p in done) or 1
    return sum(p.disk_usage for p in done if p.cleanup_id == journal.path.stem) / total


def _journal(cleanup_id: str) -> Journal:
    loaded = load(cleanup_id)
    if loaded is None:
        raise JournalUnavailable(journal_dir(), FileNotFoundError(
            errno.ENOENT, f"the journal of {cleanup_id} is gone"))
    return loaded[1]


def _purge_name(item: PurgeItem) -> str:
    tag = hashlib.blake2b(item.path.encode("utf-8", "surrogateescape"), digest_size=4)
    return f".mlspace-purging-{item.cleanup_id}-{tag.hexdigest()}"


def _delete(item: PurgeItem, journal: Journal) -> str | None:
    """Steps 1-3 of the module doc for one checked item; why it stayed, or None."""
    name = os.path.basename(item.trash_file)
    doomed = _purge_name(item)
    journal.record(PURGE_BEGUN, item.path, trash_file=item.trash_file, doomed=doomed)
    try:
        with trash.opened(trash.TrashedItem(item.trash_file, item.info_file)) as opened:
            st = moves.entry_stat(opened.files_fd, name)
            if st is None or st.st_ino != int(item.event.get("inode") or st.st_ino):
                journal.record(PURGED, item.path, note="it was no longer there")
                return "it was no longer in the trash"
            treecopy.rename_noreplace(opened.files_fd, name, opened.files_fd, doomed)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.basename(item.info_file), dir_fd=opened.info_fd)
            treecopy.remove_tree(opened.files_fd, doomed)
    except (OSError, trash.TrashUnavailable, treecopy.CopyFailed) as err:
        reason = f"could not be deleted ({getattr(err, 'strerror', None) or err})"
        journal.record(PURGED, item.path, note=f"interrupted: {reason}; what is left of it "
                       f"is {os.path.join(os.path.dirname(item.trash_file), doomed)}")
        return reason
    journal.record(PURGED, item.path, bytes=item.disk_usage)
    return None


def finish_interrupted() -> tuple[str, ...]:
    """Finish deleting what a purge that was killed had begun (its journal says
    ``purge-begun`` last): only the private name it renamed the item to is removed."""
    out = []
    for record in history():
        for item in record.items:
            last = record.state(item["path"]) or {}
            if last.get("event") != PURGE_BEGUN or not last.get("doomed"):
                continue
            where = trash.TrashedItem(str(last.get("trash_file") or ""), "")
            with contextlib.suppress(OSError, trash.TrashUnavailable, treecopy.CopyFailed,
                                     JournalUnavailable):
                with trash.opened(where) as opened:
                    treecopy.remove_tree(opened.files_fd, str(last["doomed"]))
                _journal(record.id).record(PURGED, item["path"], note="finished an "
                                           "interrupted purge")
                out.append(item["path"])
    return tuple(out)


def purge_moved(result: CleanupResult, journal: Journal) -> CleanupResult:
    """``clean --free-now``: purge at once what this run just moved to the trash; each
    purged item's outcome says it is deleted (the caller measures the disk)."""
    loaded = load(journal.path.stem)
    if loaded is None:
        return result
    gone = purge(in_trash([loaded[0]]))
    purged = {p.path for p in gone.purged}
    why = dict((p.path, reason) for p, reason in gone.left)
    outcomes = tuple(
        replace(o, went=DELETED, reason="deleted for good") if o.path in purged else
        replace(o, reason=f"{o.reason} (left in the trash: {why[o.path]})") if o.path in why
        else o for o in result.outcomes)
    return CleanupResult(result.cleanup_id, outcomes, result.stopped)


def expire(days: float, roots: Sequence[str] = (), now: float | None = None) -> PurgeResult:
    """The trash's retention: purge what mlspace moved there more than ``days`` ago (from
    inside ``roots`` only, when given); ``days`` 0 keeps everything."""
    if not days:
        return PurgeResult((), (), 0)
    items = select(older_than_days=days, now=now)
    if roots:
        items = [i for i in items if any(i.path.startswith(r.rstrip(os.sep) + os.sep)
                                         for r in roots)]
    return purge(items)
