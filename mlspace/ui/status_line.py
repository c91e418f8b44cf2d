"""The status bar's line: one line however long its message, cut at the end with "…" where
the window is narrow (a QLabel would cut mid-word at 1024 px, or widen the window), the
whole message on hover, above any details the line was given as its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QToolTip


class StatusLine(QLabel):
    def elided(self) -> str:
        """The text as it fits the line now."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             self.contentsRect().width())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802, ARG002 - Qt's name
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), self.elided())

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.elided() != self.text():
            details = self.toolTip()
            QToolTip.showText(event.globalPos(),  # type: ignore[attr-defined]
                              self.text() + (f"\n\n{details}" if details else ""), self)
            return True
        return super().event(event)
