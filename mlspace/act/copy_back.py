"""Copying an archived item back from the cold tier, verified, in place of its pointer.

The tier may be shared storage that others can write to, and it holds the only copy: so a
copy coming back must read exactly as it did when it was archived. Its digest, computed
while it was copied to the tier and kept in the journal (``tier-copied``), is compared with
the digest of the copy coming back; a mismatch keeps the link and names the file that
differs (from the journal's manifest of each file's digest). Journaled as
``tier-back-begun``, ``tier-back-copied``, ``restored``; a kill half-way is settled by
:mod:`mlspace.act.settle`.

An archived copy is released (removed from the tier) only while it is the one mlspace made
(same listing as journaled) and no other pointer mlspace knows of still names it: a copy of
a folder holding links (``cp -a run run-copy``) must not leave ``run``'s link dangling.
"""

from __future__ import annotations

import hashlib
import os

from mlspace import fmt
from mlspace.act import moves, pointer, treecopy
from mlspace.act.folder_times import FolderTimes, of_folder
from mlspace.act.journal import (
    BACK_BEGUN,
    BACK_COPIED,
    COPIED,
    LINKED,
    RESTORE_FAILED,
    RESTORED,
    ROLLED_BACK,
    CleanupRecord,
    Journal,
    history,
)
from mlspace.act.moves import MoveRefused
from mlspace.act.outcomes import Progress, RestoreOutcome
from mlspace.disks import available_bytes


def event_of(record: CleanupRecord, path: str, name: str) -> dict | None:
    """The last event ``name`` about ``path`` in the record."""
    return next((e for e in reversed(record.events)
                 if e.get("path") == path and e["event"] == name), None)


def listing_of(record: CleanupRecord, path: str) -> str | None:
    """The listing of the tier copy as mlspace made it (or found it, for a bring-back)."""
    for name in (COPIED, BACK_BEGUN):
        if (event := event_of(record, path, name)) is not None and event.get("listing"):
            return str(event["listing"])
    return None


def archived_as(dest: str) -> dict | None:
    """The ``tier-copied`` event of the newest archive run whose copy is ``dest``: what the
    copy must read back as."""
    for record in history():
        if record.kind != "tier":
            continue
        for item in record.items:
            if item.get("dest") == dest and (found := event_of(record, item["path"], COPIED)):
                return found
    return None


def tier_root(record: CleanupRecord) -> str:
    return str(record.meta.get("tier") or "")


def other_pointers(dest: str, but: str) -> list[str]:
    """Pointers mlspace left for ``dest`` that still stand, other than the one at ``but``."""
    out = []
    for record in history():
        if record.kind != "tier":
            continue
        for item in record.items:
            path = item["path"]
            last = record.state(path)
            if path == but or item.get("dest") != dest or last is None or \
                    last["event"] != LINKED:
                continue
            if pointer.target(path) == dest:
                out.append(path)
    return out


def discard_copy(dest: str, root: str, listing: str | None, but: str = "") -> str | None:
    """Remove an archived copy that is no longer needed (its item is back, or the move was
    rolled back). Returns why it was kept, or None (removed, or already gone)."""
    if (others := other_pointers(dest, but)):
        return f"the archived copy {dest} was kept: {others[0]} still links to it"
    try:
        with moves.parent_of(dest, [root]) as (fd, name):
            if moves.entry_stat(fd, name) is None:
                return None
            if listing is None or treecopy.summarize(fd, name, read=False).listing != listing:
                return f"the archived copy {dest} changed since mlspace made it: it was kept"
            treecopy.remove_tree(fd, name)
    except (MoveRefused, OSError, treecopy.CopyFailed) as err:
        return f"the archived copy {dest} could not be removed ({err})"
    return None


def free_name(path: str) -> str:
    """"<path> (restored)", or "(restored 2)"... : a name next to ``path`` that is free."""
    candidate = f"{path} (restored)"
    n = 2
    while os.path.lexists(candidate):
        candidate = f"{path} (restored {n})"
        n += 1
    return candidate


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=4).hexdigest()


