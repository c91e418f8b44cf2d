"""A JSON record beside a series that lists its checkpoints with a score each: a tool's
top-k storage (``{"minimize": false, "metric_key": "accuracy01", "storage": [{"logpath":
".../runner.0004.pth", "metric": 0.955}, ...]}``), whatever the tool and the keys are called.

Which way the score improves is taken from the record itself, in this order: a flag it
states (``minimize``, ``maximize``, ``mode``, ``direction``), the name of the score's own key
(``val_loss``), then the metric the record names (``"metric_key": "accuracy01"``). A list
whose direction nothing states gives its scores without one: the series then keeps every
checkpoint so scored, since mlspace cannot tell which the tool considers best.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from mlspace.classify.metrics import direction
from mlspace.classify.readers.records import json_number

#: Keys whose value states the direction outright.
_FLAG_KEYS = ("minimize", "maximize", "mode", "direction")
#: Numbers that place or describe a file, never score it.
_BOOKKEEPING = re.compile(r"(?i)step|epoch|iter|size|bytes|time|date|created|modified|index"
                          r"|(?<![a-z])(id|rank|count|version|n)(?![a-z])")
_MAX_DEPTH = 6
_MAX_ITEMS = 500


def json_list_scores(folder: str, members: set[str], beside: list[str],
                     read: Callable[[str], object | None]
                     ) -> tuple[dict[str, float], str | None, str | None, str] | None:
    """(score per checkpoint name, metric, "min"/"max" or None, source) from the first JSON
    beside the checkpoints (``read``: a bounded JSON reader) holding a list of entries that
    each name a member and give it a number under one key."""
    for name in sorted(n for n in beside if n.endswith(".json")):
        record = read(os.path.join(folder, name))
        for context, entries in _lists_of_mappings(record, [], 0):
            found = _scored_members(entries, members)
            if found is None:
                continue
            key, scores = found
            metric, mode = _direction_of(key, context)
            return scores, metric, mode, name
    return None


def _lists_of_mappings(value: object, context: list[dict], depth: int
                       ) -> Iterator[tuple[list[dict], list[dict]]]:
    """(the mappings enclosing it, outermost first; the list) for each list of mappings."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        inner = [*context, value]
        for item in list(value.values())[:_MAX_ITEMS]:
            yield from _lists_of_mappings(item, inner, depth + 1)
    elif isinstance(value, list):
        mappings = [item for item in value[:_MAX_ITEMS] if isinstance(item, dict)]
        if mappings:
            yield context, mappings


def _scored_members(entries: list[dict], members: set[str]
                    ) -> tuple[str, dict[str, float]] | None:
    """(the key, score per member) when the entries name members and hold a number under
    one key that is no bookkeeping (a step, a size, a time): a top-1 list names one."""
    named: list[tuple[str, dict]] = []
    for entry in entries:
        target = next((os.path.basename(v.rstrip("/\\").replace("\\", "/"))
                       for v in list(entry.values())[:_MAX_ITEMS] if isinstance(v, str)
                       and os.path.basename(v.rstrip("/\\").replace("\\", "/")) in members),
                      None)
        if target is not None:
            named.append((target, entry))
    if not named or len({target for target, _ in named}) < len(named):
        return None  # one file listed twice is no ranking
    keys = [k for k, v in named[0][1].items()
            if json_number(v) is not None and not _BOOKKEEPING.search(str(k))]
    # A key whose name says which way it improves (val_mse, accuracy) is the score; a
    # hyperparameter beside it (alpha, lr) only places the file.
    keys.sort(key=lambda k: direction(str(k)) is None)
    for key in keys:
        scores = {target: float(json_number(entry.get(key)))  # type: ignore[arg-type]
                  for target, entry in named if json_number(entry.get(key)) is not None}
        if len(scores) == len(named):
            return str(key), scores
    return None


def _direction_of(key: str, context: list[dict]) -> tuple[str | None, str | None]:
    """(metric, "min"/"max" or None) for scores under ``key``, the innermost statement in
    the enclosing mappings first."""
    for mapping in reversed(context):
        stated = _stated(mapping)
        if stated is not None:
            return _metric_named(context) or key, stated
    own = direction(key)
    if own is not None:
        return key, own
    metric = _metric_named(context)
    return (metric, direction(metric)) if metric is not None else (key, None)


def _stated(mapping: dict) -> str | None:
    """The direction a record's flag states: ``"minimize": true``, ``"mode": "max"``."""
    for key in _FLAG_KEYS:
        value = mapping.get(key)
        if isinstance(value, bool):
            return ("min" if value else "max") if key == "minimize" else (
                ("max" if value else "min") if key == "maximize" else None)
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("min", "minimize", "minimise"):
                return "min"
            if word in ("max", "maximize", "maximise"):
                return "max"
    return None


def _metric_named(context: list[dict]) -> str | None:
    """The metric a record names under a key saying so (``metric_key``, ``monitor``)."""
    for mapping in reversed(context):
        for key, value in list(mapping.items())[:_MAX_ITEMS]:
            lowered = str(key).lower()
            if isinstance(value, str) and value and ("metric" in lowered
                                                     or "monitor" in lowered):
                return value
    return None
