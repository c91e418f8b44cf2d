"""What classification concluded, as plain JSON, and back: artifacts, checkpoint series and
runs with their best and latest and how those are known, rule warnings and detached hub
revisions.

Why saved at all: the best and latest checkpoint come from the tools' records
(trainer_state.json, best_k_models.yaml, pointer files...), and a scan opened on another
machine, or after the run folder is gone, cannot read them again. So the conclusions are
stored, field for field, and rebuilt exactly; nothing is classified again.

Each value is an object with the fields of its class (mlspace.classify.model); a field at
its default is left out, and so is one that the others give (see _DERIVED: an id made from
the path); tuples are lists, a category is its id. Values are checked against the fields'
declared types on the way in, since a saved file may be damaged or hostile.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mlspace.classify import Artifact, Category, Inventory, Run, Series
from mlspace.classify.model import build
from mlspace.classify.readers.hf_hub import DetachedRevision
from mlspace.classify.rules import Context
from mlspace.index.errors import CannotOpen
from mlspace.scan import Snapshot

_SECTIONS: dict[str, type] = {"artifacts": Artifact, "series": Series, "runs": Run,
                              "hub_detached": DetachedRevision}


def encode_inventory(inventory: Inventory) -> dict[str, Any]:
    """The inventory's conclusions as a JSON-ready dict (the per-entry categories and
    artifacts are columns of the saved scan, not part of this)."""
    out: dict[str, Any] = {name: [_encode(v) for v in getattr(inventory, name)]
                           for name in _SECTIONS}
    out["warnings"] = list(inventory.warnings)
    return out


@dataclass(frozen=True)
class SavedConclusions:
    """The saved artifacts, series, runs, warnings and hub revisions, checked, as values."""

    artifacts: tuple[Artifact, ...]
    series: tuple[Series, ...]
    runs: tuple[Run, ...]
    warnings: tuple[str, ...]
    hub_detached: tuple[DetachedRevision, ...]


def decode_conclusions(data: object) -> SavedConclusions:
    """The saved document back into values (it needs no snapshot, so it can be done while
    the entries are read)."""
    if not isinstance(data, dict):
        raise CannotOpen("the saved inventory is not an object")
    try:
        values = {name: _decode_all(cls, _list(data, name)) for name, cls in _SECTIONS.items()}
        warnings = tuple(_list(data, "warnings"))
    except (TypeError, ValueError, KeyError) as err:
        raise CannotOpen(f"the saved inventory is damaged ({err})") from None
    if not all(isinstance(w, str) for w in warnings):
        raise CannotOpen("the saved inventory is damaged (a warning is not text)")
    return SavedConclusions(values["artifacts"], values["series"], values["runs"], warnings,
                            values["hub_detached"])


def decode_inventory(saved: SavedConclusions, snapshot: Snapshot, categories: np.ndarray
                     ) -> Inventory:
    """The Inventory of ``snapshot`` from its saved conclusions and its entries' categories
    (a column of the saved scan). Per-folder totals by category are added up again; the
    folder contexts (how classification got to the categories, not what it concluded) are
    not saved and read as generic."""
    n = len(snapshot)
    for artifact in saved.artifacts:
        if not all(0 <= e < n for e in (artifact.entry, *artifact.entries)):
            raise CannotOpen(f"the saved artifact {artifact.id} names rows the scan lacks")
    _check_sizes(saved, snapshot)
    rows = len(snapshot.dir_entry)
    contexts = np.full(rows, Context.GENERIC, dtype=np.uint8)
    empty = np.zeros((rows, len(Category)), dtype=np.int64)
    unsummed = Inventory(snapshot, categories, contexts, empty, empty, empty, saved.artifacts,
                         saved.series, saved.runs, saved.warnings, saved.hub_detached)
    # The totals as classify() adds them up: leaving nothing out.
    disk, apparent, files = unsummed.folder_category_totals(np.zeros(n, dtype=bool))
    return dataclasses.replace(unsummed, dir_category_disk=disk, dir_category_apparent=apparent,
                               dir_category_files=files)


def _check_sizes(saved: SavedConclusions, snapshot: Snapshot) -> None:
    """Every saved size lies between 0 and the scan's total: a part of the scan cannot be
    larger than all of it (a made-up 2**62-byte run would top every list and report)."""
    totals = snapshot.grand_totals()
    limits = {"disk_usage": totals.disk_usage, "apparent_size": totals.apparent_size,
              "files": totals.files}
    for value in (*saved.artifacts, *saved.series, *saved.runs):
        for key, limit in limits.items():
            size = getattr(value, key, 0)
            if not 0 <= size <= limit:
                raise CannotOpen(f"the saved {type(value).__name__.lower()} {value.id} has "
                                 f"{key} {size:,}, outside the scan's 0 to {limit:,}")


def _list(data: dict, key: str) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise TypeError(f"{key} is not a list")
    return value


def _encode(value: object) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(value):  # type: ignore[arg-type]
        item = getattr(value, f.name)
        if f.default is not dataclasses.MISSING and item == f.default:
            continue
        out[f.name] = item.id if isinstance(item, Category) else item
    for name, derive in _DERIVED.get(type(value), {}).items():
        if name in out and out[name] == derive(out):
            del out[name]
    return out


def _decode_all(cls: type, records: list) -> tuple:
    """The saved values of one class, checked and converted a field at a time across all of
    them (a column at a time, thousands of artifacts open in milliseconds). The records,
    fresh from the JSON parser, are converted in place."""
    name = cls.__name__.lower()
    if not all(type(r) is dict for r in records):
        raise TypeError(f"a {name} is not an object")
    columns, required = _spec(cls)
    present: set[str] = set().union(*records)
    unknown = present - columns.keys()
    if unknown:
        raise KeyError(f"{name} has no field {sorted(unknown)[0]!r}")
    values = records  # freshly parsed: converted in place
    for key in present:
        holders = [v for v in values if key in v]
        converted = columns[key]([v[key] for v in holders], key)
        if converted is not None:
            for value, item in zip(holders, converted, strict=True):
                value[key] = item
    for key, derive in _DERIVED.get(cls, {}).items():
        for value in values:
            if key not in value:
                value[key] = derive(value)
    if not all(required <= v.keys() for v in values):
        raise KeyError(f"a {name} lacks one of {', '.join(sorted(required))}")
    if cls is DetachedRevision:
        return tuple(DetachedRevision(**v) for v in values)
    return tuple(build(cls, v) for v in values)


_Column = Callable[[list, str], "list | None"]
_SPECS: dict[type, tuple[dict[str, _Column], set[str]]] = {}


def _spec(cls: type) -> tuple[dict[str, _Column], set[str]]:
    """Each field's check (by its declared type) and the fields without a default."""
    spec = _SPECS.get(cls)
    if spec is None:
        fields = dataclasses.fields(cls)
        spec = _SPECS[cls] = ({f.name: _COLUMNS[str(f.type)] for f in fields},
                              {f.name for f in fields if f.default is dataclasses.MISSING})
    return spec


