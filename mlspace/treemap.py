"""Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): rectangles whose areas are
proportional to sizes and whose aspect ratios stay close to 1. Pure geometry, no Qt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float


def squarify(sizes: Sequence[float], rect: Rect) -> list[Rect]:
    """One rectangle per size (same order), filling ``rect``. Sizes must be sorted largest
    first for the best aspect ratios; zero or negative sizes get an empty rectangle."""
    total = sum(s for s in sizes if s > 0)
    out = [Rect(rect.x, rect.y, 0.0, 0.0) for _ in sizes]
    if total <= 0 or rect.w <= 0 or rect.h <= 0:
        return out
    scale = rect.w * rect.h / total
    items = [(i, s * scale) for i, s in enumerate(sizes) if s > 0]
    x, y, w, h = rect.x, rect.y, rect.w, rect.h
    row: list[tuple[int, float]] = []
    while items:
        side = min(w, h)
        candidate = [*row, items[0]]
        if not row or _worst(candidate, side) <= _worst(row, side):
            row = candidate
            items.pop(0)
            continue
        x, y, w, h = _lay_row(row, x, y, w, h, out)
        row = []
    if row:
        _lay_row(row, x, y, w, h, out)
    return out


def _worst(row: list[tuple[int, float]], side: float) -> float:
    area = sum(a for _, a in row)
    if area <= 0 or side <= 0:
        return float("inf")
    biggest, smallest = max(a for _, a in row), min(a for _, a in row)
    return max(side * side * biggest / (area * area), area * area / (side * side * smallest))


def _lay_row(row: list[tuple[int, float]], x: float, y: float, w: float, h: float,
             out: list[Rect]) -> tuple[float, float, float, float]:
    """Place a row along the shorter side; return the space that remains."""
    area = sum(a for _, a in row)
    if w >= h:  # column on the left
        thickness = area / h if h else 0.0
        offset = y
        for i, a in row:
            length = a / thickness if thickness else 0.0
            out[i] = Rect(x, offset, thickness, length)
            offset += length
        return x + thickness, y, w - thickness, h
    thickness = area / w if w else 0.0
    offset = x
    for i, a in row:
        length = a / thickness if thickness else 0.0
        out[i] = Rect(offset, y, length, thickness)
        offset += length
    return x, y + thickness, w, h - thickness
