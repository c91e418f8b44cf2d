"""The saved scan's metadata document is encoded in slices (so the app's window keeps
running while a thread saves a scan): the text must be exactly json.dumps's, and no single
call may take a long list whole."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mlspace.index import json_slices
from mlspace.index.json_slices import dumps_in_slices

SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
           | st.floats(allow_nan=False) | st.text())
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=9)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=6), max_leaves=60)


@given(VALUES, st.integers(1, 4))
def test_same_text_as_json_dumps(value: object, slice_items: int) -> None:
    assert dumps_in_slices(value, slice_items) == json.dumps(value, separators=(",", ":"))


def test_same_text_with_tuples_and_keys_that_are_not_text() -> None:
    value = {"runs": (1, 2, 3, 4, 5), "by_number": {1: "a", 2: "b"}, "nan": float("inf")}
    assert dumps_in_slices(value, 2) == json.dumps(value, separators=(",", ":"))


def test_long_lists_go_a_slice_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    encode = json_slices._compact
    monkeypatch.setattr(json_slices, "_compact", lambda v: calls.append(v) or encode(v))
    document = {"inventory": {"artifacts": [{"id": i, "path": f"/w/{i}"} for i in range(1000)],
                              "runs": list(range(700))}, "entries": 5}
    text = dumps_in_slices(document, 100)
    assert json.loads(text) == document
    lists = [len(v) for v in calls if isinstance(v, list)]
    assert lists and max(lists) == 100 and sum(lists) == 1700
