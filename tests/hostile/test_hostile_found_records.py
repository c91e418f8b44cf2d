"""The records the seventh and eighth rounds read (a ``latest`` pointer, a JSON listing
scored checkpoints, an SQLite database's sidecars) are read through mlspace.safe_read: a
FIFO in their place blocks nothing, a link out of the tree is not followed, and absurd
content is read as nothing rather than as a verdict."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hostile_helpers import answers_quickly, suggested_paths
from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make
from layouts_corpus import permissive_plan

STORE = "bentoml/models/iris_clf"
TAGS = ("qjjkpgho4cpqaax4", "qyi7qaxo4ct3gax4")


def _store(tmp_path: Path) -> Path:
    spec: dict[str, object] = {}
    for tag in TAGS:
        spec[f"{STORE}/{tag}/model.yaml"] = f"version: {tag}\n"
        spec[f"{STORE}/{tag}/saved_model.pkl"] = Sparse(30_000, b"\x80\x05")
    return make(tmp_path / "ws", spec)


def test_a_pointer_that_is_a_fifo_or_a_link_out_names_no_save(tmp_path: Path) -> None:
    root = _store(tmp_path)
    os.mkfifo(root / STORE / "latest")
    inv = answers_quickly(inventory_of, root)
    assert not [s for s in inv.series if s.latest_reason.startswith("DeepSpeed")]
    (root / STORE / "latest").unlink()
    outside = tmp_path / "elsewhere.txt"
    outside.write_text(TAGS[0])
    (root / STORE / "latest").symlink_to(outside)
    inv = answers_quickly(inventory_of, root)
    assert not [s for s in inv.series if s.latest_reason.startswith("DeepSpeed")]


def test_a_scores_listing_that_is_a_fifo_or_absurd_ranks_nothing(tmp_path: Path) -> None:
    folder = "logs/run/checkpoints"
    spec: dict[str, object] = {f"{folder}/runner.{n:04d}.pth": Sparse(9_000) for n in (3, 4, 7)}
    root = make(tmp_path / "ws", spec)
    os.mkfifo(root / folder / "runner.storage.json")
    inv = answers_quickly(inventory_of, root)
    (series,) = [s for s in inv.series if s.path.endswith("checkpoints")]
    assert "storage" not in series.best_reason
    (root / folder / "runner.storage.json").unlink()
    # nested past any sane depth, then a list of a million entries naming nothing here
    deep = "[" * 5000 + "]" * 5000
    (root / folder / "runner.storage.json").write_text(deep)
    (root / folder / "other.storage.json").write_text(json.dumps(
        {"minimize": True, "storage": [{"logpath": f"x{i}.pth", "metric": i}
                                       for i in range(100_000)]}))
    inv = answers_quickly(inventory_of, root)
    (series,) = [s for s in inv.series if s.path.endswith("checkpoints")]
    assert "storage" not in series.best_reason
    assert str(root / folder / "runner.0007.pth") not in suggested_paths(permissive_plan(inv))


def test_a_write_ahead_log_whose_database_is_a_fifo_or_a_link_is_no_record(tmp_path: Path
                                                                           ) -> None:
    root = make(tmp_path / "ws", {"state/orchestrator.db-wal": b"\x37\x7f\x06\x82" * 1000})
    os.mkfifo(root / "state/orchestrator.db")
    cats = categories_by_path(answers_quickly(inventory_of, root))
    assert cats["state/orchestrator.db-wal"] != "log"
    (root / "state/orchestrator.db").unlink()
    outside = tmp_path / "runs.db"
    outside.write_bytes(b"SQLite format 3\x00" + b"CREATE TABLE runs (id)" + b"\0" * 4000)
    (root / "state/orchestrator.db").symlink_to(outside)
    cats = categories_by_path(answers_quickly(inventory_of, root))
    assert cats["state/orchestrator.db-wal"] != "log"


def test_a_sweeps_record_swapped_for_a_fifo_a_link_out_or_absurd_lists_no_save(
        tmp_path: Path) -> None:
    """Round 12's record of a sweep (``results.json`` scoring the files beside it): read
    through safe_read once, so a FIFO swapped in after the walk blocks nothing, a link out
    of the tree is not followed, and a record deeper than the parser goes, or not UTF-8,
    makes no saves of the arrays."""
    from mlspace.classify import classify
    from mlspace.scan import scan

    folder = "outputs/sweep"
    arrays = {f"{folder}/ridge_alpha{a}.npy": b"\x93NUMPY" + bytes(200) for a in (1, 2, 3)}
    listing = json.dumps({"trials": [{"val_mse": 5.0 - a, "weights": f"ridge_alpha{a}.npy"}
                                     for a in (1, 2, 3)]})
    root = make(tmp_path / "ws", {**arrays, f"{folder}/results.json": listing})
    record = root / folder / "results.json"
    assert categories_by_path(inventory_of(root))[f"{folder}/ridge_alpha1.npy"] == "checkpoint"
    snapshot = scan([str(root)])
    record.unlink()
    os.mkfifo(record)  # swapped after the walk saw a JSON of that size
    cats = categories_by_path(answers_quickly(classify, snapshot))
    assert cats[f"{folder}/ridge_alpha1.npy"] != "checkpoint"
    record.unlink()
    outside = tmp_path / "outside.json"
    outside.write_text(listing)
    record.symlink_to(outside)
    cats = categories_by_path(answers_quickly(inventory_of, root))
    assert cats[f"{folder}/ridge_alpha1.npy"] != "checkpoint"
    for absurd in ("[" * 100_000 + "]" * 100_000, b"\xff\xfe" + bytes(300)):
        record.unlink()
        record.write_bytes(absurd.encode() if isinstance(absurd, str) else absurd)
        cats = categories_by_path(answers_quickly(inventory_of, root))
        assert cats[f"{folder}/ridge_alpha1.npy"] != "checkpoint"
