"""How right is the guard's time-to-full? Synthetic traces of a 2 TiB scratch disk, fed to
the guard's own engine (samples, trend, cadences, forecast) as it would see them: a sample
every 5 minutes, each checkpoint seen at the sample after it lands. At every hour before
the disk really fills, the forecast's middle is compared with the truth.

Traces: steady (one run, 40 GiB every 30 min, ±5% jitter), bursts (a run plus other
writers dumping 50-150 GiB at random), a run that stops (two thirds of the way, the rest
of the disk then fills slowly), two runs on one disk (different cadences and sizes), and a
disk shared with other writers (a noisy steady stream, with deletions, beside a run).

Prints per trace: the median and 90th percentile of |predicted - true| / true, and how
often the truth fell inside the printed range. Run: python benchmarks/bench_guard_forecast.py
"""

from __future__ import annotations

import random
import statistics

from mlspace.guard.cadence import Sighting, cadence
from mlspace.guard.forecast import forecast
from mlspace.guard.samples import Sample, keep, next_sample, other_growth

GIB = 1 << 30
SIZE = 2 << 40
STEP = 300.0  # seconds between samples


def _run(rng: random.Random, name: str, every: float, size: float, start: float = 0.0,
         stop: float = 1e12) -> list[tuple[float, int, str]]:
    out, t = [], start + every
    while t < min(stop, 30 * 86400):
        out.append((t, int(size * rng.uniform(0.95, 1.05)), name))
        t += every * rng.uniform(0.95, 1.05)
    return out


def _other(rng: random.Random, rate: float, noise: float = 0.3, deletions: bool = False,
           bursts: bool = False) -> list[tuple[float, int, str]]:
    out, t = [], 0.0
    while t < 30 * 86400:
        t += STEP
        n = int(rate * STEP * max(0.0, rng.gauss(1, noise)))
        if deletions and rng.random() < 0.02:
            n -= int(rng.uniform(5, 30) * GIB)
        if bursts and rng.random() < 0.01:
            n += int(rng.uniform(50, 150) * GIB)
        out.append((t, n, ""))
    return out


TRACES = {
    "steady": lambda r: _run(r, "a", 1800, 40 * GIB),
    "bursts": lambda r: _run(r, "a", 1800, 40 * GIB) + _other(r, 0, bursts=True),
    "run stops": lambda r: _run(r, "a", 1800, 40 * GIB, stop=24 * 3600) +
    _other(r, 2 * GIB / 3600),
    "two runs": lambda r: _run(r, "a", 1800, 40 * GIB) + _run(r, "b", 3000, 25 * GIB, 900),
    "shared disk": lambda r: _run(r, "a", 1800, 40 * GIB) +
    _other(r, 20 * GIB / 3600, noise=0.8, deletions=True),
}


def evaluate(name: str, seed: int = 1) -> tuple[list[float], float, int]:
    rng = random.Random(seed)
    events = sorted(TRACES[name](rng))
    free0 = int(SIZE * 0.5)
    # the truth: when free space first runs out
    free, full_at = free0, None
    for t, n, _ in events:
        free -= n
        if free <= 0:
            full_at = t
            break
    assert full_at is not None, name
    samples: list[Sample] = []
    seen: dict[str, list[Sighting]] = {}
    errors, inside, asked = [], 0, 0
    i, free, t = 0, free0, 0.0
    while t < full_at - STEP:
        t += STEP
        by_runs = 0
        while i < len(events) and events[i][0] <= t:
            when, n, run = events[i]
            free -= n
            if run:
                seen.setdefault(run, []).append(Sighting(f"{run}{i}", when, n))
                by_runs += n
            i += 1
        samples = keep([*samples, next_sample(samples, t, free, by_runs)])
        if int(t) % 3600 or t < 3 * 3600:
            continue
        cads = {r: c for r, s in seen.items() if (c := cadence(s)) is not None}
        fc = forecast(free, other_growth(samples), cads, t)
        truth = full_at - t
        asked += 1
        if fc.full_in is None:
            errors.append(1.0)
            continue
        errors.append(abs(fc.full_in.mid - truth) / truth)
        inside += fc.full_in.low <= truth <= fc.full_in.high
    return errors, inside / max(asked, 1), asked


def main() -> None:
    print(f"{'trace':<12} {'forecasts':>9} {'median err':>10} {'p90 err':>8} "
          f"{'truth in range':>14}")
    for name in TRACES:
        errs: list[float] = []
        cover, asked = 0.0, 0
        for seed in range(5):
            e, c, a = evaluate(name, seed)
            errs += e
            cover += c * a
            asked += a
        errs.sort()
        p90 = errs[int(0.9 * (len(errs) - 1))]
        print(f"{name:<12} {asked:>9} {statistics.median(errs):>9.1%} {p90:>8.1%} "
              f"{cover / asked:>13.0%}")


if __name__ == "__main__":
    main()
