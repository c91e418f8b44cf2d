"""`scan --save` keeps scans, `history` lists them, `diff` tells what changed between two."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from index_helpers import mlspace, scan_of
from layouts import make, trainer_state

from mlspace.index import history
from mlspace.index.diff import Side, diff
from mlspace.index.info import ScanInfo


def _hf_run(root: Path, name: str, steps: tuple[int, ...] = (100, 200)) -> Path:
    run = root / "outputs" / name
    for step in steps:
        make(run / f"checkpoint-{step}", {
            "model.safetensors": 20_000, "optimizer.pt": 40_000,
            "trainer_state.json": trainer_state(step, None, None, [])})
    return run


def _workspace(root: Path) -> Path:
    _hf_run(root, "bert")
    make(root, {f"data/train/img_{i}.jpg": 3000 for i in range(20)})
    return root


def test_growth_names_the_new_run_and_nothing_else(tmp_path: Path) -> None:
    """Scan and save, add a run, then `diff PATH PATH`: the saved scan against a fresh one."""
    root = _workspace(tmp_path / "ws")
    saved = mlspace("scan", str(root), "--save")
    assert saved.returncode == 0, saved.stderr
    assert "scan saved as" in saved.stderr
    run = _hf_run(root, "gpt-small", steps=(50, 100, 150))
    result = mlspace("diff", str(root), str(root), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["version"] == 1 and doc["to"]["fresh"] and doc["from"]["id"]
    assert [(c["path"], c["status"], c["category"]) for c in doc["changes"]] == \
        [(str(run), "new", "checkpoint")]
    assert [(r["path"], r["status"]) for r in doc["runs"]] == [(str(run), "new")]
    change = doc["changes"][0]
    assert change["before"] == 0 and change["delta"] == change["after"] > 0
    assert doc["totals"]["delta"] == change["delta"]
    assert doc["categories"]["checkpoint"]["delta"] == doc["totals"]["delta"] - \
        sum(v["delta"] for k, v in doc["categories"].items() if k != "checkpoint")
    table = mlspace("diff", str(root), str(root))
    assert "new" in table.stdout and str(run) in table.stdout


def test_shrinking_and_removal(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    _hf_run(root, "old-run")
    before = scan_of(root)
    for step in (100,):
        for item in (root / "outputs" / "bert" / f"checkpoint-{step}").iterdir():
            item.unlink()
        (root / "outputs" / "bert" / f"checkpoint-{step}").rmdir()
    for item in sorted((root / "outputs" / "old-run").rglob("*"), reverse=True):
        item.unlink() if item.is_file() else item.rmdir()
    (root / "outputs" / "old-run").rmdir()
    doc = diff(Side(before), Side(scan_of(root)))
    statuses = {(Path(c["path"]).relative_to(root).as_posix(), c["status"])
                for c in doc["changes"]}
    assert statuses == {("outputs/old-run", "removed"),
                        ("outputs/bert/checkpoint-100", "removed")}
    assert {(Path(r["path"]).name, r["status"]) for r in doc["runs"]} == \
        {("old-run", "removed"), ("bert", "shrunk")}
    assert doc["totals"]["delta"] < 0


def test_growth_in_two_places_names_the_two_places(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    before = scan_of(root)
    make(root, {"data/train/extra.jpg": 50_000, "outputs/bert/notes.txt": 10_000})
    doc = diff(Side(before), Side(scan_of(root)))
    named = {(Path(c["path"]).relative_to(root).as_posix(), c["status"])
             for c in doc["changes"]}
    # data/train grew by the image, outputs/bert by the note; their parents by just that
    assert named == {("data/train", "grown"), ("outputs/bert", "grown")}
    assert sum(c["delta"] for c in doc["changes"]) == doc["totals"]["delta"]


def test_history_lists_finds_and_thins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workspace(tmp_path / "ws")
    inventory = scan_of(root)
    monkeypatch.setattr(history, "KEEP_LAST", 3)
    day = 86400.0
    start = time.time() - 60 * day
    saved = [history.save(inventory, ScanInfo("box", "me", start + i * day, start + i * day))
             for i in range(30)]  # one a day for 30 days
    kept = history.entries(str(root))
    kept_ids = [e.id for e in kept]
    assert kept_ids[-3:] == [e.id for e in saved[-3:]]  # the last KEEP_LAST
    weeks = {time.strftime("%G-%V", time.localtime(e.finished)) for e in kept[:-3]}
    assert len(weeks) == len(kept) - 3  # then one a week
    assert all(e.path.exists() for e in kept)
    assert len(list(history.history_dir().glob("*.parquet"))) == len(kept)
    assert history.find(kept_ids[0][:15]).id == kept_ids[0]  # a unique prefix will do
    assert history.find(kept_ids[-1]).id == kept_ids[-1]
    assert history.latest(str(root)).id == kept_ids[-1]  # type: ignore[union-attr]
    with pytest.raises(LookupError):
        history.find("nothing-like-it")
    (history.history_dir() / "index.json").unlink()  # rebuilt from the files
    assert [e.id for e in history.entries()] == kept_ids


def test_history_command(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    assert "No saved scans" in mlspace("history").stdout
    assert mlspace("scan", str(root), "--save", "-o", str(tmp_path / "s.parquet")).returncode == 0
    listing = mlspace("history", str(root))
    assert listing.returncode == 0
    header, row = listing.stdout.splitlines()
    assert header.split()[:5] == ["ID", "DATE", "HOST", "TOTAL", "FILES"]
    assert row.endswith(str(root))
    scan_id = row.split()[0]
    by_id = mlspace("diff", scan_id, str(tmp_path / "s.parquet"), "--format", "json")
    assert by_id.returncode == 0, by_id.stderr
    assert json.loads(by_id.stdout)["changes"] == []
    missing = mlspace("diff", str(tmp_path), str(root))
    assert missing.returncode == 2 and "no saved scan of" in missing.stderr
    unknown = mlspace("diff", "zzz", str(root))
    assert unknown.returncode == 2 and "no saved scan 'zzz'" in unknown.stderr
