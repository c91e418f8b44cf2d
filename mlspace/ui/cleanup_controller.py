"""Runs cleanups and undos in a worker thread; the GUI follows through signals."""

from __future__ import annotations

import traceback
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal

from mlspace.act import CleanupResult, JournalUnavailable, execute, undo
from mlspace.advise import Suggestion
from mlspace.ui.threads import finish_thread, start_in_thread


class _Job(QObject):
    progress = Signal(int, int, str)
    done = Signal(object)
    failed = Signal(str)

    def __init__(self, work: Callable[[Callable[[int, int, str], None]], object]) -> None:
        super().__init__()
        self.work = work

    def run(self) -> None:
        try:
            self.done.emit(self.work(self.progress.emit))
        except JournalUnavailable as err:  # a message for the user, not a bug report
            self.failed.emit(f"{err}. Nothing was moved.")
        except Exception:
            self.failed.emit(traceback.format_exc(limit=3))


class CleanupController(QObject):
    progress = Signal(int, int, str)
    cleaned = Signal(object)  # CleanupResult
    undone = Signal(str, object)  # cleanup id, [RestoreOutcome]
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._job: _Job | None = None
        self._on_done: Callable[[object], None] = lambda _: None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def clean(self, suggestions: list[Suggestion], roots: list[str]) -> None:
        self._start(lambda report: execute(suggestions, roots, progress=report),
                    self.cleaned.emit)

    def undo(self, cleanup_id: str, beside: bool = False) -> None:
        self._start(lambda report: undo(cleanup_id, beside=beside),
                    lambda results: self.undone.emit(cleanup_id, results))

    def wait(self, ms: int = 10_000) -> bool:
        return self._thread.wait(ms) if self._thread is not None else True

    def _start(self, work: Callable[[Callable[[int, int, str], None]], object],
               on_done: Callable[[object], None]) -> None:
        if self.running:
            return
        job = _Job(work)
        job.progress.connect(self.progress)
        # Bound methods of this object run in the GUI thread (queued); a lambda would run in
        # the worker thread, which cannot wait for itself to stop.
        job.done.connect(self._done)
        job.failed.connect(self._failed)
        self._on_done = on_done
        self._job = job
        self._thread = start_in_thread(job)

    def _done(self, result: object) -> None:
        self._stop()
        self._on_done(result)

    def _failed(self, message: str) -> None:
        self._stop()
        self.failed.emit(message)

    def _stop(self) -> None:
        finish_thread(self._thread)
        self._thread, self._job = None, None


__all__ = ["CleanupController", "CleanupResult"]
