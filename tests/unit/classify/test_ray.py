"""Ray Tune and Ray Train runs as Ray 2.60 wrote them (tests/fixtures/ray, see its
make_fixtures.py): what each file is, and what a trial's series learns from Ray's own
records (the checkpoint manager pickled inside experiment_state-*.json, read as data;
result.json; Ray Train V2's checkpoint_manager_snapshot.json): the latest, the best and
the checkpoints Ray keeps by CheckpointConfig(num_to_keep), against what Ray's API said."""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import pytest
from layouts import Sparse, categories_by_path, inventory_of, make, name_of, series_at
from layouts_tools import RAY_EXPECTED, ray_fixture_results

from mlspace.classify import series_ray
from mlspace.classify.readers import ray_records

TRIALS = sorted(RAY_EXPECTED)
SWEEP_DIPS = next(t for t in TRIALS if t.startswith("lr-sweep/") and "dips" in t)


def _names(ids: tuple[str, ...]) -> set[str | None]:
    return {name_of(i) for i in ids}


def _experiment_state(folder: Path) -> Path:
    (state,) = folder.parent.glob("experiment_state-*.json")
    return state


def _result_row(name: str, loss: float, iteration: int) -> str:
    """A result.json line as Ray writes one for a report that saved a checkpoint."""
    return json.dumps({"loss": loss, "acc": 1 - loss, "checkpoint_dir_name": name,
                       "should_checkpoint": True, "done": False,
                       "training_iteration": iteration}) + "\n"


def test_ray_records_are_logs_and_checkpoint_folders_checkpoints(tmp_path: Path) -> None:
    results = ray_fixture_results(tmp_path)
    categories = categories_by_path(inventory_of(tmp_path))
    for path in results.rglob("*"):
        rel = path.relative_to(tmp_path).as_posix()
        saved = any(part.startswith("checkpoint_") for part in path.relative_to(
            results).parts[:-1]) or (path.is_dir() and path.name.startswith("checkpoint_"))
        assert categories[rel] == ("checkpoint" if saved else "log"), rel


@pytest.mark.parametrize("trial", TRIALS)
def test_latest_best_and_kept_are_what_ray_says(tmp_path: Path, trial: str) -> None:
    results = ray_fixture_results(tmp_path)
    expected = RAY_EXPECTED[trial]
    series = series_at(inventory_of(tmp_path), results / trial)
    assert series.tool.startswith("Ray")
    assert name_of(series.latest) == expected["latest"]
    assert name_of(series.best) == expected["best"]
    assert _names(series.members) == set(expected["kept"])
    if expected["num_to_keep"] is None:  # Ray keeps all: no retention of its own
        assert series.tool_kept == ()
        assert _names(series.protected) == {expected["best"], expected["latest"]}
    else:  # what Ray left is its own retention: all of it stays
        assert _names(series.protected) == set(expected["kept"])


def test_a_tune_trial_ranks_by_its_score_attribute(tmp_path: Path) -> None:
    results = ray_fixture_results(tmp_path)
    inv = inventory_of(tmp_path)
    series = series_at(inv, results / SWEEP_DIPS)
    state = _experiment_state(results / SWEEP_DIPS).name
    assert (series.best_metric, series.best_mode, series.best_value) == ("loss", "min", 0.3)
    assert series.best_reason == f"Ray Tune's checkpoint manager in {state}: best loss 0.3 (min)"
    assert series.latest_reason == "highest step (5)"
    # checkpoint_000005 (0.6) is kept only as the latest: the tool's own top-2 is 3 and 4
    assert _names(series.tool_kept) == {"checkpoint_000004"} and series.tool_kept_ranked
    assert series.tool_kept_reason == (
        "Ray Tune's CheckpointConfig(num_to_keep=2, checkpoint_score_attribute='loss', "
        f"checkpoint_score_order='min') in {state} keeps only its best 2 checkpoints by loss "
        "and the latest")
    losses = {a.name: a.metric("loss") for a in inv.artifacts if a.series == series.id}
    assert losses == {"checkpoint_000003": 0.3, "checkpoint_000004": 0.4,
                      "checkpoint_000005": 0.6}


def test_without_a_score_attribute_ray_keeps_the_newest(tmp_path: Path) -> None:
    results = ray_fixture_results(tmp_path)
    (trial,) = [t for t in TRIALS if t.startswith("recent2/")]
    series = series_at(inventory_of(tmp_path), results / trial)
    assert series.best is None
    assert _names(series.tool_kept) == {"checkpoint_000004"}
    assert series.tool_kept_newest_first and not series.tool_kept_ranked
    assert "CheckpointConfig(num_to_keep=2) in experiment_state-" in series.tool_kept_reason
    assert series.tool_kept_reason.endswith("keeps only its newest 2 checkpoints")


