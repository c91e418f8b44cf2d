"""Who owns the space: each entry's owner (uid) as a small code, the scan's space per owner,
and owners' names.

On a shared volume the first question about a big folder of checkpoints is whose they are.
The table is made once per scan (the app makes it in its worker thread, before the window
sees the scan), so the owner chart and the owner filter cost array lookups, not a pass over
a million uids, on the GUI thread.

Names: a uid is named as this machine names it (pwd). A scan made on another machine
carries that machine's uids, which may name other people here, so it shows numbers; so does
a uid this machine has no name for, and an export that did not record owners says so.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from mlspace.scan import Snapshot
from mlspace.scan.arrays import exact_bincount

#: What an ncdu export written without -e records as every entry's owner.
UNKNOWN_UID = 0xFFFFFFFF
#: uids below this are counted with one bincount; larger ones (rare: NFS nobody, unknown)
#: go through np.unique.
_SMALL_UID = 1 << 20


@dataclass(frozen=True, eq=False)
class Owners:
    """The owners of one scan's entries."""

    uids: np.ndarray  # the distinct uids, ascending
    codes: np.ndarray  # per entry, its owner's index in uids (int32)
    disk: np.ndarray  # per owner, space on disk of the entries counted (hard links once)
    apparent: np.ndarray  # per owner, apparent size of the same
    entries: np.ndarray  # per owner, how many entries it owns


_TABLES: weakref.WeakKeyDictionary[Snapshot, Owners] = weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


def owners_of(snapshot: Snapshot) -> Owners:
    """The owner table of a scan, made once (a snapshot never changes)."""
    with _TABLES_LOCK:
        table = _TABLES.get(snapshot)
    if table is None:
        table = _make(snapshot)
        with _TABLES_LOCK:
            _TABLES[snapshot] = table
    return table


def _make(snap: Snapshot) -> Owners:
    uid = snap.uid.astype(np.int64)
    small = uid < _SMALL_UID
    if small.all():
        present = np.flatnonzero(np.bincount(uid, minlength=1))
        lookup = np.zeros(int(present[-1]) + 1 if len(present) else 1, dtype=np.int32)
        lookup[present] = np.arange(len(present), dtype=np.int32)
        uids, codes = present, lookup[uid]
    else:
        uids, inverse = np.unique(uid, return_inverse=True)
        codes = inverse.astype(np.int32)
    n = len(uids)
    counted = snap.counted
    return Owners(uids.astype(np.int64), codes,
                  exact_bincount(codes, np.where(counted, snap.disk_sizes(), 0), n),
                  exact_bincount(codes, np.where(counted, snap.apparent, 0), n),
                  np.bincount(codes, minlength=n).astype(np.int64))


def space_by_owner(snap: Snapshot, apparent: bool, added: np.ndarray | None = None,
                   taken: np.ndarray | None = None, removed: np.ndarray | None = None
                   ) -> list[tuple[int, int]]:
    """(uid, space) of every owner of something present, largest first: the scan's table,
    plus the ``added`` entries (counted now, not in the scan: a hard link's other path),
    less the ``taken`` ones (counted in the scan, not now) and the ``removed`` ones (moved
    to the trash since). Only those entries are summed, so a cleanup of a few files in a
    million costs microseconds."""
    owners = owners_of(snap)
    space, entries = (owners.apparent if apparent else owners.disk), owners.entries
    n = len(owners.uids)
    if added is not None and taken is not None and removed is not None:
        sizes = snap.apparent if apparent else snap.disk_sizes()
        space = space + exact_bincount(owners.codes[added], sizes[added], n) \
            - exact_bincount(owners.codes[taken], sizes[taken], n)
        entries = entries - np.bincount(owners.codes[removed], minlength=n)
    order = np.lexsort((owners.uids, -space))
    return [(int(owners.uids[i]), int(space[i])) for i in order if entries[i]]


_NAMES: dict[int, str] = {}


def owner_name(uid: int, names_here: bool = True) -> str:
    """How to call an owner: this machine's user name for ``uid`` when ``names_here`` (the
    scan was made here), else, or when there is none, "uid 1234"."""
    if uid == UNKNOWN_UID:
        return "owner not recorded"
    if not names_here:
        return f"uid {uid}"
    name = _NAMES.get(uid)
    if name is None:
        name = _NAMES[uid] = _system_name(uid) or f"uid {uid}"  # a directory service may
        # be slow: ask once per uid
    return name


def _system_name(uid: int) -> str | None:
    try:
        import pwd
    except ImportError:  # Windows: no uids, no names
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except (KeyError, OverflowError):
        return None


def learn_names(owners: Owners) -> None:
    """Look up every owner's name now (the app does this in its worker thread, so a slow
    directory service never stalls the window)."""
    for uid in owners.uids.tolist():
        owner_name(uid)