def _column(ok: Callable[[Any], bool], convert: Callable[[Any], Any] | None = None) -> _Column:
    """A check of every value of a field (``ok``), then their conversion: the converted
    values, or None when they stay as they are."""
    def check(values: list, key: str) -> list | None:
        if not all(map(ok, values)):
            bad = next(v for v in values if not ok(v))
            raise TypeError(f"{key} is {type(bad).__name__}")
        return None if convert is None else [convert(v) for v in values]
    return check


def _is_number(v: object) -> bool:
    return type(v) is float or type(v) is int  # bool is an int to Python, not to a saved scan


def _is_metric(m: object) -> bool:
    return type(m) is list and len(m) == 2 and type(m[0]) is str and _is_number(m[1])


_CATEGORIES = {c.id: c for c in Category}
#: Checks by the fields' declared types (mlspace.classify.model, hf_hub.DetachedRevision).
_COLUMNS: dict[str, _Column] = {
    "str": _column(lambda v: type(v) is str),
    "str | None": _column(lambda v: v is None or type(v) is str),
    "int": _column(lambda v: type(v) is int),
    "int | None": _column(lambda v: v is None or type(v) is int),
    "float": _column(_is_number, float),
    "float | None": _column(lambda v: v is None or _is_number(v),
                            lambda v: None if v is None else float(v)),
    "bool": _column(lambda v: type(v) is bool),
    "Category": _column(lambda v: type(v) is str and v in _CATEGORIES, _CATEGORIES.__getitem__),
    "tuple[int, ...]": _column(lambda v: type(v) is list and all(type(x) is int for x in v),
                               tuple),
    "tuple[str, ...]": _column(lambda v: type(v) is list and all(type(x) is str for x in v),
                               tuple),
    "tuple[tuple[str, float], ...]": _column(
        lambda v: type(v) is list and all(map(_is_metric, v)),
        lambda v: tuple((m[0], float(m[1])) for m in v)),
}


def _basename(values: dict[str, Any]) -> str:
    return os.path.basename(values["path"])


#: Fields left out when they say what the others do (most ids and names are made from the
#: path): a saved scan is a third smaller and opens faster for it. Filled in again on
#: opening; a field that differs is always saved.
_DERIVED: dict[type, dict[str, Callable[[dict[str, Any]], Any]]] = {
    Artifact: {"id": lambda v: f"{v['kind']}:{v['path']}", "name": _basename,
               "entries": lambda v: (v["entry"],)},
    Series: {"id": lambda v: f"series:{v['path']}"},
    Run: {"id": lambda v: f"run:{v['path']}", "name": _basename},
}
