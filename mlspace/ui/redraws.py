"""Redraws that a change of the workspace asks for, one per turn of the event loop.

A scan shown, a cleanup, an undo or a filter changes what several views show at once. With
every view redrawing as the signal arrived, their costs added up in one turn of the event
loop (70 to 125 ms on a million entries, the window frozen meanwhile). Queued here, each
view redraws on a turn of its own, a few milliseconds after the one before: the window
paints what that one changed, and whatever else fell due meanwhile (input, other timers)
runs, before the next starts. So no stretch without the event loop takes much longer than
the slowest single view. Once the queue is empty every view shows the workspace as it is
(each redraw reads the workspace when it runs, never a copy made when it was asked).

A view asked again before it redrew redraws once, in its first place in the queue. Work that
starts a thread (reading the history of the folders shown) waits until the views are drawn:
the thread would take the GIL from the GUI thread, and every redraw's turn would take longer.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

#: Milliseconds from the end of one redraw to the start of the next. Timers due together fire
#: in the order they fell due: with a zero delay the next redraw came before the timers that
#: fell due while the last one ran, and two long ones shared a stretch. Six views redraw in
#: about a tenth of a second.
BREATH = 10


class Redraws(QObject):
    """The queue of one workspace's views (see the module)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: dict[Callable[[], None], None] = {}  # in the order first asked
        self._once_drawn: dict[Callable[[], None], None] = {}  # after the whole queue
        self._turn = QTimer(self, singleShot=True, interval=BREATH)
        self._turn.timeout.connect(self._run_next)

    @property
    def pending(self) -> bool:
        """Is a view still to redraw what a change asked (or work to start after)?"""
        return bool(self._queue or self._once_drawn)

    def later(self, redraw: Callable[[], None]) -> None:
        """Call ``redraw`` on a later turn of the event loop (once, however often asked
        before then)."""
        self._queue.setdefault(redraw, None)
        self._next_turn()

    def once_drawn(self, work: Callable[[], None]) -> None:
        """Call ``work`` on a turn of its own once every redraw is done, those asked after
        it included."""
        self._once_drawn.setdefault(work, None)
        self._next_turn()

    def drop(self) -> None:
        """Forget every redraw and work waiting (the window closes)."""
        self._turn.stop()
        self._queue.clear()
        self._once_drawn.clear()

    def _next_turn(self) -> None:
        if not self._turn.isActive():
            self._turn.start()

    def _run_next(self) -> None:
        queue = self._queue or self._once_drawn
        if not queue:
            return
        work = next(iter(queue))
        del queue[work]
        try:
            work()
        finally:
            if self.pending:
                self._turn.start()
