"""Free space over time, per filesystem, and how soon to look again.

Each sample keeps what the user may still write, and two running totals: what the disk
*lost* since the guard started (drops of free space only: space given back, by the guard or
anyone, is not taken as a trend of the disk emptying, so the forecast errs early, never
late) and how much of that the known runs' new checkpoints explain. Their difference is the
rest of the disk's growth, whose trend :mod:`mlspace.guard.trend` finds.

A disk far from full is looked at rarely (every few minutes costs nothing measurable); one
that may fill soon, often, and always before a run's next checkpoint is due.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mlspace.guard.trend import MAX_POINTS, Rate, theil_sen

#: Bounds of the time between two rounds (seconds).
OFTEN, RARELY = 5.0, 600.0


@dataclass(frozen=True)
class Sample:
    time: float
    available: int
    lost: int  # running total of free space lost
    by_runs: int  # running total of the known runs' new checkpoints

    def as_row(self) -> list[float]:
        return [self.time, self.available, self.lost, self.by_runs]


def next_sample(samples: Sequence[Sample], now: float, available: int,
                new_run_bytes: int) -> Sample:
    """The sample after ``samples``: the running totals carried on."""
    if not samples:
        return Sample(now, available, 0, 0)
    last = samples[-1]
    return Sample(now, available, last.lost + max(last.available - available, 0),
                  last.by_runs + new_run_bytes)


def keep(samples: Sequence[Sample]) -> list[Sample]:
    """The samples worth keeping: the newest MAX_POINTS (memory stays flat)."""
    return list(samples[-MAX_POINTS:])


def other_growth(samples: Sequence[Sample]) -> Rate | None:
    """The trend of what the disk lost that the known runs' checkpoints do not explain,
    in bytes per second (filling is positive); None with fewer than two samples."""
    return theil_sen([(s.time, float(s.lost - s.by_runs)) for s in samples])


def interval(soonest_full: float | None, next_due: float | None, percent_full: float) -> float:
    """Seconds until the next round: a tenth of the soonest time to full, and before the
    next checkpoint is due; OFTEN above 95% full, at most RARELY."""
    wait = RARELY
    if soonest_full is not None:
        wait = min(wait, soonest_full / 10)
    if next_due is not None:
        wait = min(wait, max(next_due / 2, OFTEN))
    if percent_full >= 95:
        wait = OFTEN
    return max(OFTEN, wait)
