"""Questions to a disk that may never answer, asked off the GUI thread.

Why: the cold tier is often a network mount. A ``stat`` of a hard NFS mount whose server is
gone blocks until the server returns, which may be never; asked on the GUI thread, that froze
the window. Here the question runs in a daemon thread: the window says it is waiting, says so
plainly once PATIENCE has passed, and takes the answer whenever it comes. A thread stuck in
the kernel is abandoned, never waited for: not when the dialog closes, not when the app quits
(a QThread could not be left like that).

Answers come back through one relay object that lives as long as the application, so a thread
that returns after its dialog is gone emits into something alive; the answer is then dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

#: Seconds to wait before saying that the disk does not answer (the answer is still taken).
PATIENCE = 3.0

Work = Callable[[], object]


class _Relay(QObject):
    """Carries an answer from a question's thread to the GUI thread (queued)."""

    answered = Signal(object, object)  # deliver(answer), answer

    def __init__(self) -> None:
        super().__init__()
        self.answered.connect(lambda deliver, answer: deliver(answer))


_relay: _Relay | None = None


def _the_relay() -> _Relay:
    """The relay, made on first use in the GUI thread (where it then lives)."""
    global _relay
    if _relay is None:
        _relay = _Relay()
    return _relay


class DiskQuestion(QObject):
    """Asks one question at a time: a newer one supersedes the one before (its answer is
    dropped). ``work``'s result is the answer; an exception it raises becomes its message
    (a str)."""

    def __init__(self, parent: QObject, patience: float | None = None) -> None:
        super().__init__(parent)
        self.patience = PATIENCE if patience is None else patience
        self._asked = 0
        self._waiting = False
        self._on_silent: Callable[[], None] = lambda: None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._silent)
        _the_relay()

    @property
    def waiting(self) -> bool:
        return self._waiting

    def ask(self, work: Work, on_answer: Callable[[object], None],
            on_silent: Callable[[], None]) -> None:
        self._asked += 1
        asked, relay = self._asked, _the_relay()
        self._waiting = True
        self._on_silent = on_silent

        def deliver(answer: object) -> None:
            if not shiboken6.isValid(self) or asked != self._asked:
                return  # superseded, forgotten, or its dialog is gone
            self._waiting = False
            self._timer.stop()
            on_answer(answer)

        def run() -> None:
            try:
                answer = work()
            except Exception as err:  # a message for the window, never a crash of the app
                answer = str(err) or type(err).__name__
            relay.answered.emit(deliver, answer)

        threading.Thread(target=run, name="mlspace-disk-question", daemon=True).start()
        self._timer.start(round(self.patience * 1000))

    def forget(self) -> None:
        """Drop the answer still awaited (the user was told the disk does not answer)."""
        self._asked += 1
        self._waiting = False
        self._timer.stop()

    def _silent(self) -> None:
        if self._waiting:
            self._on_silent()
