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


#: The growth scale's ends: shrank (green), unchanged (grey), grew (red).
SHRANK, UNCHANGED, GREW = QColor("#2ca02c"), QColor("#a0a0a0"), QColor("#d62728")


def growth_color(fraction: float) -> QColor:
    """A change on the growth scale: -1 (all of it went) green, 0 grey, +1 (all of it is
    new) red, in between mixed."""
    fraction = max(-1.0, min(1.0, fraction))
    end = GREW if fraction > 0 else SHRANK
    t = abs(fraction)
    return QColor.fromRgbF(*(a + (b - a) * t for a, b in (
        (UNCHANGED.redF(), end.redF()), (UNCHANGED.greenF(), end.greenF()),
        (UNCHANGED.blueF(), end.blueF()))))
