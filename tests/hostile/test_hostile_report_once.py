"""Reports count each byte once. A Lightning ``version_N`` folder is a run (a log item)
holding the run's checkpoints: listed at its whole size, its .ckpt files were counted
twice, once under "log", and a spreadsheet's sums per category of the CSV disagreed with
the report's categories. Now every item lists the bytes that are its own, and the rest of
each category has a row of its own, so the formats add up to the scan's categories."""

from __future__ import annotations

import csv
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hostile_helpers import assert_clean_run, mlspace_cli
from workspaces import age

from mlspace import fmt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lightning" / "min"
RUN = "lightning_logs/version_0"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A Lightning run as Lightning writes it (real .ckpt files), with 2 MiB of event
    files and a second, checkpoint-free run beside it."""
    root = tmp_path / "ws"
    checkpoints = root / RUN / "checkpoints"
    checkpoints.mkdir(parents=True)
    for ckpt in FIXTURES.iterdir():
        shutil.copy2(ckpt, checkpoints / ckpt.name)
    (root / RUN / "hparams.yaml").write_text("hidden: 8\nlr: 0.001\n")
    (root / RUN / "metrics.csv").write_text("epoch,step,val_loss\n0,2,1.2\n")
    (root / RUN / "events.out.tfevents.1796059278.gpu01.4242.0").write_bytes(
        os.urandom(2 << 20))
    (root / "lightning_logs/version_1").mkdir()
    (root / "lightning_logs/version_1/hparams.yaml").write_text("hidden: 16\n")
    (root / "data" / "train").mkdir(parents=True)
    (root / "data" / "train" / "shard-0.parquet").write_bytes(os.urandom(300_000))
    (root / "train.py").write_text("print('hi')\n")
    age(root)
    return root


def _report(root: Path, out: Path) -> Path:
    assert_clean_run(mlspace_cli("report", str(root), "-o", str(out)))
    return out


def test_csv_and_json_add_up_to_the_scans_categories(workspace: Path, tmp_path: Path) -> None:
    doc = json.loads(_report(workspace, tmp_path / "r.json").read_text())
    with _report(workspace, tmp_path / "r.csv").open() as f:
        rows = list(csv.DictReader(f))
    for size in ("disk_usage", "apparent_size"):
        categories = {c["id"]: c[size] for c in doc["categories"] if c[size]}
        from_csv: Counter[str] = Counter()
        for row in rows:
            from_csv[row["category"]] += int(row[size])
        assert {k: v for k, v in from_csv.items() if v} == categories
        from_json: Counter[str] = Counter()
        for item in doc["artifacts"]:
            from_json[item["category"]] += item[size]
        for category, rest in doc["outside_artifacts"].items():
            from_json[category] += rest[size]
        assert {k: v for k, v in from_json.items() if v} == categories
    assert sum(c["disk_usage"] for c in doc["categories"]) == doc["totals"]["disk_usage"]


def test_the_run_is_listed_with_its_logs_and_its_checkpoints_once(
        workspace: Path, tmp_path: Path) -> None:
    doc = json.loads(_report(workspace, tmp_path / "r.json").read_text())
    items = {a["path"]: a for a in doc["artifacts"]}
    run = items[str(workspace / RUN)]
    checkpoints = [a for a in doc["artifacts"] if a["kind"] == "checkpoint"]
    assert len(checkpoints) == 3
    assert run["category"] == "log"
    # Its own bytes: the logs (the events file and the records), none of the checkpoints.
    logs = sum(os.lstat(p).st_blocks * 512 for p in (workspace / RUN).iterdir()
               if p.is_file()) + os.lstat(workspace / RUN).st_blocks * 512
    assert run["disk_usage"] == logs
    assert run["whole_disk_usage"] == logs + sum(a["disk_usage"] for a in checkpoints) + \
        os.lstat(workspace / RUN / "checkpoints").st_blocks * 512
    html = _report(workspace, tmp_path / "r.html").read_text()
    row = next(r for r in html.split("<tr>") if f"{workspace / RUN}</span>" in r)
    assert f"<td class=n>{fmt.size(logs)}</td>" in row
    markdown = _report(workspace, tmp_path / "r.md").read_text()
    line = next(r for r in markdown.splitlines() if r.endswith(f"`{workspace / RUN}` |"))
    assert line.startswith(f"| {fmt.size(logs)} | log |")
