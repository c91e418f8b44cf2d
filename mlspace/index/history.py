"""Every ``mlspace scan PATH --save`` is kept in mlspace's data folder, as a Parquet index,
so later scans can be compared with it (``mlspace diff``) and listed (``mlspace history``).

Retention: per scanned folder (the set of roots), the last KEEP_LAST scans, and of older
ones the newest of each week. A small index file lists what is kept, so listing reads no
scan; it is checked against the folder's files each time, and rebuilt from the files'
footers when it is missing, damaged or behind (two saves at once, a file copied in).

What counts as a scan: the app keeps every scan it finishes, and rescans by itself after
an archive, a bring-back or an undo; those, and an F5 a few minutes later, are one look
at the folders, not new points of their growth. So a scan the app keeps replaces the
one it kept of the same folders less than SAME_LOOK_SECONDS before (``rescan=True``);
``mlspace scan --save`` keeps every scan it is asked to, and is never replaced.

The history folder and every file read from it must pass the ownership rule
(mlspace.trust): a folder others could write is neither read nor written, and a file in
it that is not the user's is left out with the reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path

from mlspace import trust
from mlspace.classify import Inventory
from mlspace.config import data_dir
from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.safe_read import NOT_THERE, Unreadable

#: Scans kept per scanned folder before thinning to one a week.
KEEP_LAST = 30
#: Scans the app keeps of the same folders less than this apart are one look at them.
SAME_LOOK_SECONDS = 30 * 60
_INDEX = "index.json"
_INDEX_LIMIT = 64 << 20  # bytes of index read at most (30 scans per folder: a few KB)
_SUFFIX = ".parquet"


class HistoryUnavailable(Exception):
    """The history folder cannot be used; ``str(err)`` names it and says why."""


@dataclass(frozen=True)
class HistoryEntry:
    """One kept scan, as ``mlspace history`` lists it."""

    id: str
    finished: float
    host: str
    roots: tuple[str, ...]
    disk_usage: int
    files: int
    rescan: bool = False  # kept by the app: a rescan soon after replaces it

    @property
    def path(self) -> Path:
        return history_dir() / f"{self.id}{_SUFFIX}"


def history_dir() -> Path:
    return data_dir() / "scans"


def save(inventory: Inventory, info: ScanInfo, rescan: bool = False,
         keep: Collection[str] = ()) -> HistoryEntry:
    """Keep this scan; returns its entry. Older scans of the same folder past the retention
    rule are removed, and with ``rescan`` (the app's), one the app kept of the same folders
    less than SAME_LOOK_SECONDS before, unless its id is in ``keep`` (the scan the app is
    comparing with). Raises HistoryUnavailable when the folder fails the ownership rule,
    OSError when it cannot be written."""
    from mlspace.index.parquet_write import write_parquet

    folder = history_dir()
    trust.make_folders(folder)
    try:
        trust.store(folder)
    except Unreadable as err:
        raise HistoryUnavailable(f"the saved scans' history is not used: "
                                 f"{trust.reason(folder, err)}") from None
    snap = inventory.snapshot
    totals = snap.grand_totals()
    entry = HistoryEntry(_new_id(folder, info.finished, snap.roots), info.finished, info.host,
                         tuple(snap.roots), totals.disk_usage, totals.files, rescan)
    partial = entry.path.with_name(entry.path.name + ".partial")
    try:
        write_parquet(str(partial), inventory, info)
        os.chmod(partial, trust.FILE_MODE)  # the user's alone, whatever the umask
        os.replace(partial, entry.path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    previous = [e for e in entries() if e.id != entry.id]
    kept = _retained([*(e for e in previous if e.id in keep or not _same_look(e, entry)),
                      entry])
    kept_ids = {e.id for e in kept}
    for gone in previous:
        if gone.id not in kept_ids:
            with contextlib.suppress(FileNotFoundError):
                gone.path.unlink()
    _write_index(kept)
    return entry


def _same_look(old: HistoryEntry, new: HistoryEntry) -> bool:
    """Is ``old`` the same look at the folders as the app's ``new`` scan (see the module
    doc)? Only scans the app kept replace each other."""
    return new.rescan and old.rescan and old.roots == new.roots and \
        0 <= new.finished - old.finished < SAME_LOOK_SECONDS


def entries(root: str | None = None) -> list[HistoryEntry]:
    """The kept scans, oldest first; with ``root``, only those that scanned it."""
    return read_entries(root)[0]


def read_entries(root: str | None = None) -> tuple[list[HistoryEntry], list[str]]:
    """:func:`entries`, and what was left out of them, a sentence each: a history folder
    that fails the ownership rule (nothing of it is read), a file in it that is not the
    user's or not a regular file."""
    folder = history_dir()
    try:
        kept = trust.store(folder)
        names = kept.names()
    except Unreadable as err:
        if str(err) == NOT_THERE:  # none kept yet
            return [], []
        return [], [f"the saved scans' history is not read: {trust.reason(folder, err)}"]
    present, problems = set(), []
    for name in names:
        if name.endswith(_SUFFIX):
            try:
                kept.check(name)
            except Unreadable as err:
                problems.append(f"left a saved scan out of the history: "
                                f"{trust.reason(folder / name, err)}")
                continue
            present.add(name[: -len(_SUFFIX)])
    indexed = {e.id: e for e in _read_index(kept)}
    found = {i: indexed[i] for i in present & indexed.keys()}
    for missing in sorted(present - indexed.keys()):
        entry = _from_footer(folder, missing)
        if entry is not None:
            found[missing] = entry
    if found.keys() != indexed.keys():
        with contextlib.suppress(OSError):  # listing works on a read-only history too
            _write_index(list(found.values()))
    listed = sorted(found.values(), key=lambda e: (e.finished, e.id))
    return [e for e in listed if root is None or root in e.roots], problems


