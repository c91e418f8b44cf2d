"""Settling a move to or from the cold tier that stopped half-way (a kill, a full tier, the
NAS gone), from what its journal says was done last:

- the copy was begun, made or placed, and the original never left: the copy is removed
  (rolled back);
- the original was set aside: a re-run finishes (it is removed once it is found to be
  exactly what was copied, then the link is left); an undo puts it back in place and
  removes the copy;
- the original was removed: a re-run leaves the link; an undo copies the item back;
- a copy back was begun: its partial copy is removed (still archived); one that was made
  and verified is put in place.

A copy in the tier is removed only while it is still the one mlspace made (same names,
sizes and times as journaled). Archive runs of an earlier version moved the original to
the trash (``trashed`` after ``tier-placed``); those are settled as they were then.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

from mlspace.act import moves, pointer, trash, treecopy
from mlspace.act.copy_back import discard_copy, event_of, listing_of, record_not_back, tier_root
from mlspace.act.journal import (
    BACK_BEGUN,
    BACK_COPIED,
    COPIED,
    COPY_BEGUN,
    LINKED,
    PLACED,
    REMOVED,
    RESTORED,
    ROLLED_BACK,
    SET_ASIDE,
    TRASHED,
    CleanupRecord,
    Journal,
    JournalUnavailable,
    history,
    load,
)
from mlspace.act.moves import MoveRefused
from mlspace.act.outcomes import RestoreOutcome

_KINDS = ("tier", "bring-back")
_ROLLED_BACK = "interrupted before the original was removed: rolled back"


def settle(record: CleanupRecord, journal: Journal, finish: bool) -> list[RestoreOutcome]:
    """Settle every item of ``record`` that stopped half-way (module doc); ``finish`` for a
    re-run, else (an undo) towards putting the item back."""
    out = []
    later = [r for r in history() if r.created > record.created]
    for item in record.items:
        last = record.state(item["path"])
        if last is None or not item.get("dest"):
            continue
        with contextlib.suppress(MoveRefused, OSError, treecopy.CopyFailed,
                                 pointer.PointerChanged):
            note = _settle_one(record, journal, item, last["event"], finish, later)
            if note is not None:
                out.append(note)
    return out


def _settle_one(record: CleanupRecord, journal: Journal, item: dict, event: str,
                finish: bool, later: list[CleanupRecord]) -> RestoreOutcome | None:
    path, dest, root = item["path"], item["dest"], tier_root(record)
    if event in (COPY_BEGUN, COPIED):
        begun = event_of(record, path, COPY_BEGUN) or {}
        if begun.get("temp"):
            _remove_in(begun["temp"], [root])
        if _original_in_place(item, record.roots):
            discard_copy(dest, root, listing_of(record, path), but=path)
        journal.record(ROLLED_BACK, path, reason=_ROLLED_BACK)
        return RestoreOutcome(path, path, _ROLLED_BACK)
    if event == PLACED:
        if _original_in_place(item, record.roots):
            discard_copy(dest, root, listing_of(record, path), but=path)
            journal.record(ROLLED_BACK, path, reason=_ROLLED_BACK)
            return RestoreOutcome(path, path, _ROLLED_BACK)
        return _placed_and_trashed(record, journal, item, finish)
    if event == SET_ASIDE:
        return _set_aside(record, journal, item, finish)
    if event in (REMOVED, TRASHED) and finish:
        return _finish_link(record, journal, item)
    if event in (BACK_BEGUN, BACK_COPIED):
        return _settle_back(record, journal, item, event)
    if event == RESTORED and not any(i.get("dest") == dest for r in later for i in r.items):
        discard_copy(dest, root, listing_of(record, path), but=path)  # back before a kill
    return None


def _placed_and_trashed(record: CleanupRecord, journal: Journal, item: dict,
                        finish: bool) -> RestoreOutcome | None:
    """An archive run of an earlier version, stopped after it trashed the original."""
    path, dest = item["path"], item["dest"]
    found = trash.locate(path)
    if found is None or os.lstat(found.info_file).st_mtime < record.created - 1:
        return RestoreOutcome(path, None, f"neither in place nor in the trash; the "
                              f"archived copy {dest} was kept")
    journal.record(TRASHED, path, trash_file=found.trash_file, info_file=found.info_file,
                   inode=item.get("inode", 0), dest=dest)
    return _finish_link(record, journal, item) if finish else None


def _set_aside(record: CleanupRecord, journal: Journal, item: dict,
               finish: bool) -> RestoreOutcome | None:
    path, dest = item["path"], item["dest"]
    aside = str((event_of(record, path, SET_ASIDE) or {}).get("aside") or "")
    with moves.parent_of(path, record.roots) as (fd, name):
        if not aside or moves.entry_stat(fd, aside) is None:  # removed before its line
            journal.record(REMOVED, path, dest=dest)
            return _finish_link(record, journal, item) if finish else None
        same = treecopy.summarize(fd, aside, read=False).listing == listing_of(record, path)
        if finish and same:
            treecopy.remove_tree(fd, aside)
            journal.record(REMOVED, path, dest=dest)
            return _finish_link(record, journal, item)
        treecopy.rename_noreplace(fd, aside, fd, name)
    discard_copy(dest, tier_root(record), listing_of(record, path), but=path)
    journal.record(ROLLED_BACK, path, reason=_ROLLED_BACK)
    return RestoreOutcome(path, path, _ROLLED_BACK)


def _original_in_place(item: dict, roots: Sequence[str]) -> bool:
    """Is the item itself (not a pointer, not a stranger) still at its path?"""
    with contextlib.suppress(MoveRefused, OSError), \
            moves.parent_of(item["path"], roots) as (fd, name):
        st = moves.entry_stat(fd, name)
        return st is not None and moves.same_entry(st, item["is_dir"], item.get("inode", 0)
                                                   ) is None
    return False


def _remove_in(path: str, roots: Sequence[str]) -> None:
    """Remove mlspace's own partial copy at ``path`` (inside ``roots``), if there."""
    with contextlib.suppress(MoveRefused), moves.parent_of(path, roots) as (fd, name):
        treecopy.remove_tree(fd, name)


