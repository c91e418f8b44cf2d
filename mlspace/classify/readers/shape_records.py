"""Records of a run found by their shape, not by a tool's file name: a small JSON, YAML, CSV
or TSV inside or beside a series' checkpoints that names them, or scores them, is read as
the run's own word on which is best and which is latest.

- Inside each checkpoint folder, a JSON record with a score (``"score": 0.91``, and a
  ``"direction": "max"`` for the metric of that value, as a tuner's ``trial.json`` keeps
  it), or with a metric whose name says its direction (a manifest's ``episode_reward``),
  ranks the checkpoints.
- Beside them, a record that names a checkpoint under a key saying best (``best_model``,
  ``best_checkpoint``) or latest (``last_checkpoint``, ``latest``) says so (JSON, or a flat
  YAML's ``key: value`` lines), and a table with a column naming them and a metric column
  scores them (CSV, TSV).

Records are read through mlspace.safe_read (a regular file of at most RECORD_BYTES, never a
link) as data; one that does not parse is absent. At most MAX_RECORDS are read a series.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field, replace

from mlspace.classify.metrics import direction
from mlspace.classify.name_meaning import words_of
from mlspace.classify.readers.listed_scores import json_list_scores
from mlspace.classify.readers.records import json_number, read_json, read_text

RECORD_BYTES = 1 << 20
MAX_RECORDS = 64
_SCORE_KEYS = ("score", "best_score", "objective", "objective_value", "metric_value",
               "best_metric", "value")
#: Words of a JSON's name that say it holds settings, never a result.
_SETTINGS_WORDS = frozenset({"config", "configuration", "cfg", "conf", "settings", "options",
                             "hyperparameters", "hparams"})
_RECORD_SUFFIXES = (".json", ".yaml", ".yml", ".csv", ".tsv")


@dataclass(frozen=True)
class ShapeFacts:
    """What records found by shape say about a series, in its members' names."""

    source: str
    best: str | None = None
    best_reason: str = ""
    metric: str | None = None
    mode: str | None = None
    value: float | None = None
    latest: str | None = None
    latest_reason: str = ""
    scores: dict[str, float] = field(default_factory=dict)


def read_shape_records(folder: str, member_files: dict[str, list[str]],
                       beside: list[str]) -> ShapeFacts | None:
    """``member_files``: each checkpoint folder's name -> the names inside it (empty for a
    checkpoint file); ``beside``: the other names in the series' folder."""
    budget = [MAX_RECORDS]
    inside = _scores_inside(folder, member_files, budget)
    scored = inside or table_scores(folder, set(member_files), beside) or \
        json_list_scores(folder, set(member_files), beside,
                         lambda path: _json_record(path, budget))
    named = _named_beside(folder, set(member_files), beside, budget)
    if scored is None and named is None:
        return None
    facts = named or ShapeFacts(source=folder)
    if scored is not None and facts.best is None:
        scores, metric, mode, source = scored
        where = f"{'each ' if inside else ''}{source}"
        if mode is None:  # scored, but nothing says which way is better: no best
            return replace(facts, source=where, metric=metric or "score", scores=scores)
        pick = max if mode == "max" else min
        best = pick(scores, key=scores.__getitem__)
        facts = ShapeFacts(source, best, f"{metric or 'score'} in {where} ({mode})",
                           metric or "score", mode, scores[best], facts.latest,
                           facts.latest_reason, scores)
    return facts


def _json_record(path: str, budget: list[int]) -> object | None:
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    return read_json(path, RECORD_BYTES)


def _scores_inside(folder: str, member_files: dict[str, list[str]], budget: list[int]
                   ) -> tuple[dict[str, float], str | None, str, str] | None:
    """A score per checkpoint folder from the one JSON record each holds that has one, and
    the direction it improves in; None unless every scored folder agrees on the metric."""
    scores: dict[str, float] = {}
    metric: str | None = None
    mode: str | None = None
    source = ""
    unscored = 0
    for member, names in member_files.items():
        if unscored >= 2 and not scores:
            return None  # a tool that scores its saves scores every one: two without, none
        unscored += 1
        # A config names a save's settings, not its results (a model's config.json): it
        # is not read for a score (a manifest may hold one).
        for name in sorted(n for n in names if n.endswith(".json")
                           and _SETTINGS_WORDS.isdisjoint(words_of(n))):
            record = _json_record(os.path.join(folder, member, name), budget)
            if not isinstance(record, dict):
                continue
            found = _score_of(record) or _named_metric(record)
            if found is None:
                continue
            value, its_metric, its_mode = found
            if mode is not None and (its_mode or mode) != mode:
                return None  # records that disagree on the direction rank nothing
            if metric is not None and its_metric is not None and its_metric != metric:
                return None  # nor do records of different metrics
            scores[member], metric, mode, source = value, its_metric or metric, \
                its_mode or mode, name
            break
    if len(scores) < 2 or mode is None:
        return None
    return scores, metric, mode, source


def _score_of(record: dict) -> tuple[float, str | None, str | None] | None:
    """(score, the metric it is, "min"/"max") from a record's top level."""
    for key in _SCORE_KEYS:
        value = json_number(record.get(key))
        if value is None:
            continue
        metric, mode = _metric_with_value(record, float(value))
        if mode is None:
            mode = direction(key) if key not in ("score", "value") else None
            mode = mode or (str(record.get("direction") or record.get("mode") or "").lower()
                            or None)
        return float(value), metric, mode if mode in ("min", "max") else None
    return None


