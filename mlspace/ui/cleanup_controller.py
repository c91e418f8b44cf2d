"""Runs cleanups, archive runs, bring-backs and undos in a worker thread; the GUI follows
through signals. Copies to and from the cold tier take minutes: their progress is in bytes,
and ``cancel`` rolls back the item being copied (its original untouched) and stops there."""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QThread, Signal

from mlspace.act import CleanupResult, JournalUnavailable, execute, run, undo
from mlspace.act.bring_back import NotArchived, bring_back
from mlspace.act.purge import PurgeItem, expire, purge
from mlspace.act.tier import Tier, TierUnavailable
from mlspace.advise import Suggestion
from mlspace.ui.threads import finish_thread, start_in_thread

Report = Callable[[int, int, str], None]
#: Errors that are a message for the user (nothing moved), not a bug report.
_REFUSED = (JournalUnavailable, TierUnavailable, NotArchived)
#: How often a copy's progress reaches the window: often enough to look live, rarely
#: enough that a fast disk does not flood the event loop.
_EVERY = 0.1


#: Byte counts pass 2 GiB: a C int would overflow.
_BYTES = "qlonglong"


class _Job(QObject):
    progress = Signal(_BYTES, _BYTES, str)
    done = Signal(object)
    failed = Signal(str)

    def __init__(self, work: Callable[[Report], object], throttle: bool) -> None:
        super().__init__()
        self.work = work
        self.throttle = throttle
        self._last = 0.0

    def run(self) -> None:
        try:
            self.done.emit(self.work(self._report))
        except JournalUnavailable as err:
            self.failed.emit(f"{err}. Nothing was moved.")
        except _REFUSED as err:
            self.failed.emit(str(err))
        except Exception:
            self.failed.emit(traceback.format_exc(limit=3))

    def _report(self, done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if not self.throttle or now - self._last >= _EVERY or (total and done >= total):
            self._last = now
            self.progress.emit(done, total, path)


class CleanupController(QObject):
    progress = Signal(_BYTES, _BYTES, str)  # items done, items, path: a cleanup to the trash
    copying = Signal(str, _BYTES, _BYTES, str)  # what ("Archiving"), bytes done, bytes, path
    cleaned = Signal(object)  # CleanupResult of a cleanup to the trash
    archived = Signal(object)  # CleanupResult of an archive run (some items maybe trashed)
    brought_back = Signal(str, object)  # the pointer's path, RestoreOutcome
    freed = Signal(object)  # PurgeResult: what was deleted from the trash for good
    undone = Signal(str, object)  # cleanup id(s), [RestoreOutcome]
    failed = Signal(str)
    idle = Signal()  # a job ended, whichever way

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._job: _Job | None = None
        self._on_done: Callable[[object], None] = lambda _: None
        self._cancel = threading.Event()
        self._in_trash_only = False  # the running job frees the trash (see moving)
        self.verb = ""  # what the running job does, for its progress line
        self.cancellable = False  # whether the running job stops when asked

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def moving(self) -> bool:
        """Is a job moving items of the scanned folders (a scan now would see it half
        done)? Freeing the trash is not: it touches only the trash."""
        return self.running and not self._in_trash_only

    def clean(self, suggestions: list[Suggestion], roots: list[str],
              free_now: bool = False) -> None:
        """To the trash; with ``free_now`` deleted from it for good right after."""
        self._start(lambda report: execute(suggestions, roots, progress=report,
                                           free_now=free_now), self.cleaned.emit)

    def purge(self, items: Sequence[PurgeItem]) -> None:
        """Delete these items of mlspace's from the trash for good (mlspace.act.purge)."""
        self._start(lambda report: purge(items), self.freed.emit, in_trash_only=True)

    def expire(self, days: float) -> None:
        """The trash's retention, at start-up: what mlspace moved there ``days`` ago goes."""
        self._start(lambda report: expire(days), self.freed.emit, in_trash_only=True)

    def archive(self, work: Sequence[tuple[Suggestion, str]], roots: list[str],
                tier: Tier) -> None:
        """Apply each suggestion with its action ("archive" or "trash"), see
        mlspace.act.executor.run."""
        self._start(lambda report: run(work, roots, tier, progress=report,
                                       cancel=self._cancel.is_set),
                    self.archived.emit, verb="Archiving", cancellable=True)

    def bring_back(self, path: str, archive_root: str | None) -> None:
        self._start(lambda report: bring_back(path, archive_root, report, self._cancel.is_set),
                    lambda outcome: self.brought_back.emit(path, outcome),
                    verb="Bringing back", cancellable=True)

    def undo(self, cleanup_id: str, beside: bool = False) -> None:
        self.undo_runs([cleanup_id], beside)

    def undo_runs(self, cleanup_ids: list[str], beside: bool = False) -> None:
        """Undo these cleanups, newest first as given; an archived item the trash no longer
        has is copied back from the tier (that is the progress shown)."""
        def work(report: Report) -> object:
            return [r for i in cleanup_ids for r in undo(i, beside=beside, progress=report)]

        self._start(work, lambda results: self.undone.emit(", ".join(cleanup_ids), results),
                    verb="Copying back")

    def cancel(self) -> None:
        """Ask the running copy to stop: the item being copied is rolled back."""
        if self.running and self.cancellable:
            self._cancel.set()

    def wait(self, ms: int = 10_000) -> bool:
        """Let the running job end (the window closes): its thread stops as soon as the job
        returns, without the window's event loop (which is not running then)."""
        if self._thread is None:
            return True
        self._thread.quit()
        return self._thread.wait(ms)

    def _start(self, work: Callable[[Report], object], on_done: Callable[[object], None],
               verb: str = "", cancellable: bool = False, in_trash_only: bool = False) -> None:
        if self.running:
            return
        self._in_trash_only = in_trash_only
        job = _Job(work, throttle=bool(verb))
        if verb:
            job.progress.connect(self._copying)
        else:
            job.progress.connect(self.progress)
        # Bound methods of this object run in the GUI thread (queued); a lambda would run in
        # the worker thread, which cannot wait for itself to stop.
        job.done.connect(self._done)
        job.failed.connect(self._failed)
        self._on_done = on_done
        self._job = job
        self._cancel.clear()
        self.verb, self.cancellable = verb, cancellable
        self._thread = start_in_thread(job)

    def _copying(self, done: int, total: int, path: str) -> None:
        self.copying.emit(self.verb, done, total, path)

    def _done(self, result: object) -> None:
        self._stop()
        self._on_done(result)

    def _failed(self, message: str) -> None:
        self._stop()
        self.failed.emit(message)

    def _stop(self) -> None:
        finish_thread(self._thread)
        self._thread, self._job = None, None
        self.verb, self.cancellable = "", False
        self.idle.emit()


__all__ = ["CleanupController", "CleanupResult"]
