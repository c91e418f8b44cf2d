"""A run's rhythm, from its own history: how often it writes a checkpoint and how big one
is, each with a range, and whether it still runs.

The checkpoints a run already wrote (their times and sizes, as the saved index or a light
rescan saw them) are the best forecast of the next one: training scripts save every N
steps, and a step takes about as long each time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mlspace.guard.trend import quantile

#: Checkpoints of a run remembered (the recent ones tell the cadence).
KEEP = 24
#: A run that wrote nothing for this many of its intervals has stopped.
STOPPED_AFTER = 3.0


@dataclass(frozen=True)
class Sighting:
    """One checkpoint of a run: when it was written, and what it takes on the disk."""

    name: str
    mtime: float
    size: int


@dataclass(frozen=True)
class Spread:
    mid: float
    low: float
    high: float


@dataclass(frozen=True)
class Cadence:
    """Every how many seconds a run writes a checkpoint of about how many bytes."""

    every: Spread  # seconds between checkpoints
    size: Spread  # bytes per checkpoint
    last: float  # when the newest was written

    def active(self, now: float) -> bool:
        return now - self.last <= STOPPED_AFTER * max(self.every.high, 1.0)

    def next_due(self, now: float) -> Spread:
        """Seconds until the next checkpoint lands (0: it is due now, or overdue)."""
        return Spread(*(max(self.last + gap - now, 0.0)
                        for gap in (self.every.mid, self.every.low, self.every.high)))


def _spread(values: Sequence[float]) -> Spread:
    ordered = sorted(values)
    # with few values the quartiles are the values themselves: the range is min..max
    q = 0.25 if len(ordered) >= 8 else 0.0
    return Spread(quantile(ordered, 0.5), quantile(ordered, q), quantile(ordered, 1 - q))


def cadence(sightings: Sequence[Sighting]) -> Cadence | None:
    """The run's cadence, from at least three checkpoints (two intervals); None before."""
    seen = sorted(sightings, key=lambda s: s.mtime)[-KEEP:]
    gaps = [b.mtime - a.mtime for a, b in zip(seen, seen[1:], strict=False) if b.mtime > a.mtime]
    if len(gaps) < 2:
        return None
    return Cadence(_spread(gaps), _spread([float(s.size) for s in seen]), seen[-1].mtime)