def _named_metric(record: dict) -> tuple[float, str | None, str | None] | None:
    """(value, metric, "min"/"max") of a metric whose name says its direction, at a save
    record's top level or in a mapping one level down (a manifest's ``"metadata":
    {"episode_reward": 54.75, "collected_frames": 5000}``): a validation metric first."""
    found: list[tuple[str, float, str]] = []
    for level in (record, *(v for v in list(record.values())[:200] if isinstance(v, dict))):
        for key, value in list(level.items())[:200]:
            number = json_number(value)
            mode = direction(str(key)) if number is not None else None
            if mode is not None:
                found.append((str(key), float(number), mode))
    if not found:
        return None
    key, value, mode = min(found, key=lambda f: not f[0].lower().startswith(("val", "eval")))
    return value, key, mode


def _metric_with_value(record: object, value: float, depth: int = 0
                       ) -> tuple[str | None, str | None]:
    """The metric, anywhere in the record, whose entry states a direction and holds
    ``value`` (a tuner's ``{"val_accuracy": {"direction": "max", "observations": [...]}}``)."""
    if depth > 6 or not isinstance(record, dict):
        return None, None
    for key, entry in list(record.items())[:200]:
        if isinstance(entry, dict):
            stated = str(entry.get("direction") or entry.get("mode") or "").lower()
            if stated in ("min", "max") and _holds(entry, value, 0):
                return str(key), stated
            found = _metric_with_value(entry, value, depth + 1)
            if found[1] is not None:
                return found
    return None, None


def _holds(value: object, wanted: float, depth: int) -> bool:
    if depth > 6:
        return False
    number = json_number(value)
    if number is not None:
        return math.isclose(float(number), wanted, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(value, dict):
        return any(_holds(v, wanted, depth + 1) for v in list(value.values())[:200])
    if isinstance(value, list):
        return any(_holds(v, wanted, depth + 1) for v in value[:200])
    return False


def _named_beside(folder: str, members: set[str], beside: list[str], budget: list[int]
                  ) -> ShapeFacts | None:
    """A record beside the checkpoints that names one of them under a best or latest key."""
    best = latest = None
    best_reason = latest_reason = ""
    for name in sorted(beside):
        if not name.endswith(_RECORD_SUFFIXES):
            continue
        path = os.path.join(folder, name)
        if name.endswith(".json"):
            items = _string_items(_json_record(path, budget), 0)
        elif name.endswith((".yaml", ".yml")):
            items = _yaml_items(path, budget)
        else:
            continue  # tables score checkpoints (_table_scores); they name no best
        for key, value in items:
            target = os.path.basename(value.rstrip("/"))
            if target not in members:
                continue
            lowered = key.lower()
            if best is None and "best" in lowered:
                best, best_reason = target, f"{name} names it ({key})"
            elif latest is None and any(w in lowered for w in ("latest", "last", "current")):
                latest, latest_reason = target, f"{name} names it ({key})"
    if best is None and latest is None:
        return None
    return ShapeFacts(folder, best, best_reason, latest=latest, latest_reason=latest_reason)


def _string_items(value: object, depth: int) -> list[tuple[str, str]]:
    """(key, string) pairs of a JSON document, keys joined down the tree (bounded)."""
    if depth > 6:
        return []
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in list(value.items())[:500]:
            if isinstance(item, str):
                out.append((str(key), item))
            else:
                out += [(f"{key}.{k}", v) for k, v in _string_items(item, depth + 1)]
    elif isinstance(value, list):
        for item in value[:500]:
            out += _string_items(item, depth + 1)
    return out[:2000]


def _yaml_items(path: str, budget: list[int]) -> list[tuple[str, str]]:
    """(key, value) of a flat YAML record's ``key: value`` lines (mlspace parses no YAML it
    does not need to: a nested document's inner lines are read the same way)."""
    if budget[0] <= 0:
        return []
    budget[0] -= 1
    text = read_text(path, limit=RECORD_BYTES) or ""
    out = []
    for line in text.splitlines()[:5000]:
        key, sep, value = line.strip().partition(":")
        if sep and key and value.strip():
            out.append((key.strip().strip("'\""), value.strip().strip("'\"")))
    return out


def table_scores(folder: str, members: set[str], beside: list[str]
                 ) -> tuple[dict[str, float], str, str, str] | None:
    """A CSV or TSV beside the checkpoints with a column naming them and a metric column
    whose direction its name tells: (score per checkpoint, metric, mode, source)."""
    for name in sorted(n for n in beside if n.endswith((".csv", ".tsv")))[:4]:
        text = read_text(os.path.join(folder, name), limit=RECORD_BYTES)
        if not text:
            continue
        try:
            rows = list(csv.DictReader(io.StringIO(text),
                                       delimiter="\t" if name.endswith(".tsv") else ","))
        except csv.Error:
            continue
        named = [(os.path.basename(str(v).rstrip("/")), row) for row in rows[:100_000]
                 for v in row.values() if isinstance(v, str)
                 and os.path.basename(v.rstrip("/")) in members]
        if len(named) < 2:
            continue
        for column in named[0][1]:
            mode = direction(column or "")
            if mode is None:
                continue
            scores = {}
            for member, row in named:
                try:
                    value = float(row.get(column) or "nan")
                except ValueError:
                    continue
                if math.isfinite(value):
                    scores[member] = value
            if len(scores) >= 2:
                return scores, column, mode, name
    return None
