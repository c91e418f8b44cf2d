"""Views that rebuild only when shown: a hidden tab costs nothing on a big workspace. A
shown one rebuilds on a turn of the event loop of its own (the workspace's redraw queue,
see mlspace.ui.redraws), once however many changes asked for it meanwhile."""

from __future__ import annotations

from PySide6.QtGui import QShowEvent


class RefreshWhenShown:
    """Mixin for a QWidget with a ``refresh()`` and a workspace ``ws``: connect signals to
    ``mark_stale``; the widget rebuilds soon if visible, else the next time it is shown."""

    _stale = True

    def mark_stale(self) -> None:
        self._stale = True
        if self.isVisible():  # type: ignore[attr-defined]
            redraws = self.ws.redraws  # type: ignore[attr-defined]
            redraws.later(self._prepare_if_stale)
            redraws.later(self._refresh_if_stale)

    def prepare(self) -> None:
        """What refresh() will read and can be made on a turn of its own before (a table
        the workspace caches); nothing by default."""

    def _prepare_if_stale(self) -> None:
        if self._stale and self.isVisible():  # type: ignore[attr-defined]
            self.prepare()

    def _refresh_if_stale(self) -> None:
        if self._stale and self.isVisible():  # type: ignore[attr-defined]
            self.refresh()

    def refresh_done(self) -> None:
        """Call at the start of refresh()."""
        self._stale = False

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        """Shown stale: brought up to date before it is painted, when that is a matter of
        a few rows; a view that would make every row anew (another scan came meanwhile, a
        thousand runs) is emptied now and filled on the next turns, so the window that
        shows a scan's result does not wait for it, and no row of the old scan shows."""
        super().showEvent(event)  # type: ignore[misc]
        if not self._stale:
            return
        if self.rebuilds():
            self.blank()
            self.mark_stale()
        else:
            self.refresh()

    def rebuilds(self) -> bool:
        """Would refresh() make every row anew (not keep and update those shown)?"""
        return False

    def blank(self) -> None:
        """Show nothing until refresh() (what is shown belongs to another scan)."""

    def refresh(self) -> None:  # pragma: no cover - provided by the widget
        raise NotImplementedError
