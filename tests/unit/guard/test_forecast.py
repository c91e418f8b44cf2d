"""The forecast's arithmetic: a robust rate that steps and deletions do not drag, a run's
cadence from its own checkpoints, time to full with a range that holds the truth, and
words that never claim more precision than that."""

from __future__ import annotations

from mlspace.guard.cadence import Sighting, cadence
from mlspace.guard.forecast import about, forecast, spread_words, words
from mlspace.guard.samples import Sample, interval, next_sample, other_growth
from mlspace.guard.trend import theil_sen

MIB = 1 << 20


def test_theil_sen_ignores_an_outlier_that_least_squares_would_follow() -> None:
    points = [(float(t), 10.0 * t) for t in range(20)]
    points[10] = (10.0, 1e9)  # one absurd sample
    rate = theil_sen(points)
    assert rate is not None and rate.mid == 10.0 and rate.low <= 10.0 <= rate.high
    assert theil_sen([(0.0, 1.0)]) is None


def test_a_deletion_is_not_a_trend_of_the_disk_emptying() -> None:
    samples: list[Sample] = []
    free = 1000 * MIB
    for t in range(10):
        free -= MIB  # 1 MiB/s written by someone
        if t == 5:
            free += 500 * MIB  # and then a big deletion
        samples.append(next_sample(samples, float(t), free, 0))
    rate = other_growth(samples)
    # least squares would say the disk empties at ~50 MiB/s; what was written in the
    # second of the deletion is hidden by it, so the rate is a little under 1 MiB/s
    assert rate is not None and 0.8 * MIB <= rate.mid <= MIB and rate.high == MIB


def test_run_bytes_are_taken_out_of_the_trend() -> None:
    samples: list[Sample] = []
    for t in range(10):  # the run's checkpoints explain every byte lost
        samples.append(next_sample(samples, float(t), (1000 - 5 * t) * MIB,
                                   5 * MIB if t else 0))
    rate = other_growth(samples)
    assert rate is not None and rate.mid == 0


def _steady(n: int, every: float, size: int, jitter: float = 0.0) -> list[Sighting]:
    return [Sighting(f"ckpt-{i}", i * every + (jitter if i % 2 else 0), size)
            for i in range(n)]


def test_cadence_and_its_range_come_from_the_runs_own_checkpoints() -> None:
    c = cadence(_steady(10, 600.0, 14 << 30, jitter=30.0))
    assert c is not None
    assert c.every.low <= 600 <= c.every.high and c.every.high - c.every.low <= 60
    assert c.size.mid == 14 << 30
    assert c.active(c.last + 600) and not c.active(c.last + 10 * 3600)
    assert cadence(_steady(2, 600.0, 1)) is None  # one interval is no cadence


def test_time_to_full_is_within_its_range_and_the_next_checkpoint_may_not_fit() -> None:
    c = cadence(_steady(10, 100.0, 10 * MIB))
    assert c is not None
    now = c.last + 50
    fc = forecast(35 * MIB, None, {"outputs/bert": c}, now)
    # checkpoints at +50, +150, +250: the fourth (at +350) does not fit
    assert fc.full_in is not None and fc.full_in.mid == 350
    assert fc.full_in.low <= 350 <= fc.full_in.high
    (nxt,) = fc.runs
    assert nxt.fits and nxt.due.mid == 50
    tight = forecast(5 * MIB, None, {"outputs/bert": c}, now)
    assert tight.next_will_not_fit() is not None
    assert "outputs/bert" in words(tight) and "will not fit" in words(tight)


def test_a_stopped_run_does_not_fill_the_disk() -> None:
    c = cadence(_steady(10, 100.0, 10 * MIB))
    assert c is not None
    fc = forecast(35 * MIB, None, {"old": c}, c.last + 3600)
    assert fc.full_in is None and fc.runs == ()


def test_words_round_to_what_can_be_known() -> None:
    assert about(3 * 3600 + 10 * 60 + 20) == "3 h 10 min"
    assert about(40 * 60) == "40 min" and about(30) == "30 s" and about(5 * 86400) == "5 days"
    from mlspace.guard.cadence import Spread

    assert spread_words(Spread(3 * 3600, 2 * 3600, 4 * 3600)) == "about 3 h (2 h–4 h)"
    assert spread_words(Spread(600, 600, 600)) == "about 10 min"


def test_the_guard_looks_more_often_when_the_disk_may_fill_soon() -> None:
    assert interval(None, None, 40) == 600
    assert interval(600, None, 40) == 60
    assert interval(None, 30, 40) == 15
    assert interval(None, None, 97) == 5
