"""Category colours as Qt colours, from the one place categories are defined."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QColor

from mlspace.classify import Category


@cache
def category_color(category: Category) -> QColor:
    return QColor(category.info.color)


def text_color_on(background: QColor) -> QColor:
    """Black or white, whichever reads better on ``background``."""
    luminance = 0.299 * background.red() + 0.587 * background.green() + 0.114 * background.blue()
    return QColor("#111111") if luminance > 150 else QColor("#ffffff")
