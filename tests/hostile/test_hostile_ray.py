"""The advisor never suggests a checkpoint Ray keeps by its own retention
(CheckpointConfig(num_to_keep)), nor the best or latest Ray's records name, whatever K and
N; and no pickle a Ray run holds (params.pkl, tuner.pkl, trainer.pkl, error.pkl, the
checkpoint manager inside experiment_state) is ever executed, the .pkl files not even
opened. The runs are real Ray 2.60 output (tests/fixtures/ray), each with a stray save no
record keeps (an earlier run's, in the same folder), so there is something to suggest."""

from __future__ import annotations

import json
import os
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_helpers import suggested_paths
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layouts import Sparse, inventory_of, make, name_of, series_at
from layouts_tools import RAY_EXPECTED, ray_fixture_results
from workspaces import age

from mlspace.advise import REVIEW, SAFE, AdviceSettings, Suggestion, advise
from mlspace.classify.readers.ray_records import (
    read_experiment_state,
    read_reported_scores,
    read_train_snapshot,
    read_trial_manager,
)

SETTINGS = (AdviceSettings(), AdviceSettings(keep_best=1, keep_latest=1),
            AdviceSettings(keep_best=0, keep_latest=1), AdviceSettings(keep_best=0, keep_latest=0))
SWEEP_DIPS = next(t for t in RAY_EXPECTED if t.startswith("lr-sweep/") and "dips" in t)
TUNE_STRAY = "checkpoint_000000"  # older than Ray's record, and not in it
V2_STRAY = "checkpoint_2026-11-30_20-33-00.000000"  # before every checkpoint of the run


def _ray(root: Path) -> Path:
    """The fixture runs, a stray in each trial that keeps some, all made a month old."""
    results = ray_fixture_results(root)
    for trial, expected in RAY_EXPECTED.items():
        stray = V2_STRAY if trial == "train-v2" else TUNE_STRAY
        if expected["num_to_keep"] is not None and stray not in expected["kept"]:
            make(results / trial / stray, {"state.json": "{}", "model.pt": Sparse(4096)})
    age(root)
    return results


def _suggested_in(folder: Path, plan: object) -> set[str]:
    return {os.path.basename(p) for p in suggested_paths(plan) if os.path.dirname(p) == str(folder)}


@pytest.mark.parametrize("trial", sorted(RAY_EXPECTED))
def test_what_ray_keeps_best_and_latest_are_never_suggested(tmp_path: Path, trial: str) -> None:
    results = _ray(tmp_path)
    expected = RAY_EXPECTED[trial]
    inv = inventory_of(tmp_path)
    series = series_at(inv, results / trial)
    for setting in SETTINGS:
        plan = advise(inv, setting)
        gone = _suggested_in(results / trial, plan)
        assert not gone & {expected["best"], expected["latest"], name_of(series.best),
                           name_of(series.latest)}, setting
        if expected["num_to_keep"] is not None:
            assert not gone & set(expected["kept"]), setting
            assert gone == {V2_STRAY if trial == "train-v2" else TUNE_STRAY}, setting


def _sweep(root: Path, keep_for_run: tuple[int, int] | None = None, lose_state: bool = False
           ) -> tuple[Suggestion, set[str]]:
    """The retention suggestion for the lr-sweep's first trial, and what it lists there;
    ``keep_for_run``: K and N set for that trial alone; ``lose_state``: with the
    experiment's experiment_state files gone."""
    results = _ray(root)
    if lose_state:
        for state in (results / "lr-sweep").glob("experiment_state-*.json"):
            state.unlink()
    inv = inventory_of(root)
    series = series_at(inv, results / SWEEP_DIPS)
    plan = advise(inv, AdviceSettings(keep_per_series={series.id: keep_for_run})
                  if keep_for_run else AdviceSettings())
    (found,) = [s for s in plan.suggestions if s.subject == series.id]
    return found, _suggested_in(results / SWEEP_DIPS, plan)


def test_the_retention_is_safe_and_says_why(tmp_path: Path) -> None:
    found, gone = _sweep(tmp_path)
    assert found.risk == SAFE and gone == {TUNE_STRAY}
    assert "The 1 more the tool keeps as its own top-k stay (Ray Tune's CheckpointConfig(" \
           "num_to_keep=2, checkpoint_score_attribute='loss'" in found.reason


