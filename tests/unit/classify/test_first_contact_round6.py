"""Sixth round of issue 27's principles, found on heldout4's pipeline framework: a JSON
object that names the run it belongs to (a run, task or attempt id) and when is a record
of that run, and so are the structured-text files beside it; a run's JSON record whose
name hides its format is a record too."""

from __future__ import annotations

import json
from pathlib import Path

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
