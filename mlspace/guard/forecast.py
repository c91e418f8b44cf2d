"""The forecast for one filesystem: when it fills, and whether each active run's next
checkpoint will fit, each with a range — never a single number that pretends to know.

The growth is two parts. Each active run writes checkpoints at its own cadence
(:mod:`mlspace.guard.cadence`); everything else on the disk (other users, logs, caches) is
a robust trend (:mod:`mlspace.guard.trend`) of what the free space lost that no known
checkpoint explains. The time to full is found by stepping through the checkpoints due,
the trend filling linearly between them, three times: with the middle of every range, and
with the ends that fill soonest and latest. That range is what "about 3 h (2–4 h)" says.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mlspace import fmt
from mlspace.guard.cadence import Cadence, Spread
from mlspace.guard.trend import Rate

#: How far ahead the forecast looks: a disk that fills later than this is "not soon".
HORIZON = 30 * 86400.0
#: Checkpoints stepped through at most; past them the average rate carries on (cost stays
#: flat with many runs or a fast cadence).
_MAX_EVENTS = 1000


@dataclass(frozen=True)
class NextCheckpoint:
    """An active run's next checkpoint: about how big, due in about how long, and whether
    it fits in what will be free then."""

    run: str
    size: Spread
    due: Spread  # seconds from now
    fits: bool


@dataclass(frozen=True)
class Forecast:
    available: int  # what the user may still write now
    full_in: Spread | None  # seconds until full; None: not within HORIZON at these rates
    earliest: float | None  # the soonest it may fill (the pessimistic ends of every range)
    other: Rate | None  # the trend of everything but the known runs (bytes/s filled)
    runs: tuple[NextCheckpoint, ...] = ()

    def next_will_not_fit(self) -> NextCheckpoint | None:
        return next((n for n in self.runs if not n.fits), None)


def _time_to_full(available: float, other: float,
                  runs: Sequence[tuple[float, float, float]]) -> float | None:
    """Seconds until ``available`` bytes are gone, with ``other`` bytes/s written all the
    time and each run (first due, every, size) landing a checkpoint on time; the disk is
    full when a checkpoint does not fit (its write would fail there)."""
    free, t = float(available), 0.0
    if free <= 0:
        return 0.0
    due = [(first, n) for n, (first, _, _) in enumerate(runs)]
    heapq.heapify(due)
    for _ in range(_MAX_EVENTS):
        if not due or due[0][0] > HORIZON:
            break
        when, n = heapq.heappop(due)
        if other > 0 and free - other * (when - t) <= 0:
            return t + free / other
        free -= other * (when - t)
        t = when
        size = runs[n][2]
        if size > free:
            return t
        free -= size
        heapq.heappush(due, (when + max(runs[n][1], 1.0), n))
    rate = other + sum(size / max(every, 1.0) for _, every, size in runs)
    if rate <= 0:
        return None
    end = t + free / rate
    return end if end <= HORIZON else None


def forecast(available: int, other: Rate | None, cadences: Mapping[str, Cadence],
             now: float) -> Forecast:
    """The forecast from the free space now, the trend of the rest of the disk, and the
    runs' cadences (only runs still writing count)."""
    active = {run: c for run, c in cadences.items() if c.active(now)}
    rate = other or Rate(0.0, 0.0, 0.0)
    trend = (max(rate.mid, 0.0), max(rate.high, 0.0), max(rate.low, 0.0))

    def scenario(pick: int) -> float | None:
        runs = []
        for c in active.values():
            every = (c.every.mid, c.every.low, c.every.high)[pick]
            size = (c.size.mid, c.size.high, c.size.low)[pick]
            runs.append((max(c.last + every - now, 0.0), every, size))
        return _time_to_full(available, trend[pick], runs)

    mid, soon, late = scenario(0), scenario(1), scenario(2)
    full_in = None if mid is None else Spread(mid, soon if soon is not None else mid,
                                              late if late is not None else HORIZON)
    nexts = []
    for run, c in sorted(active.items()):
        due = c.next_due(now)
        before = sum(o.size.mid for r, o in active.items() if r != run and
                     o.next_due(now).mid < due.mid)
        room = available - trend[0] * due.mid - before
        nexts.append(NextCheckpoint(run, c.size, due, c.size.high <= room))
    return Forecast(available, full_in, soon, other, tuple(nexts))


# -------------------------------------------------------------------------------- words
def about(seconds: float) -> str:
    """A duration as a person would say it, rounded to what the forecast can know:
    '40 s', '12 min', '3 h 10 min', '3 h', '2 days'."""
    if seconds < 90:
        return f"{max(round(seconds), 0)} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    if seconds < 10 * 3600:
        hours, minutes = divmod(round(seconds / 600) * 10, 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if seconds < 2 * 86400:
        return f"{round(seconds / 3600)} h"
    return f"{round(seconds / 86400)} days"


def spread_words(spread: Spread) -> str:
    """'about 3 h (2 h 10 min–4 h)', or 'about 3 h' when the range rounds to it."""
    mid, low, high = about(spread.mid), about(spread.low), about(spread.high)
    if low == high == mid:
        return f"about {mid}"
    return f"about {mid} ({low}–{high if spread.high < HORIZON else 'later'})"


def words(fc: Forecast) -> str:
    """The forecast in one line: 'fills in about 3 h (2–4 h) at the current rate'."""
    if fc.full_in is None:
        head = "not filling at the current rate" if fc.other is not None or fc.runs else \
            "watching (not enough samples yet for a forecast)"
    else:
        head = f"fills in {spread_words(fc.full_in)} at the current rate"
    late = fc.next_will_not_fit()
    if late is not None:
        head += (f"; the next checkpoint of {late.run} (about {fmt.size(late.size.mid)}) is "
                 f"due in {spread_words(late.due)} and will not fit")
    return head