def record_not_back(record: CleanupRecord, journal: Journal, path: str, reason: str) -> None:
    """The item is still archived: out of place in an archive run, untouched otherwise."""
    event = RESTORE_FAILED if record.kind == "tier" else ROLLED_BACK
    journal.record(event, path, reason=reason)


def _differs(expected: dict, fd: int, name: str) -> str:
    """Which file of the copy ``name`` (in folder ``fd``) is not what was archived."""
    manifest = expected.get("manifest")
    if not isinstance(manifest, dict):
        return "it does not read back as it was archived"
    found = treecopy.summarize(fd, name, manifest=True).manifest or {}
    for rel in sorted(set(manifest) | set(found)):
        if manifest.get(rel) != found.get(rel):
            shown = rel or os.path.basename(name)
            if rel not in found:
                return f"{shown} is missing from the archived copy"
            if rel not in manifest:
                return f"{shown} was added to the archived copy"
            return f"{shown} differs from what was archived"
    return "it does not read back as it was archived"


def copy_back(path: str, dest: str, record: CleanupRecord, journal: Journal,
              beside: bool = False, progress: Progress | None = None,
              cancel: treecopy.Cancel | None = None,
              times: FolderTimes | None = None) -> RestoreOutcome:
    """Copy the archived ``dest`` back to ``path`` (verified against what was archived),
    replace the pointer with it, then release the archived copy. ``times``: what the
    archive run's journal says of the folder's times (else this record's)."""
    root = tier_root(record)
    expected = event_of(record, path, COPIED) or archived_as(dest)
    times = times or of_folder([record], os.path.dirname(path))
    set_ns = None
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
                name = os.path.basename(free_name(path))
            untouched = os.fstat(fd)
            target = os.path.join(os.path.dirname(path), name)
            temp = f".mlspace-restoring-{journal.path.stem}-{_short_hash(path)}"
            found = treecopy.summarize(src_fd, src_name, read=False)
            free = available_bytes(fd)
            if found.bytes > free:  # checked first: this is often the disk that was full
                why = f"it needs {fmt.size(found.bytes)}, the disk has {fmt.size(free)} free"
                record_not_back(record, journal, path, why)
                return RestoreOutcome(path, None, f"not brought back: {why}; still archived")
            listing, done[1] = found.listing, 2 * found.bytes
            journal.record(BACK_BEGUN, path, dest=dest, target=target, listing=listing,
                           temp=os.path.join(os.path.dirname(path), temp))
            try:
                copied = treecopy.copy_tree(src_fd, src_name, fd, temp, on_bytes, cancel)
                if expected is not None and expected.get("digest") and \
                        copied.digest != expected["digest"]:
                    raise treecopy.CopyFailed(_differs(expected, src_fd, src_name) +
                                              f" (in {dest}): the link was kept")
                check = treecopy.summarize(fd, temp, cancel=cancel, on_bytes=on_bytes)
                if check.digest != copied.digest:
                    raise treecopy.CopyFailed("the copy does not read back the same")
            except (treecopy.CopyFailed, treecopy.Cancelled) as err:
                treecopy.remove_tree(fd, temp)
                why = "cancelled" if isinstance(err, treecopy.Cancelled) else str(err)
                record_not_back(record, journal, path, why)
                return RestoreOutcome(path, None, f"not brought back: {why}; still archived")
            journal.record(BACK_COPIED, path, dest=dest)
            if target == path:
                try:
                    pointer.remove(fd, name, dest)
                except pointer.PointerChanged as err:
                    treecopy.remove_tree(fd, temp)
                    record_not_back(record, journal, path, str(err))
                    return RestoreOutcome(path, None, f"{err}; still archived")
            treecopy.rename_noreplace(fd, temp, fd, name)
            os.fsync(fd)
            if target == path:
                set_ns = times.put_back(fd, untouched)
    except (pointer.PointerChanged, MoveRefused, OSError, treecopy.CopyFailed) as err:
        return RestoreOutcome(path, None, str(err))
    journal.record(RESTORED, path, restored_to=target, parent_set_ns=set_ns)
    kept = discard_copy(dest, root, listing, but=path)
    return RestoreOutcome(path, target, kept or "", set_ns)  # reason: a copy left, if any

