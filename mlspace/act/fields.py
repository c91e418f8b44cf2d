"""The field checks of mlspace's own JSON records: one line read back is used only when
each field it holds has the type the code that reads it expects.

The journal (:mod:`mlspace.act.journal`) and the policy-run log
(:mod:`mlspace.act.policy_runs`) are files a crash can cut short and an older or newer
mlspace may have written: a record is described as {field: check}, and :func:`fault` says
what is wrong with one, in words a message can carry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

Check = Callable[[object], bool]


def number(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def count(value: object) -> bool:
    return type(value) is int and value >= 0  # type: ignore[operator]


def text(value: object) -> bool:
    return type(value) is str


def text_or_none(value: object) -> bool:
    return value is None or type(value) is str


def texts(value: object) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def fault(record: object, fields: Mapping[str, Check], required: tuple[str, ...],
          what: str) -> str | None:
    """What is wrong with one JSON object of a record file, or None: every required field
    there, every known field of its type (fields mlspace does not know are left alone)."""
    if type(record) is not dict:
        return f"{what} is not an object"
    for key in required:
        if key not in record:
            return f"{what} lacks {key!r}"
    for key, ok in fields.items():
        if key in record and not ok(record[key]):
            return f"{what} has a {key!r} of the wrong type ({type(record[key]).__name__})"
    return None
