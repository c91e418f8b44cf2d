"""Category colours as Qt colours, from the one place categories are defined."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QColor

from mlspace.classify import Category


@cache
def category_color(category: Category) -> QColor:
    return QColor(category.info.color)


def _luminance(color: QColor) -> float:
    """Relative luminance (WCAG 2), from 0 (black) to 1 (white)."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.red()) + 0.7152 * channel(color.green()) + \
        0.0722 * channel(color.blue())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio, 1 (none) to 21 (black on white)."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


#: The contrast a category's name needs as text (the Caches yellow has 1.5 on white).
TEXT_CONTRAST = 4.5


def category_text_color(category: Category, *backgrounds: QColor) -> QColor:
    """The category's colour, darkened on light backgrounds (lightened on dark ones) until
    its name reads as text on each (a view's rows alternate two): the same hue as its
    bars, not a pale yellow on white."""
    return _text_color(category, tuple(b.rgba() for b in backgrounds))


@cache  # asked for every row painted
def _text_color(category: Category, backgrounds_rgba: tuple[int, ...]) -> QColor:
    backgrounds = [QColor.fromRgba(rgba) for rgba in backgrounds_rgba]
    color = category_color(category)
    light = sum(map(_luminance, backgrounds)) / len(backgrounds) > 0.5
    for _ in range(20):
        if all(contrast(color, b) >= TEXT_CONTRAST for b in backgrounds):
            break
        color = color.darker(115) if light else color.lighter(115)
    return color


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
