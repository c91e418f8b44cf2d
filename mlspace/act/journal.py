"""The cleanup journal: written before anything moves, so an interrupted cleanup can be
undone, also after a crash or a restart.

One file per cleanup in mlspace's data dir, as JSON lines: the first line is the plan
(every item, with what the scan saw), written to a temporary file, fsynced and renamed into
place; then one line per event (trashed, with where the item went; skipped, with why;
restored), each appended and fsynced before the next step. A line cut short by a crash is
ignored when reading.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from mlspace import trust
from mlspace.act.fields import count, fault, number, text, text_or_none, texts
from mlspace.config import data_dir
from mlspace.safe_read import NOT_THERE, Unreadable

TRASHED, SKIPPED, RESTORED, RESTORE_FAILED = "trashed", "skipped", "restored", "restore-failed"
ARCHIVED = "archived"  # a log folder was packed into an archive before going to the trash
# Moving an item to the cold tier (mlspace.act.tier), one event per step, in this order:
COPY_BEGUN = "tier-copy-begun"  # a temporary copy in the tier is being written
COPIED = "tier-copied"  # the temporary copy is complete, fsynced and verified
PLACED = "tier-placed"  # the copy was renamed to its final name in the tier
LINKED = "tier-linked"  # after TRASHED: the symlink or stub now stands at the original path
ROLLED_BACK = "tier-rolled-back"  # an unfinished move was undone; the original never moved
# Bringing an archived item back (copy back from the tier), in this order, then RESTORED:
BACK_BEGUN = "tier-back-begun"  # a copy from the tier is being written beside the pointer
BACK_COPIED = "tier-back-copied"  # that copy is complete and verified; it replaces the pointer
SET_ASIDE = "tier-set-aside"  # the verified item's original was renamed aside, to be removed
REMOVED = "tier-removed"  # the original is gone from the fast disk: the tier copy is the item
# Purging an item this cleanup moved to the trash (mlspace.act.purge), in this order:
PURGE_BEGUN = "purge-begun"  # it is being deleted for good: from here on it may be part gone
PURGED = "purged"  # it is gone
#: A run-level event (path ""): what the disk got back during a step, by statvfs.
MEASURED = "measured"
#: Last events after which an item is out of its place (in the trash, maybe archived).
OUT_OF_PLACE = (TRASHED, RESTORE_FAILED, LINKED)
#: Last events of a move that stopped half-way (a kill, a full tier, an unmount).
IN_FLIGHT = (COPY_BEGUN, COPIED, PLACED, SET_ASIDE, REMOVED, BACK_BEGUN, BACK_COPIED)
#: Last events of an item deleted for good (a purge that was cut short included).
GONE = (PURGE_BEGUN, PURGED)


def journal_dir() -> Path:
    return data_dir() / "journal"


@dataclass
class CleanupRecord:
    """A cleanup as read back from its journal."""

    id: str
    created: float
    title: str
    roots: list[str]
    items: list[dict]  # path, is_dir, disk_usage, apparent_size, mtime, files, suggestion
    events: list[dict] = field(default_factory=list)
    kind: str = "clean"  # "clean" (to the trash), "tier" (archive and trash), "bring-back"
    meta: dict = field(default_factory=dict)  # e.g. the policy run that made it

    def state(self, path: str) -> dict | None:
        """The last event about a path (None: nothing happened to it yet)."""
        return next((e for e in reversed(self.events) if e.get("path") == path), None)

    @property
    def trashed(self) -> list[dict]:
        """The "trashed" events of items still in the trash (a failed restore leaves an item
        there, so it can be tried again, e.g. beside a re-created path)."""
        out = []
        for item in self.items:
            last = self.state(item["path"])
            moved = next((e for e in reversed(self.events) if e.get("path") == item["path"]
                          and e["event"] == TRASHED), None)
            if last is not None and last["event"] in OUT_OF_PLACE and moved is not None:
                out.append(moved)
        return out

    @property
    def pending(self) -> list[dict]:
        """Items with no event: the cleanup stopped before or while handling them."""
        return [i for i in self.items if self.state(i["path"]) is None]

    @property
    def in_flight(self) -> list[dict]:
        """Items whose move to the tier stopped half-way: undo or a re-run settles them."""
        return [i for i in self.items if (self.state(i["path"]) or {}).get("event")
                in IN_FLIGHT]

    def _sizes(self, paths: object, key: str = "disk_usage") -> int:
        sizes = {i["path"]: int(i.get(key) or 0) for i in self.items}
        return sum(sizes.get(p, 0) for p in paths)  # type: ignore[attr-defined]

    def _moved(self) -> set[str]:
        return {e["path"] for e in self.events if e["event"] in (TRASHED, REMOVED, LINKED)}

    @property
    def in_trash(self) -> list[dict]:
        """The "trashed" events of items in the trash now (not archived: an archive run of
        an earlier version trashed originals too, behind their link)."""
        return [e for e in self.trashed if (self.state(e["path"]) or {}).get("event") != LINKED]

    @property
    def bytes_in_trash(self) -> int:
        """What this cleanup's items hold in the trash now (still on the disk)."""
        return self._sizes(e["path"] for e in self.in_trash)

    @property
    def purged(self) -> list[dict]:
        """Items deleted for good (an interrupted purge counts: part of it is gone)."""
        return [i for i in self.items if (self.state(i["path"]) or {}).get("event") in GONE]

    @property
    def archived(self) -> list[dict]:
        """Items whose archived copy in the cold tier stands for them now."""
        return [i for i in self.items if (self.state(i["path"]) or {}).get("event") == LINKED]

    @property
    def freed(self) -> int:
        """What the disk got back through this cleanup, as statvfs measured it."""
        return sum(int(e.get("freed") or 0) for e in self.events if e["event"] == MEASURED)

    @property
    def removed_any(self) -> bool:
        """Did anything of this run leave the disk (archived or purged), so that what the
        disk got back was measured?"""
        return any(e["event"] == MEASURED for e in self.events)

    @property
    def moved_when_run(self) -> int:
        """What the run moved out, whether or not it was undone since (history shows this
        beside "undone": the 0 bytes still out would say nothing)."""
        return self._sizes(self._moved())

    @property
    def moved_when_run_apparent(self) -> int:
        """The same in apparent sizes (the app's apparent view)."""
        return self._sizes(self._moved(), "apparent_size")

    @property
    def undone(self) -> bool:
        return bool(self.events) and not self.trashed and not self.archived and any(
            e["event"] == RESTORED for e in self.events)

    @property
    def undoable(self) -> bool:
        """Does undo have anything to put back (or settle)?"""
        return bool(self.trashed or self.archived or self.pending or self.in_flight)


