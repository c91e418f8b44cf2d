"""`mlspace scan --format json|csv` with categories, and `mlspace inventory`."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

from cli_runner import run_mlspace
from layouts import make, trainer_state


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args)


def workspace(root: Path) -> Path:
    spec: dict[str, object] = {}
    evals = [(100, 0.9), (200, 0.4), (300, 0.5)]
    for step in (100, 200, 300):
        spec[f"runs/bert/checkpoint-{step}/model.safetensors"] = 3000
        spec[f"runs/bert/checkpoint-{step}/optimizer.pt"] = 6000
        spec[f"runs/bert/checkpoint-{step}/trainer_state.json"] = trainer_state(
            step, "runs/bert/checkpoint-200", 0.4, evals[: step // 100])
    spec.update({f"data/train/cls{c}/img_{i}.jpg": 500 for c in range(2) for i in range(10)})
    spec["wandb/run-20240101_120000-abc123de/files/output.log"] = "x\n"
    spec["src/__pycache__/m.cpython-311.pyc"] = 100
    return make(root, spec)


def test_scan_json_has_a_category_per_file_and_totals_per_category(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    result = mlspace("scan", str(root), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    files = {f["path"]: f for f in doc["files"]}
    assert files["runs/bert/checkpoint-200/optimizer.pt"]["category"] == "checkpoint"
    assert files["runs/bert/checkpoint-200/optimizer.pt"]["artifact"] == \
        f"checkpoint:{root}/runs/bert/checkpoint-200"
    assert files["data/train/cls0/img_3.jpg"]["category"] == "dataset"
    assert files["src/__pycache__/m.cpython-311.pyc"]["category"] == "cache"
    cats = doc["categories"]
    assert set(cats) == {"checkpoint", "dataset", "augmented", "log", "debug", "cache", "other"}
    for cat, totals in cats.items():
        mine = [f for f in doc["files"] if f["category"] == cat]
        assert totals["disk_usage"] == sum(f["disk_usage"] for f in mine), cat
        assert totals["files"] == sum(1 for f in mine if f["kind"] != "dir"), cat
    assert sum(c["disk_usage"] for c in cats.values()) == doc["totals"]["disk_usage"]


def test_scan_csv_has_category_and_artifact_columns(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    result = mlspace("scan", str(root), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert {"category", "artifact"} <= set(rows[0])
    by_path = {r["path"]: r for r in rows}
    assert by_path["wandb/run-20240101_120000-abc123de/files/output.log"]["category"] == "log"


def test_inventory_tells_best_and_latest(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    result = mlspace("inventory", str(root))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Checkpoints" in out and "Datasets" in out
    assert "best: checkpoint-200 (eval_loss 0.4, min)" in out
    assert "latest: checkpoint-300 (step 300)" in out


def test_inventory_json(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    doc = json.loads(mlspace("inventory", str(root), "--format", "json").stdout)
    assert doc["version"] == 1
    series = next(s for s in doc["series"] if s["path"] == f"{root}/runs/bert")
    assert series["best"] == f"checkpoint:{root}/runs/bert/checkpoint-200"
    assert series["latest"] == f"checkpoint:{root}/runs/bert/checkpoint-300"
    assert series["best_metric"] == "eval_loss"
    run = next(r for r in doc["runs"] if r["path"] == f"{root}/runs/bert")
    assert run["series"] == [series["id"]]
    kinds = {a["kind"] for a in doc["artifacts"]}
    assert {"checkpoint", "run", "cache"} <= kinds


def test_bad_user_rules_warn_on_stderr(tmp_path: Path, isolated_user_dirs: Path) -> None:
    rules = isolated_user_dirs / ".config" / "mlspace" / "rules.toml"
    rules.parent.mkdir(parents=True)
    rules.write_text("[[file]\n")
    result = mlspace("inventory", str(workspace(tmp_path / "ws")))
    assert result.returncode == 0
    assert "warning:" in result.stderr and "rules.toml" in result.stderr


def test_an_output_file_named_json_gets_json(tmp_path: Path) -> None:
    """-o FILE.json writes JSON (it once wrote the text table into it); --format still
    decides when given, and any other name gets the table."""
    root = workspace(tmp_path / "ws")
    for command in ("inventory", "plan"):
        out = tmp_path / f"{command}.json"
        assert mlspace(command, str(root), "-o", str(out)).returncode == 0
        assert json.loads(out.read_text())["version"] == 1
        table = tmp_path / f"{command}.txt"
        assert mlspace(command, str(root), "-o", str(table)).returncode == 0
        assert not table.read_text().lstrip().startswith("{")
        forced = tmp_path / f"{command}-table.json"
        assert mlspace(command, str(root), "-o", str(forced), "--format", "table"
                       ).returncode == 0
        assert not forced.read_text().lstrip().startswith("{")
