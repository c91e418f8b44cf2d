"""Words a person reads: plurals agree with their number, ages are rounded in a sensible
unit (17 days is not "a month"), and "just now" never becomes "just now ago"."""

from __future__ import annotations

import pytest

from mlspace import fmt

DAY = 86400


@pytest.mark.parametrize(("n", "text"), [(0, "0 items"), (1, "1 item"), (2, "2 items"),
                                         (12345, "12,345 items")])
def test_plural_agrees_with_the_number(n: int, text: str) -> None:
    assert fmt.plural(n, "item") == text


def test_plural_takes_an_irregular_form() -> None:
    assert fmt.plural(1, "exact copy", "exact copies") == "1 exact copy"
    assert fmt.plural(3, "exact copy", "exact copies") == "3 exact copies"


@pytest.mark.parametrize(("seconds", "text"), [
    (5, "just now"), (90, "2 minutes"), (3 * 3600, "3 hours"), (1.4 * DAY, "1 day"),
    (17 * DAY, "17 days"), (17.5 * DAY, "18 days"), (59 * DAY, "59 days"),
    (61 * DAY, "2 months"), (400 * DAY, "13 months"), (800 * DAY, "2 years"),
])
def test_ages_are_rounded_in_a_sensible_unit(seconds: float, text: str) -> None:
    assert fmt.age(seconds) == text


def test_ago_never_says_just_now_ago() -> None:
    assert fmt.ago(10) == "just now"
    assert fmt.ago(17 * DAY) == "17 days ago"