class Journal:
    """Writes one cleanup's journal."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.failed: JournalUnavailable | None = None  # set once a write failed

    @classmethod
    def begin(cls, title: str, roots: list[str], items: list[dict], kind: str = "clean",
              meta: dict | None = None) -> tuple[Journal, str]:
        """Write the plan. Raises JournalUnavailable (and leaves no partial file) when it
        cannot be written: then nothing may move."""
        cleanup_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        folder = journal_dir()
        header = {"id": cleanup_id, "created": time.time(), "title": title, "roots": roots,
                  "items": items, "kind": kind, "meta": meta or {}}
        final = folder / f"{cleanup_id}.jsonl"
        partial = folder / f".{cleanup_id}.tmp"
        try:
            trust.make_folders(folder)  # the user's alone: the reading side checks it
            trust.store(folder)  # a journal others could write would not be read back
        except Unreadable as err:
            raise JournalUnavailable(folder, OSError(errno.EPERM, str(err))) from None
        try:
            with open(partial, "w", encoding="utf-8", errors="surrogateescape",
                      opener=trust.private_opener) as f:
                f.write(json.dumps(header) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(partial, final)
        except OSError as err:
            with contextlib.suppress(OSError):
                partial.unlink()
            raise JournalUnavailable(folder, err) from None
        _fsync_dir(folder)
        return cls(final), cleanup_id

    def record(self, event: str, path: str, **details: object) -> None:
        """Append one event, on disk before this returns; JournalUnavailable if it cannot
        be (the cleanup must stop: the next move would not be recorded)."""
        line = json.dumps({"event": event, "path": path, "time": time.time(), **details})
        try:
            with open(self.path, "a", encoding="utf-8", errors="surrogateescape") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as err:
            self.failed = JournalUnavailable(self.path.parent, err)
            raise self.failed from None


class JournalUnavailable(Exception):
    """The journal could not be written, so nothing more may move."""

    def __init__(self, folder: Path, err: OSError) -> None:
        super().__init__(f"the cleanup journal cannot be written in {folder} "
                         f"({err.strerror or err})")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------- reading
#: A journal file larger than this is not read (a cleanup of 100,000 items writes ~40 MB).
MAX_JOURNAL_BYTES = 256 << 20
_SUFFIX = ".jsonl"


class Unusable(Exception):
    """A journal file (or the journal folder) that cannot be used; ``str(err)`` names it
    and says why."""


def read(path: Path) -> CleanupRecord | None:
    """The cleanup a journal file records; None when it cannot be used (see
    :func:`read_checked` for why)."""
    try:
        return read_checked(path)
    except Unusable:
        return None


def read_checked(path: Path, folder: trust.Store | None = None) -> CleanupRecord:
    """The cleanup a journal file records, read through the bounded reader from a folder
    that passes the ownership rule (mlspace.trust; ``folder``, when it was checked
    already), its lines checked field by field. Raises :class:`Unusable` naming the file
    and what is wrong."""
    try:
        data = (folder or trust.store(path.parent)).read(path.name, MAX_JOURNAL_BYTES)
    except Unreadable as err:
        raise Unusable(trust.reason(path, err)) from None
    return parse_record(data, path)


def parse_record(data: bytes, path: Path) -> CleanupRecord:
    """A journal file's content as a CleanupRecord. The first line (the plan, written whole
    before anything moved) must be sound, or nothing of the file is used; an event line that
    is cut short by a crash or holds fields of the wrong type is left out."""
    lines = data.decode("utf-8", "surrogateescape").splitlines()
    if not lines or not lines[0].strip():
        raise Unusable(f"{path}: empty")
    try:
        header = json.loads(lines[0])
    except (ValueError, RecursionError):
        raise Unusable(f"{path}: its first line is not JSON") from None
    why = _header_fault(header, path.name)
    if why is not None:
        raise Unusable(f"{path}: {why}")
    events = []
    for line in lines[1:]:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by a crash
        if _event_fault(event) is None:
            events.append(event)
    return CleanupRecord(header["id"], float(header["created"]), header.get("title", ""),
                         header.get("roots", []), header["items"], events,
                         header.get("kind", "clean"), header.get("meta") or {})


_HEADER = {"id": text, "created": number, "title": text, "roots": texts,
           "items": lambda v: type(v) is list, "kind": text,
           "meta": lambda v: v is None or type(v) is dict}
_ITEM = {"path": text, "is_dir": lambda v: type(v) is bool, "disk_usage": count,
         "apparent_size": count, "mtime": number, "files": count, "inode": count,
         "note": text, "suggestion": text_or_none, "action": text_or_none,
         "dest": text_or_none}
_META = {"tier": text_or_none, "link": text_or_none, "policy": text_or_none,
         "archive": text_or_none, "unattended": lambda v: type(v) is bool}
_EVENT = {"event": text, "path": text, "time": number, "inode": count,
          **{key: text_or_none for key in ("trash_file", "info_file", "reason", "archive",
                                             "dest", "link", "target", "listing",
                                             "restored_to")}}


def _header_fault(header: object, name: str) -> str | None:
    why = fault(header, _HEADER, ("id", "created", "items"), "its first line")
    if why is not None:
        return why
    assert isinstance(header, dict)
    if f"{header['id']}{_SUFFIX}" != name:
        return f"its first line names another cleanup ({header['id']!r})"
    for n, item in enumerate(header["items"], 1):
        why = fault(item, _ITEM, ("path", "is_dir", "disk_usage"), f"its item {n}")
        if why is not None:
            return why
    return fault(header.get("meta") or {}, _META, (), "its meta")


def _event_fault(event: object) -> str | None:
    why = fault(event, _EVENT, ("event", "path"), "an event")
    if why is None and event["event"] == ARCHIVED and not event.get("archive"):  # type: ignore[index]
        return "an archive event names no archive"
    return why


def run_title(titles: list[str]) -> str:
    """A run's name in the history, from its suggestions' titles: each one, up to two."""
    if len(titles) <= 2:
        return "; ".join(titles)
    return f"{titles[0]}; {titles[1]} and {len(titles) - 2} more"


def history() -> list[CleanupRecord]:
    """Every cleanup that can be read, newest first (see :func:`read_history`)."""
    return read_history()[0]


def read_history() -> tuple[list[CleanupRecord], list[str]]:
    """Every cleanup, newest first, and what could not be used, a sentence each naming
    the file and why: a damaged or foreign file is left out and the others stay undoable.
    A journal folder that others could write is not read at all (mlspace.trust)."""
    try:
        folder = trust.store(journal_dir())
        names = folder.names()
    except Unreadable as err:
        if str(err) == NOT_THERE:  # no cleanup yet
            return [], []
        return [], [f"the cleanup journal is not read: {trust.reason(journal_dir(), err)}"]
    records, problems = [], []
    for name in names:
        if not name.endswith(_SUFFIX) or name.startswith("."):
            continue
        try:
            records.append(read_checked(journal_dir() / name, folder))
        except Unusable as err:
            problems.append(f"skipped the journal file {err}")
    return sorted(records, key=lambda r: -r.created), problems


def load(cleanup_id: str) -> tuple[CleanupRecord, Journal] | None:
    """The cleanup ``cleanup_id`` with its journal (to append to), or None when there is
    no such cleanup or its file cannot be used (:func:`unusable_reason` says which)."""
    path = _journal_file(cleanup_id)
    record = read(path) if path is not None else None
    return (record, Journal(path)) if record and path else None


def unusable_reason(cleanup_id: str) -> str:
    """Why :func:`load` gives nothing for ``cleanup_id``, in a sentence."""
    path = _journal_file(cleanup_id)
    if path is None or not os.path.lexists(path):
        return f"no cleanup {cleanup_id!r} in the journal"
    try:
        read_checked(path)
    except Unusable as err:
        return f"cleanup {cleanup_id} cannot be used: {err}"
    return f"cleanup {cleanup_id} can be read"


def _journal_file(cleanup_id: str) -> Path | None:
    """The file of a cleanup id; None for an id that is no name in the folder."""
    if not cleanup_id or "/" in cleanup_id or "\0" in cleanup_id or \
            cleanup_id.startswith("."):
        return None
    return journal_dir() / f"{cleanup_id}{_SUFFIX}"

