"""A series learns what a tool keeps by its own retention from the tool's records, read as
data: timm's CheckpointSaver top-k (--checkpoint-hist, the saver's state in last.pth.tar,
args.yaml and summary.csv) and HF Trainer's save_total_limit rotation (training_args.bin).
The runs are real timm 1.0.31 and transformers 5.24 output (tests/fixtures/timm and
tests/fixtures/hf_trainer, see their make_fixtures.py)."""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import pytest
from layouts import Sparse, inventory_of, make, name_of, series_at
from layouts_tools import HF_KEPT, HF_RUN, TIMM_EXPECTED, hf_fixture_run, timm_fixture_run

from mlspace.classify import series_timm
from mlspace.classify.readers import timm_records
from mlspace.classify.readers.hf_training_args import read_training_args


def _names(ids: tuple[str, ...]) -> set[str | None]:
    return {name_of(i) for i in ids}


def test_timm_best_latest_and_top_k_come_from_the_savers_state(tmp_path: Path) -> None:
    folder = timm_fixture_run(tmp_path, "top1")
    inv = inventory_of(tmp_path)
    series = series_at(inv, folder)
    assert name_of(series.best) == "model_best.pth.tar"
    assert (series.best_metric, series.best_mode, series.best_value) == ("eval_top1", "max", 40.1)
    assert series.best_reason == ("timm CheckpointSaver state in last.pth.tar: best eval_top1 "
                                  "40.1 (epoch 4)")
    assert name_of(series.latest) == "last.pth.tar"
    assert _names(series.tool_kept) == {"checkpoint-5.pth.tar"} and series.tool_kept_ranked
    assert "--checkpoint-hist 3 keeps checkpoint-<epoch>.pth.tar only for its best epochs " \
           "by top1, max" in series.tool_kept_reason
    assert _names(series.protected) == {p.name for p in folder.glob("*.pth.tar")}
    artifacts = {a.name: a for a in inv.artifacts if a.kind == "checkpoint"}
    # the hidden epochs and exact scores come from the records
    assert (artifacts["last.pth.tar"].epoch, artifacts["model_best.pth.tar"].epoch) == (7, 4)
    assert artifacts["checkpoint-5.pth.tar"].metric("eval_top1") == 38.7
    assert artifacts["model_best.pth.tar"].copy_of == artifacts["checkpoint-4.pth.tar"].id


def test_timm_loss_is_minimised(tmp_path: Path) -> None:
    folder = timm_fixture_run(tmp_path, "loss")
    series = series_at(inventory_of(tmp_path), folder)
    assert (series.best_metric, series.best_mode, series.best_value) == ("eval_loss", "min", 0.3)
    assert "(epoch 3)" in series.best_reason
    assert _names(series.protected) == {p.name for p in folder.glob("*.pth.tar")}


def test_an_older_timm_without_saver_state_ranks_by_summary_csv(tmp_path: Path) -> None:
    folder = timm_fixture_run(tmp_path, "old")
    assert all(f["saver"] is None for f in TIMM_EXPECTED["old"]["files"].values())
    series = series_at(inventory_of(tmp_path), folder)
    assert series.best_reason == "timm summary.csv: best eval_top1 40.1 (epoch 4)"
    assert _names(series.tool_kept) == {"checkpoint-5.pth.tar"} and series.tool_kept_ranked


def test_more_numbered_files_than_the_history_keeps_only_the_best_k(tmp_path: Path) -> None:
    """checkpoint-1.pth.tar (top1 25.4 in summary.csv) is a save the saver would have
    deleted with --checkpoint-hist 3: not one of the tool's."""
    folder = timm_fixture_run(tmp_path, "top1")
    make(folder, {"checkpoint-1.pth.tar": os.urandom(3000)})
    series = series_at(inventory_of(tmp_path), folder)
    assert "checkpoint-1.pth.tar" not in _names(series.protected)
    assert "1 more numbered files rank below them" in series.tool_kept_reason


def test_timm_names_alone_make_an_unranked_top_k(tmp_path: Path) -> None:
    """No readable record (sparse files, a summary without the metric): the saver's
    naming still says every numbered file is one of its top-k; their order is unknown."""
    run = tmp_path / "output/train/20261130-172000-resnet50-224"
    make(run, {name: Sparse(2_000_000) for name in (
        "last.pth.tar", "model_best.pth.tar", "checkpoint-11.pth.tar", "checkpoint-12.pth.tar")})
    series = series_at(inventory_of(tmp_path), run)
    assert _names(series.tool_kept) == {"checkpoint-11.pth.tar", "checkpoint-12.pth.tar"}
    assert not series.tool_kept_ranked


def test_one_timm_record_is_read_per_folder_and_a_rescan_reads_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    timm_fixture_run(tmp_path, "top1")
    spy = mock.Mock(wraps=timm_records.read_timm_checkpoint)
    monkeypatch.setattr(series_timm, "read_timm_checkpoint", spy)
    series_timm._facts.cache_clear()
    inventory_of(tmp_path)
    inventory_of(tmp_path)
    assert [os.path.basename(call.args[0]) for call in spy.call_args_list] == ["last.pth.tar"]


def test_training_args_bin_is_read_as_data() -> None:
    from layouts_tools import HF

    retention = read_training_args(str(HF / HF_RUN / "checkpoint-24" / "training_args.bin"))
    assert retention is not None
    assert (retention.save_total_limit, retention.load_best_model_at_end,
            retention.metric_for_best_model, retention.greater_is_better) == (
        4, True, "eval_loss", False)


def test_hf_series_learns_what_save_total_limit_keeps(tmp_path: Path) -> None:
    out = hf_fixture_run(tmp_path)
    series = series_at(inventory_of(tmp_path), out)
    assert name_of(series.best) == "checkpoint-8" and name_of(series.latest) == "checkpoint-24"
    assert (series.best_metric, series.best_mode) == ("eval_loss", "min")
    assert [name_of(m) for m in series.tool_kept] == ["checkpoint-20", "checkpoint-16"]
    assert series.tool_kept_newest_first and not series.tool_kept_ranked
    assert series.tool_kept_reason == (
        "HF Trainer's training_args.bin (in checkpoint-24): save_total_limit=4 with "
        "load_best_model_at_end keeps the newest 4 and the best by eval_loss")
    assert _names(series.protected) == set(HF_KEPT)


def test_an_hf_checkpoint_beyond_the_limit_is_not_the_trainers(tmp_path: Path) -> None:
    out = hf_fixture_run(tmp_path)
    make(out / "checkpoint-4", {"model.safetensors": Sparse(265_760)})
    series = series_at(inventory_of(tmp_path), out)
    assert "checkpoint-4" not in _names(series.protected)
    assert series.tool_kept_reason.endswith("; 1 older ones are beyond that limit")


@pytest.mark.parametrize("damage", ["missing", "truncated", "not a pickle"])
def test_unreadable_training_args_fall_back_to_the_records_that_remain(
        tmp_path: Path, damage: str) -> None:
    out = hf_fixture_run(tmp_path)
    for name in HF_KEPT:
        args = out / name / "training_args.bin"
        if damage == "missing":
            args.unlink()
        else:
            data = args.read_bytes()
            args.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"\x80\x04K")
    series = series_at(inventory_of(tmp_path), out)
    assert series.tool_kept == ()
    assert {"checkpoint-8", "checkpoint-24"} <= _names(series.protected)
