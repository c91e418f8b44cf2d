"""Paints the "% of parent" column as a bar behind its text, as disk tools do."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from mlspace.ui.tree_model import VALUE_ROLE


class ShareBarDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        share = index.data(VALUE_ROLE) or 0.0
        rect: QRect = option.rect.adjusted(2, 3, -2, -3)  # type: ignore[attr-defined]
        color = option.palette.color(QPalette.ColorRole.Highlight)  # type: ignore[attr-defined]
        color.setAlpha(110)
        painter.save()
        painter.fillRect(QRect(rect.x(), rect.y(), int(rect.width() * share / 100),
                               rect.height()), color)
        painter.restore()
        super().paint(painter, option, index)