def space_used() -> tuple[int, int]:
    """(scans kept, bytes they take on disk) in the history folder: what the app's
    settings say the history costs. Reads the folder's listing only, never a scan."""
    scans = used = 0
    with contextlib.suppress(OSError), os.scandir(history_dir()) as listing:
        for item in listing:
            with contextlib.suppress(OSError):
                if item.is_file(follow_symlinks=False):
                    used += item.stat(follow_symlinks=False).st_blocks * 512
                    scans += item.name.endswith(_SUFFIX)
    return scans, used


def retention_words() -> str:
    """The retention rule, as the app's settings and docs/saved-scans.md say it."""
    return f"per scanned folder, the last {KEEP_LAST}, then the newest of each week"


def find(key: str) -> HistoryEntry:
    """The kept scan with id ``key``, or the only one whose id starts with it."""
    kept = entries()
    exact = [e for e in kept if e.id == key]
    matches = exact or [e for e in kept if e.id.startswith(key)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise LookupError(f"no saved scan {key!r} (see `mlspace history`)")
    raise LookupError(f"{key!r} names {len(matches)} saved scans: give more of the id")


def latest(root: str) -> HistoryEntry | None:
    """The newest kept scan of exactly this one folder."""
    mine = [e for e in entries() if e.roots == (root,)]
    return mine[-1] if mine else None


def _retained(kept: list[HistoryEntry]) -> list[HistoryEntry]:
    """Per set of roots: the newest KEEP_LAST, then the newest of each older calendar week
    (ISO weeks, so what a week keeps does not move as days pass)."""
    by_roots: dict[tuple[str, ...], list[HistoryEntry]] = {}
    for entry in kept:
        by_roots.setdefault(entry.roots, []).append(entry)
    out = []
    for group in by_roots.values():
        group.sort(key=lambda e: (e.finished, e.id), reverse=True)
        out += group[:KEEP_LAST]
        weeks = set()
        for entry in group[KEEP_LAST:]:
            week = time.strftime("%G-%V", time.localtime(entry.finished))
            if week not in weeks:
                weeks.add(week)
                out.append(entry)
    return out


def _new_id(folder: Path, finished: float, roots: tuple[str, ...]) -> str:
    digest = hashlib.sha1("\0".join(roots).encode("utf-8", "surrogateescape")).hexdigest()
    base = time.strftime("%Y%m%d-%H%M%S", time.localtime(finished)) + "-" + digest[:4]
    candidate, n = base, 1
    while (folder / f"{candidate}{_SUFFIX}").exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _read_index(kept: trust.Store) -> list[HistoryEntry]:
    """The index's entries; none when it is missing, not a regular file of the user's, or
    damaged (it is then rebuilt from the scans' footers)."""
    try:
        records = json.loads(kept.read(_INDEX, _INDEX_LIMIT).decode("utf-8",
                                                                     "surrogateescape"))
        return [HistoryEntry(_index_id(r["id"]), _finite(r["finished"]), str(r["host"]),
                             tuple(str(p) for p in r["roots"]), int(r["disk_usage"]),
                             int(r["files"]), r.get("rescan") is True)
                for r in records]
    except (Unreadable, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return []


def _index_id(value: object) -> str:
    """An id the index names: a file name in the folder, nothing else."""
    if not isinstance(value, str) or not value or "/" in value or value.startswith("."):
        raise ValueError("not a saved scan's id")
    return value


def _finite(value: object) -> float:
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        raise ValueError("not a time")
    return number


def _write_index(kept: list[HistoryEntry]) -> None:
    folder = history_dir()
    partial = folder / (_INDEX + ".partial")
    records = [asdict(e) for e in sorted(kept, key=lambda e: (e.finished, e.id))]
    with open(partial, "w", encoding="utf-8", errors="surrogateescape",
              opener=trust.private_opener) as f:
        f.write(json.dumps(records, indent=1))
    os.replace(partial, folder / _INDEX)


def _from_footer(folder: Path, scan_id: str) -> HistoryEntry | None:
    from mlspace.index.parquet_read import read_metadata

    try:
        doc = read_metadata(str(folder / f"{scan_id}{_SUFFIX}"))
        totals = doc.get("totals", {})
        return HistoryEntry(scan_id, float(doc.get("finished", 0.0)), str(doc.get("host", "")),
                            tuple(doc["roots"]), int(totals.get("disk_usage", 0)),
                            int(totals.get("files", 0)))
    except (CannotOpen, ValueError, TypeError, AttributeError):
        return None  # not a scan: left alone, never listed
