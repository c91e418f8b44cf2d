"""Runs scan + classify + age table in a worker thread and reports back through signals; or
reads a saved scan there, which then arrives the same way.

The GUI thread only receives progress (at most ~10 a second, from the scanner's own rate
limit) and the finished inventory; it never touches the disk. The worker also keeps each
finished scan in mlspace's history, and looks for an opened scan's folders on this machine.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import replace

from PySide6.QtCore import QObject, Qt, QThread, Signal, SignalInstance

from mlspace.advise import Plan, advise
from mlspace.ages import AgeTable, age_table
from mlspace.classify import Inventory, classify, load_rules
from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.owners import learn_names, owners_of
from mlspace.scan import ScanOptions, scan
from mlspace.scan.hardlinks import pinned
from mlspace.ui.collector import spare_long_lived
from mlspace.ui.journal_watch import read_journal
from mlspace.ui.saved_scans import ScanSource, keep_in_history, opened_source
from mlspace.ui.threads import finish_thread, start_in_thread


def prepared(inventory: Inventory) -> tuple[Inventory, AgeTable, Plan]:
    """What the window needs beside the inventory, made in the worker: the age table, the
    plan, the lowered names the name filter searches (the first keystroke would otherwise
    pay for lowering a million names), the owner table and names (the owner chart's), and
    what hard links keep in each folder (a *Move to trash…* by hand asks it; seconds with
    a million hard-linked files)."""
    inventory.snapshot.lowered_names()
    pinned(inventory.snapshot)
    learn_names(owners_of(inventory.snapshot))
    return inventory, age_table(inventory), advise(inventory)


class _Ending:
    """A job that says, just before emitting its last signal, that it has: a scan
    replaced the moment it emitted would otherwise keep its thread waiting for a quit
    that signal was to bring (see ScanController._retire_running)."""

    ended: threading.Event

    def _end(self, signal: SignalInstance, *args: object) -> None:
        self.ended.set()
        signal.emit(*args)


class _ScanJob(_Ending, QObject):
    progress = Signal(object)  # ScanProgress
    finished = Signal(object, object, object, object)  # Inventory, AgeTable, Plan, ScanSource
    failed = Signal(str)

    def __init__(self, paths: list[str], options: ScanOptions, cancel: threading.Event,
                 keep: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.paths = paths
        self.options = options
        self.cancel = cancel
        self.keep = keep  # saved scans the history must not replace with this one
        self.abandoned = threading.Event()  # replaced by another scan: skip what follows
        self.ended = threading.Event()

    def signals(self) -> tuple[SignalInstance, ...]:
        """What ends the job: one of these is emitted last."""
        return self.finished, self.failed

    def run(self) -> None:
        try:
            # Rules first (a few ms), so the result is classified the moment the scan ends.
            # Not during the scan, as the CLI does: on a small machine that thread would
            # compete with the workers and the GUI for the CPU, and the window would stutter
            # (10 ms heartbeat gaps of 120 ms instead of under 80) for the same total time.
            rules = load_rules().compile()
            journal = read_journal()  # before the walk: what moved after it began is news
            started = time.time()
            snapshot = scan(self.paths, self.options, progress=self.progress.emit,
                            cancelled=self.cancel.is_set)
            if self.abandoned.is_set():
                self._end(self.failed, "")  # nobody listens but the thread, which then ends
                return
            inventory = classify(snapshot, rules)
            info = ScanInfo.here(started, options=self.options)
            source = ScanSource(info, tuple(snapshot.roots),
                                note=keep_in_history(inventory, info, self.keep),
                                journal=journal)
            # Everything heavy happens here, off the GUI thread: ages and the plan too.
            self._end(self.finished, *prepared(inventory), source)
        except Exception:  # report, never crash the app from a worker thread
            self._end(self.failed, traceback.format_exc(limit=3))


class _OpenJob(_Ending, QObject):
    finished = Signal(object, object, object, object)  # as _ScanJob's
    refused = Signal(str)  # why the file cannot be opened; '' when cancelled

    def __init__(self, path: str, cancel: threading.Event) -> None:
        super().__init__()
        self.path = path
        self.cancel = cancel
        self.abandoned = threading.Event()  # replaced by another scan: it is dropped once read
        self.ended = threading.Event()

    def signals(self) -> tuple[SignalInstance, ...]:
        return self.finished, self.refused

    def run(self) -> None:
        from mlspace.index.saved import open_saved

        try:
            journal = read_journal()
            saved = open_saved(self.path)
            if self.cancel.is_set():
                self._end(self.refused, "")
                return
            inventory = saved.inventory(load_rules().compile())
            self._end(self.finished, *prepared(inventory), opened_source(saved, journal))
        except CannotOpen as err:
            self._end(self.refused, str(err))
        except Exception as err:  # a file the readers let through: still a message
            self._end(self.refused, f"it could not be read ({type(err).__name__}: {err})")


#: Job threads that outlive their window (see ``_outliving``).
_OUTLIVING: set[QThread] = set()


def _outliving(thread: QThread) -> None:
    """Keep a cancelled job's thread referenced past its controller until the job returns:
    dropped while running, it would abort the app. Its job stops at the next cancel check
    and its results reach nobody."""
    _OUTLIVING.add(thread)
    thread.finished.connect(lambda: _OUTLIVING.discard(thread))


class ScanController(QObject):
    """Start, cancel and follow one scan (or the opening of one saved scan) at a time."""

    started = Signal(list)
    progress = Signal(object)
    finished = Signal(object, object, object, object)  # Inventory, AgeTable, Plan, ScanSource
    failed = Signal(str)
    refused = Signal(str, str)  # a saved scan's path, why it was not opened ('' cancelled)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._job: _ScanJob | _OpenJob | None = None
        self._cancel = threading.Event()
        self._opening = ""  # the saved scan being read
        self._retired: set[QThread] = set()  # replaced jobs' threads, until their jobs return
        self.paths: list[str] = []  # what F5 scans: the folders shown, when they are here
        self.options = ScanOptions()  # and how

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self, paths: list[str], options: ScanOptions | None = None,
              keep: frozenset[str] = frozenset()) -> None:
        """Scan ``paths``. A rescan of the folders shown covers what their scan covered:
        an opened scan's excludes and its choice about other filesystems are kept. ``keep``:
        saved scans this one must not replace in the history (the one compared with)."""
        options = options or ScanOptions()
        if list(paths) == self.paths:
            options = replace(options, exclude=self.options.exclude,
                              cross_filesystems=self.options.cross_filesystems)
        self.paths = list(paths)
        self.options = options
        job = _ScanJob(self.paths, options, self._new_cancel(), keep)
        job.progress.connect(self.progress)
        job.finished.connect(self._done)
        job.failed.connect(self._failed)
        self.started.emit(self.paths)
        self._run(job)

    def open(self, path: str) -> None:
        """Read the saved scan at ``path``: ``finished`` brings it as a scan, with its
        ScanSource; ``refused`` says why it cannot be opened."""
        self._opening = path
        job = _OpenJob(path, self._new_cancel())
        job.finished.connect(self._opened)
        job.refused.connect(self._refused)
        self._run(job)

    def cancel(self) -> None:
        """Ask the scan to stop; it returns within ~100 ms with what it has (marked
        cancelled), which is then shown like any result. A saved scan being read is
        dropped once read."""
        self._cancel.set()

    def wait(self, ms: int = 5000) -> bool:
        return self._thread.wait(ms) if self._thread is not None else True

    def stop(self, ms: int = 30_000) -> None:
        """The window closes: the scan running stops without classifying what it saw
        (nobody will look), and every job's thread has ended before the window goes, since
        a running QThread destroyed takes the app down with it (one that has not within
        ``ms`` is kept alive past the window until it does)."""
        self.cancel()
        self._retire_running()
        for thread in list(self._retired):
            if not thread.wait(ms):  # a machine so loaded the job has not returned yet
                _outliving(thread)

    def _new_cancel(self) -> threading.Event:
        if self.running:
            self.cancel()
        self._cancel = threading.Event()
        return self._cancel

    def _run(self, job: _ScanJob | _OpenJob) -> None:
        self._retire_running()
        self._job = job
        # The app and the scan shown outlive this job: the collector's passes in its thread
        # then walk only what the job makes (mlspace.ui.collector).
        spare_long_lived()
        self._thread = start_in_thread(job)

    def _retire_running(self) -> None:
        """A new scan (or opening) replaces one still running, e.g. a folder dropped on the
        window mid-scan. The old job was told to stop (its cancel flag); from now on its
        results reach nobody, and its thread is kept until the job returns: a running
        QThread dropped would take the app down, and waiting for it here would freeze the
        window while it finishes classifying."""
        thread, job = self._thread, self._job
        if thread is None or job is None:
            return
        job.abandoned.set()
        if isinstance(job, _ScanJob):
            job.progress.disconnect()
        for signal in job.signals():
            signal.disconnect()
            # Direct: quit() is thread-safe, and the GUI thread may be waiting in stop().
            signal.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        self._retired.add(thread)
        thread.finished.connect(lambda: self._forget(thread))
        if job.ended.is_set():
            # It emitted its last signal before the quit above was connected to it.
            thread.quit()
        self._thread, self._job = None, None

    def _forget(self, thread: QThread) -> None:
        self._retired.discard(thread)
        thread.deleteLater()

    def _stale(self) -> bool:
        """Was the signal being delivered sent by a job that was replaced since? Its queued
        delivery can still arrive when it emitted just before the new scan started."""
        sender = self.sender()
        return sender is not None and sender is not self._job

    def _done(self, inventory: object, ages: object, plan: object, source: object) -> None:
        if self._stale():
            return
        self._stop_thread()
        # The scan lives until the next one: out of the collector's passes before the
        # window shows it (mlspace.ui.collector).
        spare_long_lived()
        self.finished.emit(inventory, ages, plan, source)

    def _opened(self, inventory: object, ages: object, plan: object, source: object) -> None:
        if self._stale():
            return
        assert isinstance(source, ScanSource)
        self.paths = list(source.roots) if source.rescannable else []
        self.options = source.info.scan_options()
        self._done(inventory, ages, plan, source)

    def _refused(self, reason: str) -> None:
        if self._stale():
            return
        self._stop_thread()
        self.refused.emit(self._opening, reason)

    def _failed(self, message: str) -> None:
        if self._stale():
            return
        self._stop_thread()
        self.failed.emit(message)

    def _stop_thread(self) -> None:
        finish_thread(self._thread)
        self._thread, self._job = None, None