def test_ray_train_v2_reads_its_snapshot(tmp_path: Path) -> None:
    results = ray_fixture_results(tmp_path)
    expected = RAY_EXPECTED["train-v2"]
    series = series_at(inventory_of(tmp_path), results / "train-v2")
    assert series.tool == "Ray Train"
    assert series.latest_reason == \
        "Ray Train's checkpoint_manager_snapshot.json names it the latest"
    assert series.best_reason == \
        "Ray Train's checkpoint_manager_snapshot.json ranks it best (the metric is not recorded)"
    assert series.best_metric is None
    (middle,) = set(expected["kept"]) - {expected["best"], expected["latest"]}
    assert _names(series.tool_kept) == {middle} and not series.tool_kept_ranked
    assert series.tool_kept_reason == (
        "Ray Train's checkpoint_manager_snapshot.json: of 6 checkpoints reported, "
        "CheckpointConfig(num_to_keep) kept only these 3 (the best by a score the record does "
        "not name, and the latest)")


def _rewrite_snapshot(folder: Path, **changes: object) -> None:
    snapshot = folder / "checkpoint_manager_snapshot.json"
    snapshot.write_text(json.dumps({**json.loads(snapshot.read_text()), **changes}))


def test_a_v2_snapshot_in_report_order_names_no_best(tmp_path: Path) -> None:
    """Without a score attribute Ray's order is the order of the reports: nothing is ranked
    best, the kept ones are the newest."""
    folder = ray_fixture_results(tmp_path) / "train-v2"
    data = json.loads((folder / "checkpoint_manager_snapshot.json").read_text())
    _rewrite_snapshot(folder, checkpoint_results=data["checkpoint_results"][::-1],
                      checkpoint_report_indices=[3, 4, 5])
    series = series_at(inventory_of(tmp_path), folder)
    assert series.best is None and series.tool_kept_newest_first
    assert len(series.protected) == 3


def test_a_v2_run_that_deleted_nothing_leaves_retention_to_mlspace(tmp_path: Path) -> None:
    folder = ray_fixture_results(tmp_path) / "train-v2"
    _rewrite_snapshot(folder, current_report_index=3)
    series = series_at(inventory_of(tmp_path), folder)
    assert series.tool_kept == ()
    assert name_of(series.best) == RAY_EXPECTED["train-v2"]["best"]


def test_checkpoints_saved_after_the_experiment_state_are_rays_too(tmp_path: Path) -> None:
    """A run killed between two writes of experiment_state: checkpoint_000006 and _000007
    are newer than its record; result.json scores them, so the best is known, and both stay
    as Ray's."""
    folder = ray_fixture_results(tmp_path) / SWEEP_DIPS
    for index in (6, 7):
        make(folder / f"checkpoint_{index:06d}", {"state.json": "{}", "model.pt": Sparse(4096)})
    with open(folder / "result.json", "a") as f:
        f.write(_result_row("checkpoint_000006", 0.1, 7) + _result_row("checkpoint_000007",
                                                                        0.8, 8))
    series = series_at(inventory_of(tmp_path), folder)
    assert (name_of(series.best), series.best_value) == ("checkpoint_000006", 0.1)
    assert series.best_reason.endswith(".json and result.json: best loss 0.1 (min)")
    assert name_of(series.latest) == "checkpoint_000007"
    assert {"checkpoint_000003", "checkpoint_000004", "checkpoint_000005",
            "checkpoint_000006", "checkpoint_000007"} == _names(series.protected)
    assert series.tool_kept_reason.endswith("; 2 saved after that record are kept as Ray's too")


def test_without_experiment_state_nothing_is_known(tmp_path: Path) -> None:
    folder = ray_fixture_results(tmp_path) / SWEEP_DIPS
    _experiment_state(folder).unlink()
    series = series_at(inventory_of(tmp_path), folder)
    assert series.best is None and series.tool_kept == ()
    assert name_of(series.latest) == "checkpoint_000005"


def test_a_trial_folder_named_by_the_user_is_still_a_ray_trial(tmp_path: Path) -> None:
    """trial_dirname_creator may name a trial anything: inside a Tune experiment it is
    still the trial's folder, found in experiment_state by that name."""
    results = ray_fixture_results(tmp_path)
    custom = results / "lr-sweep" / "trial-dips"
    os.rename(results / SWEEP_DIPS, custom)
    state = _experiment_state(custom)
    state.write_text(state.read_text().replace(SWEEP_DIPS.split("/")[1], "trial-dips"))
    inv = inventory_of(tmp_path)
    categories = categories_by_path(inv)
    assert categories["ray_results/lr-sweep/trial-dips/result.json"] == "log"
    assert categories["ray_results/lr-sweep/trial-dips/checkpoint_000003/weights.bin"] == \
        "checkpoint"
    assert name_of(series_at(inv, custom).best) == "checkpoint_000003"


def test_records_are_read_once_and_a_rescan_reads_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray_fixture_results(tmp_path)
    spy = mock.Mock(wraps=ray_records.read_experiment_state)
    monkeypatch.setattr(series_ray, "read_experiment_state", spy)
    for cached in (series_ray._trials, series_ray._tune_facts, series_ray._train_facts):
        cached.cache_clear()
    inventory_of(tmp_path)
    inventory_of(tmp_path)
    experiments = {t.split("/")[0] for t in TRIALS if "/" in t}
    assert sorted(os.path.basename(os.path.dirname(c.args[0])) for c in spy.call_args_list) \
        == sorted(experiments)
