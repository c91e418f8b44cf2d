"""Sixth round of issue 27's principles, found on heldout4's pipeline framework: a JSON
object that names the run it belongs to (a run, task or attempt id) and when is a record
of that run, and so are the structured-text files beside it; a run's JSON record whose
name hides its format is a record too. From mljar-supervised's model folders: images named
for what they show (roc_curve.png) are the figures a run drew of itself. From TorchRL's
replay buffer: memory-mapped arrays are data, and so is what describes them."""

from __future__ import annotations

import json
from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make


def _meta(field: str, stamp: int) -> str:
    return json.dumps({"flow_id": "Train", "run_number": "1796", "step_name": "train",
                       "task_id": "2", "field_name": field, "type": field, "value": "x" * 40,
                       "tags": ["attempt_id:0"], "ts_epoch": stamp})


def test_json_records_that_name_their_run_and_time_are_logs_with_their_folder(
        tmp_path: Path) -> None:
    fields = ("user", "runtime", "python_version", "script-name", "origin-run-id")
    root = make(tmp_path / "ws", {
        **{f"store/Train/1796/train/2/_meta/sysmeta_{f}_17962229{i}.json": _meta(f, i)
           for i, f in enumerate(fields)},
        "store/Train/1796/train/2/_meta/_self.json": json.dumps({"flow_id": "Train",
                                                                 "ts_epoch": 1}),
        "store/Train/1796/train/2/0.runtime_stdout.log": "fitting\n",
        "store/Train/1796/train/2/0.task_begin": json.dumps({"code_package_sha": None,
                                                             "retry_count": 0}),
        "store/Train/1796/train/2/0.attempt.json": json.dumps({"time": 1.5}),
    })
    cats = categories_by_path(inventory_of(root))
    for i, f in enumerate(fields):
        assert cats[f"store/Train/1796/train/2/_meta/sysmeta_{f}_17962229{i}.json"] == "log"
    assert cats["store/Train/1796/train/2/_meta/_self.json"] == "log"
    assert cats["store/Train/1796/train/2/0.task_begin"] == "log"


def test_json_that_names_no_run_is_not_made_a_record(tmp_path: Path) -> None:
    # per-image annotations (LabelMe's shape) and a model's config: no run, no time
    shapes = {f"labels/img_{i:03d}.json": json.dumps({
        "version": "5.2", "imagePath": f"img_{i:03d}.jpg", "imageHeight": 480,
        "imageWidth": 640, "shapes": [{"label": "cat", "points": [[1, 2], [3, 4]]}]})
        for i in range(6)}
    root = make(tmp_path / "ws", {
        **shapes,
        # a task name and a date alone name no run: a dataset card
        "cards/card.json": json.dumps({"task": "classification", "date": "2026-01-01",
                                       "license": "cc-by", "description": "x" * 40}),
        "cards/other.json": json.dumps({"license": "cc-by"}),
    })
    cats = categories_by_path(inventory_of(root))
    assert all(cats[p] != "log" for p in shapes)
    assert cats["cards/card.json"] != "log"


def test_images_named_for_what_they_show_are_the_runs_figures(tmp_path: Path) -> None:
    figures = ["roc_curve.png", "confusion_matrix.png", "lift_curve.png",
               "features_heatmap.png", "permutation_importance.png", "learning_curves.png",
               "calibration_curve.png", "shap_summary.png", "precision_recall_curve.png",
               "ks_statistic.png", "ldb_performance_boxplot.png"]
    png = Sparse(30_000, b"\x89PNG\r\n\x1a\n")
    root = make(tmp_path / "ws", {
        **{f"AutoML_1/2_Linear/{f}": png for f in figures},
        **{f"AutoML_1/1_Baseline/{f}": png for f in figures[:4]},  # a few
        # a dataset of charts is numbered, and a folder a rule calls data stays data
        **{f"charts/chart_{i:05d}.png": png for i in range(12)},
        **{f"data/scicap/{f}": png for f in figures},
        **{f"photos/img_{i:04d}.jpg": Sparse(30_000, b"\xff\xd8\xff") for i in range(12)},
    })
    cats = categories_by_path(inventory_of(root))
    for f in figures:
        assert cats[f"AutoML_1/2_Linear/{f}"] == "log", f
        assert cats[f"data/scicap/{f}"] == "dataset", f
    for f in figures[:4]:
        assert cats[f"AutoML_1/1_Baseline/{f}"] == "log", f
    assert {cats[f"charts/chart_{i:05d}.png"] for i in range(12)} == {"dataset"}
    assert {cats[f"photos/img_{i:04d}.jpg"] for i in range(12)} == {"dataset"}


def test_memory_mapped_arrays_and_their_description_are_data(tmp_path: Path) -> None:
    # TorchRL's ReplayBuffer.dumps(): one raw .memmap a key, and a meta.json of their shapes
    keys = ("observation", "action", "reward", "done")
    meta = json.dumps({k: {"device": "cpu", "shape": [10000, 4], "dtype": "torch.float32"}
                       for k in keys})
    root = make(tmp_path / "ws", {
        **{f"replay_buffer/storage/{k}.memmap": bytes(4000) for k in keys},
        "replay_buffer/storage/meta.json": meta,
        "replay_buffer/storage/storage_metadata.json": '{"metadata": {}, "len": 6000}',
        # the same store saved inside a checkpoint is the checkpoint's
        **{f"checkpoints/checkpoint-5000/replay/{k}.memmap": bytes(4000) for k in keys},
        "checkpoints/checkpoint-5000/replay/meta.json": meta,
    })
    cats = categories_by_path(inventory_of(root))
    for k in keys:
        assert cats[f"replay_buffer/storage/{k}.memmap"] == "dataset"
        assert cats[f"checkpoints/checkpoint-5000/replay/{k}.memmap"] == "checkpoint"
    assert cats["replay_buffer/storage/meta.json"] == "dataset"
    assert cats["replay_buffer/storage/storage_metadata.json"] == "dataset"
    assert cats["checkpoints/checkpoint-5000/replay/meta.json"] == "checkpoint"
