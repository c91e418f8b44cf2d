"""The units people think in: artifacts (one checkpoint, one dataset, one W&B run...), the
ordered checkpoint series of a run, and runs. Frozen values, built once per classification."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mlspace.classify.categories import Category

_Value = TypeVar("_Value", "Artifact", "Series", "Run")


def build(cls: type[_Value], values: dict[str, Any]) -> _Value:
    """A new artifact, series or run from its fields: the same value as calling the class.

    The generated ``__init__`` of a frozen dataclass sets each field through
    ``object.__setattr__``, and passing an Artifact's 22 fields as keywords costs as much
    again (~7 µs together here); one classification makes thousands of artifacts, so the
    field dict is given and filled in one go instead (~2 µs). These classes have no
    ``__post_init__`` to skip; unknown or missing fields still fail.
    """
    defaults, allowed = _SPECS.get(cls) or _field_spec(cls)
    fields = defaults | values
    if fields.keys() != allowed:
        raise TypeError(f"{cls.__name__}: fields {sorted(values)} do not fit")
    made = object.__new__(cls)
    object.__setattr__(made, "__dict__", fields)
    return made


def evolve(value: _Value, **changes: Any) -> _Value:
    """A copy of an artifact, series or run with some fields changed: what
    ``dataclasses.replace`` gives, for a fraction of its cost (see build())."""
    if not changes.keys() <= value.__dataclass_fields__.keys():
        raise TypeError(f"{type(value).__name__} has no field {sorted(changes)}")
    copy = object.__new__(type(value))
    fields = value.__dict__.copy()
    fields.update(changes)
    object.__setattr__(copy, "__dict__", fields)
    return copy


_SPECS: dict[type, tuple[dict[str, Any], frozenset[str]]] = {}


def _field_spec(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """(defaults, all field names); plain defaults only."""
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"build() does not run default factories ({cls.__name__}.{f.name})")
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
    _SPECS[cls] = spec = (defaults, frozenset(f.name for f in dataclasses.fields(cls)))
    return spec


@dataclass(frozen=True)
class Artifact:
    """One unit: a folder (its whole subtree) or a group of files (a sharded or bundled
    checkpoint), with sizes counted once per inode."""

    id: str  # "<kind>:<absolute path>": stable for the same tree
    kind: str  # checkpoint, run, dataset, augmented, cache, debug, log
    category: Category
    entry: int  # the folder, or the first file of the group
    entries: tuple[int, ...]  # every entry the unit is made of at its top level
    path: str
    name: str
    tool: str | None
    disk_usage: int
    apparent_size: int
    files: int
    newest_mtime: float
    is_dir: bool
    step: int | None = None
    epoch: int | None = None
    metrics: tuple[tuple[str, float], ...] = ()
    role: str | None = None  # best / last / final / partial, as the tool's naming says
    series: str | None = None
    run: str | None = None
    copy_of: str | None = None  # id of the checkpoint this one duplicates
    copy_kind: str | None = None  # "hard link", "symlink" or "same size"
    # Archived to the cold tier: what stands here is the pointer to its copy, nothing of it
    # is on this disk to free, and it is never suggested (mlspace.classify.archived).
    archived: bool = False

    def metric(self, name: str) -> float | None:
        return dict(self.metrics).get(name)


@dataclass(frozen=True)
class Series:
    """The checkpoints of one run in one folder, oldest first, with what is known about which
    is the latest and which the best, and how that was learned."""

    id: str
    path: str
    tool: str
    members: tuple[str, ...]
    latest: str | None
    latest_reason: str
    best: str | None
    best_reason: str
    best_metric: str | None = None
    best_value: float | None = None
    best_mode: str | None = None  # "min" or "max"
    protected: tuple[str, ...] = ()  # never suggested: latest, best, pointed-to, their copies
    run: str | None = None
    disk_usage: int = 0
    # Members kept only because the tool's own retention keeps them (the top-k of Lightning
    # or timm, what HF Trainer's save_total_limit keeps): in ``protected`` too, since the
    # tool has done the retention. Best first when ranked by best_metric's recorded values,
    # newest first when the tool keeps its latest ones; then a user who asks for fewer best
    # (or latest) ones for this series may release the worst (or oldest) of them
    # (mlspace.advise.policies).
    tool_kept: tuple[str, ...] = ()
    tool_kept_ranked: bool = False
    tool_kept_newest_first: bool = False
    tool_kept_reason: str = ""


@dataclass(frozen=True)
class Run:
    """A training or logging run folder and the series found in it."""

    id: str
    path: str
    name: str
    tool: str | None
    entry: int
    disk_usage: int
    apparent_size: int
    files: int
    newest_mtime: float
    series: tuple[str, ...] = field(default=())
