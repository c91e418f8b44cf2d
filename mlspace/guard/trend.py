"""A robust rate from noisy samples: the Theil–Sen estimator (the median of the slopes
between every pair of points), with the spread of those slopes as its range.

A disk's free space falls in steps (a checkpoint lands) between long flat stretches, and
jumps up when something is deleted. A least-squares line is dragged by every step; the
median of pairwise slopes is not, and the quartiles of the same slopes give an honest
range without assuming the noise is Gaussian.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Points used at most: pairs grow as n², and older points say less about now.
MAX_POINTS = 80


@dataclass(frozen=True)
class Rate:
    """Bytes per second, with a range (the quartiles of the pairwise slopes)."""

    mid: float
    low: float
    high: float


def quantile(ordered: Sequence[float], q: float) -> float:
    if not ordered:
        return 0.0
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def theil_sen(points: Sequence[tuple[float, float]]) -> Rate | None:
    """The rate of ``points`` ((time, value), time ascending), or None with fewer than two
    points or no time between them."""
    points = list(points)[-MAX_POINTS:]
    slopes = sorted((y2 - y1) / (t2 - t1)
                    for i, (t1, y1) in enumerate(points) for t2, y2 in points[i + 1:]
                    if t2 > t1)
    if not slopes:
        return None
    return Rate(quantile(slopes, 0.5), quantile(slopes, 0.25), quantile(slopes, 0.75))
