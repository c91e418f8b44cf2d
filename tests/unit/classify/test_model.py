"""build() and evolve() give exactly what the dataclass constructor and dataclasses.replace
give (they exist only to be faster), and refuse what those refuse."""

from __future__ import annotations

import dataclasses

import pytest

from mlspace.classify import Artifact, Category, Run, Series
from mlspace.classify.model import build, evolve

_ARTIFACT = {
    "id": "checkpoint:/w/run/checkpoint-5", "kind": "checkpoint",
    "category": Category.CHECKPOINT, "entry": 7, "entries": (7,), "path": "/w/run/checkpoint-5",
    "name": "checkpoint-5", "tool": "HF Trainer", "disk_usage": 4096, "apparent_size": 100,
    "files": 3, "newest_mtime": 12.5, "is_dir": True, "step": 5,
    "metrics": (("eval_loss", 1.5),),
}
_SERIES = {"id": "series:/w/run", "path": "/w/run", "tool": "HF Trainer", "members": ("a",),
           "latest": "a", "latest_reason": "highest step (5)", "best": None,
           "best_reason": "no metric recorded", "protected": ("a",), "disk_usage": 4096}
_RUN = {"id": "run:/w/run", "path": "/w/run", "name": "run", "tool": None, "entry": 3,
        "disk_usage": 1, "apparent_size": 1, "files": 1, "newest_mtime": 0.0}


@pytest.mark.parametrize(("cls", "values"),
                         [(Artifact, _ARTIFACT), (Series, _SERIES), (Run, _RUN)])
def test_build_equals_the_constructor(cls: type, values: dict) -> None:
    made, expected = build(cls, dict(values)), cls(**values)
    assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
    assert dataclasses.asdict(made) == dataclasses.asdict(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "other"  # type: ignore[misc]


def test_evolve_equals_replace() -> None:
    artifact = Artifact(**_ARTIFACT)
    changed = evolve(artifact, series="series:/w/run", role="best")
    assert changed == dataclasses.replace(artifact, series="series:/w/run", role="best")
    assert artifact.series is None and artifact.role is None  # the original is untouched


def test_unknown_or_missing_fields_are_refused() -> None:
    with pytest.raises(TypeError):
        build(Artifact, {**_ARTIFACT, "colour": "red"})
    with pytest.raises(TypeError):
        build(Artifact, {k: v for k, v in _ARTIFACT.items() if k != "path"})
    with pytest.raises(TypeError):  # one missing and one unknown: as many fields, not the same
        build(Artifact, {**{k: v for k, v in _ARTIFACT.items() if k != "path"}, "colour": "red"})
    with pytest.raises(TypeError):
        evolve(Series(id="s", path="/w", tool="t", members=(), latest=None, latest_reason="",
                      best=None, best_reason=""), colour="red")
