"""A checkpoint copied out of its run (a tracker's download of the version it resolved,
an export) was chosen: a cleanup of the series keeps it and says why (classify.
series_copies). A folder of copies of several members is a backup, which protects nothing;
saves of one size whose bytes differ are no copies."""

from __future__ import annotations

import os
from pathlib import Path

from layouts import inventory_of, make, name_of, series_at
from layouts_corpus import permissive_plan

from mlspace.classify.artifacts import checkpoint_files
from mlspace.classify.engine import classify_entries
from mlspace.classify.rule_files import load_rules
from mlspace.classify.series_copies import copied_out
from mlspace.scan import scan


def _save(epoch: int) -> bytes:
    """A torch-zip-like save of fixed size whose ends differ per epoch (as the CRCs of a
    real save's tensors do)."""
    ends = f"PK-epoch-{epoch:02d}-".encode() * 300
    return ends + bytes(2000) + ends


def _trackio_like(root: Path) -> Path:
    return make(root, {
        **{f"mlp/checkpoints/lr-0.01/epoch_{k}.pt": _save(k) for k in range(8)},
        # what `use_artifact("mlp-lr-0.01:best").download()` wrote: epoch 5's bytes
        "mlp/.trackio/artifact-downloads/mlp-regression/mlp-lr-0.01_v5/epoch_5.pt": _save(5),
        "mlp/train.py": "import trackio\n",
    })


def _suggested(root: Path) -> set[str]:
    plan = permissive_plan(inventory_of(root))
    return {os.path.relpath(item.path, root) for s in plan.suggestions for item in s.items
            if s.policy == "checkpoint-retention"}


def test_a_checkpoint_downloaded_from_a_tracker_is_kept_and_the_plan_says_why(
        tmp_path: Path) -> None:
    root = _trackio_like(tmp_path / "ws")
    suggested = _suggested(root)
    assert "mlp/checkpoints/lr-0.01/epoch_5.pt" not in suggested
    assert "mlp/checkpoints/lr-0.01/epoch_4.pt" in suggested  # the rest may still go
    series = series_at(inventory_of(root), root / "mlp/checkpoints/lr-0.01")
    assert name_of(series.latest) == "epoch_7.pt"
    assert "epoch_5.pt was copied out of the run (identical at " in series.best_reason
    assert any(name_of(m) == "epoch_5.pt" for m in series.protected)


def test_same_size_saves_with_other_bytes_and_a_backup_of_the_run_are_no_picks(
        tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        **{f"run/ckpt/epoch_{k}.pt": _save(k) for k in range(6)},
        # another run of the same model: the same names and sizes, other weights
        **{f"run2/ckpt/epoch_{k}.pt": _save(k + 10) for k in range(6)},
        # a backup of three saves of the first run
        **{f"backup/epoch_{k}.pt": _save(k) for k in (1, 2, 3)},
    })
    suggested = _suggested(root)
    for k in (1, 2, 3):
        assert f"run/ckpt/epoch_{k}.pt" in suggested
    assert "run2/ckpt/epoch_1.pt" in suggested


def test_copies_are_confirmed_by_their_bytes_not_their_names(tmp_path: Path) -> None:
    root = _trackio_like(tmp_path / "ws")
    snap = scan([str(root)])
    found = checkpoint_files(snap, classify_entries(snap, load_rules().compile()))
    copies = copied_out(found)
    original = str(root / "mlp/checkpoints/lr-0.01/epoch_5.pt")
    assert set(copies) == {original, str(root / "mlp/.trackio/artifact-downloads/"
                                         "mlp-regression/mlp-lr-0.01_v5/epoch_5.pt")}
    assert copies[original].endswith("mlp-lr-0.01_v5/epoch_5.pt")
