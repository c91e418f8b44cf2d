"""After a cleanup, the suggestions that still stand: the indexed answer the app uses equals
the rule spelled out path by path, for any set of trashed paths."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlspace.advise import Plan, advise
from mlspace.advise.standing import StandingIndex
from mlspace.classify import classify, load_rules
from mlspace.demo import generate
from mlspace.paths import within
from mlspace.scan import scan


def falls(suggestion: object, gone: set[str]) -> bool:
    """The rule, written the slow and obvious way."""
    holding = set()
    for path in gone:
        while os.path.dirname(path) != path:
            path = os.path.dirname(path)
            holding.add(path)
    return (any(within(p, gone) or p in holding for p in suggestion.paths)  # type: ignore[attr-defined]
            or any(within(k.path, gone) for k in suggestion.kept))  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def demo_plan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, list[str]]:
    root = generate(tmp_path_factory.mktemp("standing") / "ws")
    inv = classify(scan([root]), load_rules().compile())
    plan = advise(inv)
    snap = inv.snapshot
    return plan, [snap.path(e) for e in range(len(snap))]


def test_the_demo_plan_names_and_keeps_paths(demo_plan: tuple[Plan, list[str]]) -> None:
    plan, _ = demo_plan
    assert len(plan.suggestions) > 5
    assert any(s.kept for s in plan.suggestions), "no suggestion keeps anything to test"


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_indexed_answer_equals_the_rule(demo_plan: tuple[Plan, list[str]],
                                        data: st.DataObject) -> None:
    plan, every_path = demo_plan
    named = sorted({p for s in plan.suggestions for p in s.paths}
                   | {k.path for s in plan.suggestions for k in s.kept})
    # Trashed paths: what suggestions name or keep, anything of the scan, and near misses
    # (a sibling whose name starts the same: "checkpoint-1" next to "checkpoint-10").
    candidates = named + every_path + [p + "0" for p in named] + [p[:-1] for p in named]
    gone = set(data.draw(st.lists(st.sampled_from(candidates), max_size=6)))
    expected = tuple(s for s in plan.suggestions if not falls(s, gone))
    assert StandingIndex(plan).standing(gone).suggestions == expected
