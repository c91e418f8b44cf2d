"""What the cleanup journal says is out of place, and a watcher that notices when it changes.

Cleanups, undos, archive runs and policy runs all write mlspace's journal (one file per
run in the data folder). A run made outside the window — `mlspace clean` in a shell, a
policy run from a timer, another window — changes the disk the window shows, and is what
Ctrl+Z would undo next. The window keeps the journal as its views show it (``Runs``, read
when a scan starts) and compares each new reading with it (mlspace.ui.journal_follow).

The watcher polls the journal folder's listing (names, sizes, times: an event is appended
to a run's file, which changes no directory entry, so a directory watch alone would miss
it) once a second in a thread of its own, and reads the journal there only when the
listing changed: the window's thread never touches the disk for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from mlspace.act import history
from mlspace.act.journal import ARCHIVED, LINKED, CleanupRecord, journal_dir

#: How often the journal folder's listing is looked at, in milliseconds.
POLL_MS = 1000


@dataclass(frozen=True)
class Run:
    """One journaled run as far as the window cares: what it left out of place."""

    id: str
    created: float
    title: str
    kind: str  # "clean", "tier" (archive), "bring-back"
    policy: str  # the policy file of a policy run, else ''
    roots: tuple[str, ...]
    out: frozenset[str]  # paths it moved that are out of their place now
    undoable: bool  # what Ctrl+Z could undo: something out, or an interrupted run
    packed: bool = False  # a log folder was packed into an archive beside it
    sizes: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # (disk, apparent)
    linked: frozenset[str] = frozenset()  # of ``out``: archived, a link or stub in place
    running: bool = False  # items it has not come to yet: still running, or killed
    purged: frozenset[str] = frozenset()  # deleted from the trash for good: gone, not back

    @property
    def made_by(self) -> str:
        """What made it, for a sentence: "a policy run (mlspace-policy.toml)"."""
        if self.policy:
            return f"a policy run ({os.path.basename(self.policy)})"
        return {"tier": "an archive run", "bring-back": "a bring-back"}.get(self.kind,
                                                                            "a cleanup")

    def size_of(self, paths: set[str] | frozenset[str], apparent: bool) -> int:
        """What ``paths`` of this run took, as scanned before they moved."""
        return sum(self.sizes.get(p, (0, 0))[1 if apparent else 0] for p in paths)


Journal = Mapping[str, Run]


def run_of(record: CleanupRecord) -> Run:
    out = frozenset(e["path"] for e in record.trashed) | \
        frozenset(i["path"] for i in record.archived)
    linked = frozenset(p for p in out if (record.state(p) or {}).get("event") == LINKED)
    return Run(record.id, record.created, record.title, record.kind,
               str(record.meta.get("policy") or ""), tuple(record.roots), out,
               record.undoable,
               any(e.get("event") == ARCHIVED for e in record.events),
               {i["path"]: (int(i.get("disk_usage", 0)), int(i.get("apparent_size", 0)))
                for i in record.items},
               linked, bool(record.pending or record.in_flight),
               frozenset(i["path"] for i in record.purged))


def read_journal() -> dict[str, Run] | None:
    """Every run in the journal (reads files: call it off the window's thread); None when
    it cannot be read now (a damaged journal file the reader does not skip)."""
    try:
        return {record.id: run_of(record) for record in history()}
    except Exception:  # never a scan or the window lost over the journal
        return None


def newest_undoable(journal: Journal) -> Run | None:
    """The run Ctrl+Z undoes: the newest with something to put back (as last_undoable)."""
    return max((r for r in journal.values() if r.undoable), key=lambda r: r.created,
               default=None)


@dataclass(frozen=True)
class Change:
    """What one run changed between two readings of the journal."""

    run: Run
    gone: frozenset[str]  # moved out of place since
    back: frozenset[str]  # put back since
    freed: frozenset[str] = frozenset()  # deleted from the trash for good since


def changes(before: Journal, now: Journal) -> list[Change]:
    """Every run whose out-of-place paths differ between two readings, oldest first."""
    found = []
    for run in sorted(now.values(), key=lambda r: r.created):
        was = before.get(run.id)
        out_then = was.out if was is not None else frozenset()
        purged_then = was.purged if was is not None else frozenset()
        if run.out != out_then or run.purged != purged_then:
            found.append(Change(run, run.out - out_then, out_then - run.out - run.purged,
                                run.purged - purged_then))
    return found


def _listing() -> tuple[tuple[str, int, int], ...] | None:
    """The journal folder's names with sizes and times (None: no folder yet)."""
    try:
        with os.scandir(journal_dir()) as entries:
            return tuple(sorted((e.name, st.st_size, st.st_mtime_ns) for e in entries
                                for st in (e.stat(follow_symlinks=False),)))
    except OSError:
        return None


class _Poller(QObject):
    """Lives in the watcher's thread: looks at the listing, reads when it changed."""

    read = Signal(int, object)  # the newest request it had answered, the journal

    def __init__(self) -> None:
        super().__init__()
        self._seen: object = ()  # the listing last read (() before the first reading)
        self._asked = 0
        self._timer: QTimer | None = None

    @Slot()
    def start(self) -> None:
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.poll)
        self._timer.start()

    @Slot()
    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    @Slot(int)
    def ask(self, request: int) -> None:
        """Read now, whether or not the listing changed, and say it answers ``request``."""
        self._asked = request
        self._seen = ()
        self.poll()

    @Slot()
    def poll(self) -> None:
        listing = _listing()
        if listing == self._seen:
            return
        self._seen = listing
        journal = read_journal()
        if journal is None:  # try again on the next change
            self._seen = ()
            return
        self.read.emit(self._asked, journal)


class JournalWatcher(QObject):
    """Tells the window the journal as it is now, whenever it changed (``read``), and on
    request (``ask``: the reading answers that request and every one before it)."""

    read = Signal(int, object)  # request answered, {id: Run}
    _asked = Signal(int)
    _stop = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._poller = _Poller()
        self._poller.moveToThread(self._thread)
        self._thread.started.connect(self._poller.start)
        self._asked.connect(self._poller.ask)
        # Blocking: its timer is stopped in its own thread before that thread ends.
        self._stop.connect(self._poller.stop, Qt.ConnectionType.BlockingQueuedConnection)
        self._poller.read.connect(self.read)  # queued: it reaches the window's thread
        self._requests = 0

    def start(self) -> None:
        self._thread.start()

    def ask(self) -> int:
        """Ask for a reading now; returns the request's number."""
        self._requests += 1
        self._asked.emit(self._requests)
        return self._requests

    def stop(self, ms: int = 5000) -> None:
        """The window closes: the thread ends (after a reading it is in, if any)."""
        if self._thread.isRunning():
            self._stop.emit()
            self._thread.quit()
            self._thread.wait(ms)
