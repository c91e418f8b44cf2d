"""Settling, undoing and bringing back moves to the cold tier (see :mod:`mlspace.act.tier`).

Settling reads the last journaled step of each item of an interrupted run:

- ``tier-copy-begun`` / ``tier-copied``: the original never moved; the partial (or verified
  but unplaced) copy is removed, and so is a placed copy whose rename was not journaled;
- ``tier-placed``: if the original is still in place the placed copy is removed (rolled
  back); if it is not, it reached the trash just before the kill: found there by its
  .trashinfo record, it counts as trashed;
- ``trashed`` with no link yet: a re-run leaves the link (finished); undo brings it back;
- ``tier-back-begun`` / ``tier-back-copied``: a bring-back stopped; before its copy was
  verified the copy is removed (the item stays archived), after it the copy is put in place.

A copy in the tier is removed only while it is still the one mlspace made (same names,
sizes and times as journaled) and no later run claimed it. Undo puts the original back
from the trash (a rename: the very same files); when the trash no longer has it, the
archived copy is copied back and verified instead. Either way the pointer goes and the
archived copy is removed once the item is back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence

from mlspace import fmt
from mlspace.act import moves, pointer, trash, treecopy
from mlspace.act.cleanup import Progress, RestoreOutcome, _free_name, _restore_one, _to_restore
from mlspace.act.journal import (
    BACK_BEGUN,
    BACK_COPIED,
    COPIED,
    COPY_BEGUN,
    LINKED,
    PLACED,
    RESTORE_FAILED,
    RESTORED,
    ROLLED_BACK,
    TRASHED,
    CleanupRecord,
    Journal,
    JournalUnavailable,
    history,
    load,
)
from mlspace.act.moves import MoveRefused

_KINDS = ("tier", "bring-back")


def _event(record: CleanupRecord, path: str, name: str) -> dict | None:
    return next((e for e in reversed(record.events)
                 if e.get("path") == path and e["event"] == name), None)


def _listing(record: CleanupRecord, path: str) -> str | None:
    """The listing of the tier copy as mlspace made it (or found it, for a bring-back)."""
    for name in (COPIED, BACK_BEGUN):
        if (event := _event(record, path, name)) is not None and event.get("listing"):
            return str(event["listing"])
    return None


def _tier_root(record: CleanupRecord) -> str:
    return str(record.meta.get("tier") or "")


def discard_copy(dest: str, tier_root: str, listing: str | None) -> str | None:
    """Remove an archived copy that is no longer needed (its item is back, or the move was
    rolled back). Returns why it was left, or None (removed, or already gone)."""
    try:
        with moves.parent_of(dest, [tier_root]) as (fd, name):
            if moves.entry_stat(fd, name) is None:
                return None
            if listing is None or treecopy.summarize(fd, name, read=False).listing != listing:
                return f"the archived copy {dest} changed since mlspace made it: it was kept"
            treecopy.remove_tree(fd, name)
    except (MoveRefused, OSError, treecopy.CopyFailed) as err:
        return f"the archived copy {dest} could not be removed ({err})"
    return None


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


# ---------------------------------------------------------------------------------- settle
def settle(record: CleanupRecord, journal: Journal, finish: bool) -> list[RestoreOutcome]:
    """Settle every item of ``record`` that stopped half-way (module doc); with ``finish``
    (a re-run) an item whose original reached the trash also gets its link."""
    out = []
    later = [r for r in history() if r.created > record.created]
    for item in record.items:
        last = record.state(item["path"])
        if last is None:
            continue
        with contextlib.suppress(MoveRefused, OSError, treecopy.CopyFailed,
                                 pointer.PointerChanged):
            note = _settle_one(record, journal, item, last["event"], finish, later)
            if note is not None:
                out.append(note)
    return out


def _settle_one(record: CleanupRecord, journal: Journal, item: dict, event: str,
                finish: bool, later: list[CleanupRecord]) -> RestoreOutcome | None:
    path, dest, root = item["path"], item.get("dest"), _tier_root(record)
    if not dest:
        return None
    if event in (COPY_BEGUN, COPIED):
        begun = _event(record, path, COPY_BEGUN) or {}
        if begun.get("temp"):
            _remove_in(begun["temp"], [root])
        if _original_in_place(item, record.roots):
            discard_copy(dest, root, _listing(record, path))
        journal.record(ROLLED_BACK, path, reason="interrupted before the original moved")
        return RestoreOutcome(path, path, "interrupted before it moved: rolled back")
    if event == PLACED:
        if _original_in_place(item, record.roots):
            discard_copy(dest, root, _listing(record, path))
            journal.record(ROLLED_BACK, path, reason="interrupted before the original moved")
            return RestoreOutcome(path, path, "interrupted before it moved: rolled back")
        found = trash.locate(path)
        if found is None or os.lstat(found.info_file).st_mtime < record.created - 1:
            return RestoreOutcome(path, None, f"neither in place nor in the trash; the "
                                  f"archived copy {dest} was kept")
        journal.record(TRASHED, path, trash_file=found.trash_file, info_file=found.info_file,
                       inode=item.get("inode", 0), dest=dest)
        event = TRASHED
    if event == TRASHED and finish:
        return _finish_link(record, journal, item)
    if event in (BACK_BEGUN, BACK_COPIED):
        return _settle_back(record, journal, item, event)
    if event == RESTORED and not any(i.get("dest") == dest for r in later for i in r.items):
        discard_copy(dest, root, _listing(record, path))  # the item came back before a kill
    return None


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
    begun = _event(record, path, BACK_BEGUN) or {}
    temp = str(begun.get("temp") or "")
    if event == BACK_BEGUN:
        if temp:
            _remove_in(temp, record.roots)
        _record_not_back(record, journal, path, "interrupted while copying back")
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
    discard_copy(dest, _tier_root(record), _listing(record, path))
    return RestoreOutcome(path, target, "finished bringing it back")


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=4).hexdigest()


def _record_not_back(record: CleanupRecord, journal: Journal, path: str, reason: str) -> None:
    """The item is still archived: out of place in an archive run, untouched otherwise."""
    event = RESTORE_FAILED if record.kind == "tier" else ROLLED_BACK
    journal.record(event, path, reason=reason)


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
        if last["event"] in (COPY_BEGUN, COPIED, PLACED, BACK_BEGUN, BACK_COPIED, TRASHED):
            return True
        if last["event"] == RESTORED and os.path.lexists(item["dest"]):
            return True
    return False


# ------------------------------------------------------------------------------------ undo
def undo_tier(record: CleanupRecord, journal: Journal, beside: bool,
              progress: Progress | None = None) -> list[RestoreOutcome]:
    """Undo an archive run: settle what stopped half-way, then bring every item back, from
    the trash when it is still there, else by copying the archived copy back."""
    out = settle(record, journal, finish=False)
    loaded = load(record.id)
    record = loaded[0] if loaded else record
    for entry in _to_restore(record):
        if not entry.get("dest"):
            out.append(_restore_one(entry, record, journal, beside))
        else:
            out.append(_undo_archived(entry, record, journal, beside, progress))
    return out


def _undo_archived(entry: dict, record: CleanupRecord, journal: Journal, beside: bool,
                   progress: Progress | None) -> RestoreOutcome:
    path, dest = entry["path"], entry["dest"]
    mode = str(record.meta.get("link") or "symlink")
    removed = False
    with contextlib.suppress(pointer.PointerChanged, MoveRefused, OSError), \
            moves.parent_of(path, record.roots) as (fd, name):
        removed = pointer.present(fd, name, dest)
        pointer.remove(fd, name, dest)
    outcome = _restore_one(entry, record, journal, beside)
    if outcome.restored_to is None and outcome.reason.startswith(("not found", "the trash",
                                                                  "its trash")):
        return copy_back(path, dest, record, journal, beside, progress)
    if outcome.restored_to is None and removed:
        with contextlib.suppress(MoveRefused, OSError), \
                moves.parent_of(path, record.roots) as (fd, name):
            pointer.leave(fd, name, path, dest, mode, record.id)
    if outcome.restored_to is not None:
        kept = discard_copy(dest, _tier_root(record), _listing(record, path))
        if kept:
            return RestoreOutcome(path, outcome.restored_to, kept)
    return outcome


def copy_back(path: str, dest: str, record: CleanupRecord, journal: Journal,
              beside: bool = False, progress: Progress | None = None,
              cancel: treecopy.Cancel | None = None) -> RestoreOutcome:
    """Copy the archived ``dest`` back to ``path`` (verified), replace the pointer with it,
    then remove the archived copy. Journaled as BACK_BEGUN, BACK_COPIED, RESTORED."""
    root = _tier_root(record)
    done = [0, 0]  # bytes copied and verified, bytes to do

    def on_bytes(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], done[1], path)

    try:
        with moves.parent_of(dest, [root]) as (src_fd, src_name), \
                moves.parent_of(path, record.roots, create=True) as (fd, name):
            stands = moves.entry_stat(fd, name)
            if stands is not None and not pointer.present(fd, name, dest):
                if not beside:
                    raise pointer.PointerChanged("a new item exists at this path; restore "
                                                 "beside it instead")
                name = os.path.basename(_free_name(path))
            target = os.path.join(os.path.dirname(path), name)
            temp = f".mlspace-restoring-{journal.path.stem}-{_short_hash(path)}"
            found = treecopy.summarize(src_fd, src_name, read=False)
            free = treecopy.free_bytes(fd)
            if found.bytes > free:  # checked first: this is often the disk that was full
                why = f"it needs {fmt.size(found.bytes)}, the disk has {fmt.size(free)} free"
                _record_not_back(record, journal, path, why)
                return RestoreOutcome(path, None, f"not brought back: {why}; still archived")
            listing, done[1] = found.listing, 2 * found.bytes
            journal.record(BACK_BEGUN, path, dest=dest, target=target, listing=listing,
                           temp=os.path.join(os.path.dirname(path), temp))
            try:
                copied = treecopy.copy_tree(src_fd, src_name, fd, temp, on_bytes, cancel)
                check = treecopy.summarize(fd, temp, cancel=cancel, on_bytes=on_bytes)
                if check.digest != copied.digest:
                    raise treecopy.CopyFailed("the copy does not read back the same")
            except (treecopy.CopyFailed, treecopy.Cancelled) as err:
                treecopy.remove_tree(fd, temp)
                why = "cancelled" if isinstance(err, treecopy.Cancelled) else str(err)
                _record_not_back(record, journal, path, why)
                return RestoreOutcome(path, None, f"not brought back: {why}; still archived")
            journal.record(BACK_COPIED, path, dest=dest)
            if target == path:
                try:
                    pointer.remove(fd, name, dest)
                except pointer.PointerChanged as err:
                    treecopy.remove_tree(fd, temp)
                    _record_not_back(record, journal, path, str(err))
                    return RestoreOutcome(path, None, f"{err}; still archived")
            treecopy.rename_noreplace(fd, temp, fd, name)
            os.fsync(fd)
    except (pointer.PointerChanged, MoveRefused, OSError, treecopy.CopyFailed) as err:
        return RestoreOutcome(path, None, str(err))
    journal.record(RESTORED, path, restored_to=target)
    kept = discard_copy(dest, root, listing)
    return RestoreOutcome(path, target, kept or "")  # the reason: a copy left, if any
