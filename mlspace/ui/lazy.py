"""Views that rebuild only when shown: a hidden tab costs nothing on a big workspace."""

from __future__ import annotations

from PySide6.QtGui import QShowEvent


class RefreshWhenShown:
    """Mixin for a QWidget with a ``refresh()``: connect signals to ``mark_stale``; the
    widget rebuilds now if visible, else the next time it is shown."""

    _stale = True

    def mark_stale(self) -> None:
        self._stale = True
        if self.isVisible():  # type: ignore[attr-defined]
            self.refresh()

    def refresh_done(self) -> None:
        """Call at the start of refresh()."""
        self._stale = False

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        if self._stale:
            self.refresh()
        super().showEvent(event)  # type: ignore[misc]

    def refresh(self) -> None:  # pragma: no cover - provided by the widget
        raise NotImplementedError
