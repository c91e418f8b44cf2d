"""Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): rectangles whose areas are
proportional to sizes and whose aspect ratios stay close to 1. Pure geometry, no Qt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Rect(NamedTuple):
    """A rectangle (a named tuple: a treemap makes thousands at every layout, and a tuple
    is made several times faster than a frozen dataclass)."""

    x: float
    y: float
    w: float
    h: float


def squarify(sizes: Sequence[float], rect: Rect, min_area: float = 0.0) -> list[Rect]:
    """One rectangle per size (same order), filling ``rect``. Sizes must be sorted largest
    first for the best aspect ratios. Zero sizes, and with ``min_area`` the tail of sizes
    whose tiles would be smaller than that, get an empty rectangle (their space is left
    blank), so a folder of a million files lays out in time proportional to the pixels."""
    total = sum(s for s in sizes if s > 0)
    out = [Rect(rect.x, rect.y, 0.0, 0.0)] * len(sizes)  # one empty rectangle, shared
    if total <= 0 or rect.w <= 0 or rect.h <= 0:
        return out
    scale = rect.w * rect.h / total
    smallest = max(min_area, 0.0)
    items = [(i, s * scale) for i, s in enumerate(sizes) if s * scale > smallest and s > 0]
    x, y, w, h = rect.x, rect.y, rect.w, rect.h
    start = 0
    while start < len(items):
        side = min(w, h)
        end = start + 1
        area = biggest = smallest = items[start][1]
        worst = _worst(area, biggest, smallest, side)
        while end < len(items):
            a = items[end][1]
            candidate = _worst(area + a, max(biggest, a), min(smallest, a), side)
            if candidate > worst:
                break
            area, biggest, smallest, worst = area + a, max(biggest, a), min(smallest, a), \
                candidate
            end += 1
        x, y, w, h = _lay_row(items[start:end], area, x, y, w, h, out)
        start = end
    return out


def _worst(area: float, biggest: float, smallest: float, side: float) -> float:
    """The worst aspect ratio of a row with this total area along ``side``."""
    if area <= 0 or side <= 0 or smallest <= 0:
        return float("inf")
    return max(side * side * biggest / (area * area), area * area / (side * side * smallest))


def _lay_row(row: list[tuple[int, float]], area: float, x: float, y: float, w: float,
             h: float, out: list[Rect]) -> tuple[float, float, float, float]:
    """Place a row along the shorter side; return the space that remains. A column on the
    left when the space is wider than tall, else a row along the top: the same placement
    with the axes swapped."""
    across = w >= h  # a column on the left
    along, start, side = (h, y, x) if across else (w, x, y)
    thickness = area / along if along else 0.0
    offset = start
    for i, a in row:
        length = a / thickness if thickness else 0.0
        out[i] = Rect(side, offset, thickness, length) if across else \
            Rect(offset, side, length, thickness)
        offset += length
    if across:
        return x + thickness, y, w - thickness, h
    return x, y + thickness, w, h - thickness
