"""Running one job object in a QThread, the way both controllers (scan, cleanup) do, and
Background, which runs plain function calls that way (the Growth tab's reads)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal


def start_in_thread(job: QObject, entry: str = "run") -> QThread:
    """Move ``job`` to a new thread and call ``job.<entry>()`` there."""
    thread = QThread()
    job.moveToThread(thread)
    thread.started.connect(getattr(job, entry))
    thread.start()
    return thread


def finish_thread(thread: QThread | None) -> None:
    """Stop a job's thread once its job returned; call from the GUI thread."""
    if thread is not None:
        thread.quit()
        thread.wait()
        thread.deleteLater()


class _Call(QObject):
    """One function call in a worker thread: its result or its error comes back."""

    returned = Signal(object)
    raised = Signal(str)

    def __init__(self, work: Callable[[], object]) -> None:
        super().__init__()
        self.work = work

    def run(self) -> None:
        try:
            self.returned.emit(self.work())
        except Exception as err:  # a message for the caller, never a crash of the app
            self.raised.emit(f"{type(err).__name__}: {err}")


class Background(QObject):
    """Runs one function at a time in a worker thread and hands its result to a callback
    in the GUI thread. Asked again while one runs, the newest request waits for it and any
    request in between is dropped, as is the running one's result: only the latest answer
    is wanted (the history of the folder shown now, the point clicked last)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._call: _Call | None = None
        self._callbacks: tuple[Callable[[object], None], Callable[[str], None]] | None = None
        self._next: tuple[Callable[[], object], Callable[[object], None],
                          Callable[[str], None]] | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def run(self, work: Callable[[], object], on_done: Callable[[object], None],
            on_failed: Callable[[str], None]) -> None:
        if self.running:
            self._next = (work, on_done, on_failed)
            return
        call = _Call(work)
        # Bound methods of this object: they run in the GUI thread (queued).
        call.returned.connect(self._returned)
        call.raised.connect(self._raised)
        self._call, self._callbacks = call, (on_done, on_failed)
        self._thread = start_in_thread(call)

    def wait(self) -> None:
        """The window closes: let the running call finish, and drop its result and what
        waits. (Its thread runs an event loop once the call returns, which only quit()
        ends: waiting without it would wait for ever.)"""
        self._next = None
        if self._call is not None:
            self._call.returned.disconnect()
            self._call.raised.disconnect()
        finish_thread(self._thread)
        self._thread, self._call, self._callbacks = None, None, None

    def _returned(self, result: object) -> None:
        on_done = self._finish()
        if on_done is not None:
            on_done[0](result)

    def _raised(self, message: str) -> None:
        on_failed = self._finish()
        if on_failed is not None:
            on_failed[1](message)

    def _finish(self) -> tuple[Callable[[object], None], Callable[[str], None]] | None:
        """Stop the worker; the callbacks to call, None when a newer request replaces this
        one (it starts now)."""
        finish_thread(self._thread)
        callbacks = self._callbacks
        self._thread, self._call, self._callbacks = None, None, None
        if self._next is None:
            return callbacks
        pending, self._next = self._next, None
        self.run(*pending)
        return None