def _finish_link(record: CleanupRecord, journal: Journal, item: dict) -> RestoreOutcome:
    path, dest = item["path"], item["dest"]
    mode = str(record.meta.get("link") or "symlink")
    with moves.parent_of(path, record.roots) as (fd, name):
        if pointer.present(fd, name, dest):
            link: str | None = path if mode == "symlink" else path + pointer.STUB_SUFFIX
        elif moves.entry_stat(fd, name) is None:
            link = pointer.leave(fd, name, path, dest, mode, record.id)
        else:
            link = None
    journal.record(LINKED, path, dest=dest, link=link)
    return RestoreOutcome(path, None, f"finished: archived to {dest}")


def _settle_back(record: CleanupRecord, journal: Journal, item: dict,
                 event: str) -> RestoreOutcome:
    path, dest = item["path"], item["dest"]
    begun = event_of(record, path, BACK_BEGUN) or {}
    temp = str(begun.get("temp") or "")
    if event == BACK_BEGUN:
        if temp:
            _remove_in(temp, record.roots)
        record_not_back(record, journal, path, "interrupted while copying back")
        return RestoreOutcome(path, None, "interrupted while copying back: still archived")
    target = str(begun.get("target") or path)
    with moves.parent_of(target, record.roots, create=True) as (fd, name):
        temp_name = os.path.basename(temp)
        if moves.entry_stat(fd, temp_name) is not None:
            if target == path:
                pointer.remove(fd, name, dest)
            treecopy.rename_noreplace(fd, temp_name, fd, name)
            os.fsync(fd)
    journal.record(RESTORED, path, restored_to=target)
    discard_copy(dest, tier_root(record), listing_of(record, path), but=path)
    return RestoreOutcome(path, target, "finished bringing it back")


def settle_interrupted(roots: Sequence[str]) -> list[RestoreOutcome]:
    """Settle every interrupted archive or bring-back with an item inside ``roots``
    (what a re-run does first)."""
    out = []
    for record in history():
        if record.kind not in _KINDS or not _needs_settling(record):
            continue
        if not any(_inside(i["path"], roots) for i in record.items):
            continue
        loaded = load(record.id)
        if loaded is not None:
            with contextlib.suppress(JournalUnavailable):
                out += settle(loaded[0], loaded[1], finish=True)
    return out


def _inside(path: str, roots: Sequence[str]) -> bool:
    try:
        moves.containing_root(path, [os.path.abspath(r) for r in roots])
    except MoveRefused:
        return False
    return True


def _needs_settling(record: CleanupRecord) -> bool:
    for item in record.items:
        last = record.state(item["path"])
        if last is None or not item.get("dest"):
            continue
        if last["event"] in (COPY_BEGUN, COPIED, PLACED, SET_ASIDE, REMOVED, BACK_BEGUN,
                             BACK_COPIED, TRASHED):
            return True
        if last["event"] == RESTORED and os.path.lexists(item["dest"]):
            return True
    return False