def test_a_k_for_this_run_below_rays_own_releases_the_worst(tmp_path: Path) -> None:
    found, gone = _sweep(tmp_path, keep_for_run=(1, 1))
    assert gone == {TUNE_STRAY, "checkpoint_000004"}
    assert found.risk == REVIEW
    assert "checkpoint_000004 (ranked below the best 1 by the recorded loss) go as well" \
        in found.reason


def test_without_rays_record_nothing_is_called_safe(tmp_path: Path) -> None:
    """experiment_state gone: Ray may have kept a top-k by a score no record names, so a
    suggestion is for review and says so."""
    found, _ = _sweep(tmp_path, lose_state=True)
    assert found.risk == REVIEW
    assert "Ray's CheckpointConfig(num_to_keep=k) keeps only its best k and the latest: if " \
           "this run did, an older checkpoint may be one of them" in found.reason


class _Payload:
    """Unpickling this runs ``touch <marker>``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return os.system, (f"touch {self.marker}",)


class _Saved:
    """Stands for Ray's pickled objects (CheckpointManager, CheckpointConfig, Checkpoint,
    _TrainingResult): an object whose state is its fields."""

    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


def _evil_manager(marker: Path, trial: Path) -> str:
    """A checkpoint manager, as hex, that names the stray Ray's best and carries a payload."""
    stray = _Saved(checkpoint=_Saved(path=str(trial / TUNE_STRAY)),
                   metrics={"loss": 0.01, "evil": _Payload(marker)})
    return pickle.dumps(_Saved(
        _checkpoint_config=_Saved(num_to_keep=2, checkpoint_score_attribute="loss",
                                  checkpoint_score_order="min"),
        _checkpoint_results=[stray], _latest_checkpoint_result=stray), protocol=5).hex()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every path os.open is asked to open while the test runs."""
    paths: list[str] = []
    real = os.open

    def spy(path: object, *args: object, **kwargs: object) -> int:
        paths.append(os.fsdecode(path))  # type: ignore[arg-type]
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", spy)
    yield paths


def test_hostile_pickles_are_never_executed_nor_opened(tmp_path: Path,
                                                       opened: list[str]) -> None:
    marker = tmp_path / "pwned"
    results = _ray(tmp_path / "ws")
    evil = pickle.dumps(_Payload(marker))
    pickles = [p for p in results.rglob("*.pkl")]
    assert {p.name for p in pickles} == {"params.pkl", "tuner.pkl", "trainer.pkl", "error.pkl"}
    for path in pickles:
        path.write_bytes(evil)
    trial = results / SWEEP_DIPS
    (state,) = trial.parent.glob("experiment_state-*.json")
    data = json.loads(state.read_text())
    for entry in data["trial_data"]:
        if json.loads(entry[0])["relative_logdir"] == trial.name:
            meta = json.loads(entry[1])
            meta["checkpoint_manager"]["value"] = _evil_manager(marker, trial)
            entry[1] = json.dumps(meta)
    state.write_text(json.dumps(data))
    inv = inventory_of(tmp_path / "ws")
    plan = advise(inv)
    assert not marker.exists()
    assert not [p for p in opened if p.endswith(".pkl")]
    assert str(state) in opened  # the spy sees the records mlspace does read
    # read as data all the same: the stray is what the record names, so it stays
    assert name_of(series_at(inv, trial).best) == TUNE_STRAY
    assert TUNE_STRAY not in _suggested_in(trial, plan)


FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from([
        "checkpoint_results", "checkpoint_dir_name", "metrics", "checkpoint_report_indices",
        "latest_checkpoint_result", "pending_training_results", "current_report_index",
        "trial_data", "loss"]) | st.text(max_size=6), inner, max_size=5), max_leaves=30)


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_as_a_checkpoint_manager_are_data(content: bytes) -> None:
    record = read_trial_manager(content.hex(), "experiment_state.json")
    assert record is None or all(isinstance(n, str) for n in record.kept)


@FUZZ
@given(JSON | st.binary(max_size=300))
def test_any_json_or_bytes_as_ray_records(tmp_path_factory: pytest.TempPathFactory,
                                           doc: object) -> None:
    path = tmp_path_factory.mktemp("ray") / "record.json"
    path.write_bytes(doc if isinstance(doc, bytes) else json.dumps(doc).encode())
    snapshot = read_train_snapshot(str(path))
    assert snapshot is None or all(isinstance(n, str) for n in snapshot.kept)
    assert isinstance(read_experiment_state(str(path)), dict)
    assert all(isinstance(v, float) for v in read_reported_scores(str(path), "loss").values())
