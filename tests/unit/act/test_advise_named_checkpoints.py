"""A checkpoint named best, last, latest, final or top-k is never suggested, at any risk
level and whatever keep counts are asked for; a folder of fixed-name component files is one
checkpoint, never a series; and where the best is not known, retention keeps the newest
complete checkpoint and everything named best or final, and says so (issue 27)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hostile_helpers import suggested_paths, touches
from layouts import inventory_of, make, name_of, series_at
from workspaces import age

from mlspace.advise import REVIEW, AdviceSettings, advise
from mlspace.advise.duplicates import find_duplicates

#: Every risk level: the defaults, nothing kept but what must be, and every age-based
#: policy made to fire (a clock years ahead, no thresholds).
_LATER = time.time() + 10 * 365 * 86400
SETTINGS = (AdviceSettings(), AdviceSettings(keep_best=0, keep_latest=0),
            AdviceSettings(keep_best=0, keep_latest=1, now=_LATER, augmented_min_age_days=0,
                           debug_min_age_days=0, logs_min_age_days=0, logs_min_bytes=0))


def finished(root: Path) -> Path:
    """A run that ended a month ago: nothing in it is being written."""
    age(root)
    return root


def _plans(root: Path):  # noqa: ANN202 - a generator of plans
    inv = inventory_of(root)
    for settings in SETTINGS:
        yield inv, advise(inv, settings)


def _epochs_beside_a_best(root: Path) -> Path:
    """A tool nobody wrote a rule for: per-epoch saves and the one it names best."""
    spec: dict[str, object] = {f"work/unet_epoch_{e}.pth": 4000 for e in range(6)}
    spec["work/unet_best.pth"] = 4000
    return finished(make(root, spec))


def test_a_file_named_best_among_epochs_is_never_suggested(tmp_path: Path) -> None:
    root = _epochs_beside_a_best(tmp_path / "ws")
    for _, plan in _plans(root):
        paths = suggested_paths(plan)
        assert not touches(paths, str(root / "work/unet_best.pth"))
        assert not touches(paths, str(root / "work/unet_epoch_5.pth"))  # the newest
    series = series_at(inventory_of(root), root / "work")
    assert name_of(series.best) == "unet_best.pth"
    assert name_of(series.latest) == "unet_epoch_5.pth"
    plan = advise(inventory_of(root), AdviceSettings(keep_best=1, keep_latest=1))
    gone = {Path(p).name for p in suggested_paths(plan)}
    # Older epochs go (one of the same size may stay as what the best could be a copy of).
    assert gone <= {f"unet_epoch_{e}.pth" for e in range(5)} and len(gone) >= 4


@pytest.mark.parametrize("name", [
    "model-best", "model-last", "final_model", "ckpt_latest", "weights-top-k-1",
])
def test_named_checkpoint_folders_are_kept_at_every_risk_level(tmp_path: Path,
                                                               name: str) -> None:
    spec: dict[str, object] = {}
    for step in (100, 200, 300):
        spec[f"run/checkpoints/step_{step}.pt"] = 5000
    spec[f"run/checkpoints/{name}/weights.pt"] = 5000
    spec[f"run/checkpoints/{name}/config.json"] = "{}"
    spec["run/checkpoints/final.pt"] = 5000
    root = make(tmp_path / "ws", spec)
    for _, plan in _plans(root):
        paths = suggested_paths(plan)
        assert not touches(paths, str(root / f"run/checkpoints/{name}"))
        assert not touches(paths, str(root / "run/checkpoints/final.pt"))


def _skorch_like(root: Path) -> Path:
    """A fixed-name checkpoint of component files and its train_end_ twin, in one folder."""
    spec: dict[str, object] = {}
    for prefix in ("", "train_end_"):
        for part in ("params.pt", "optimizer.pt", "criterion.pt"):
            spec[f"exp/{prefix}{part}"] = 3000
        spec[f"exp/{prefix}history.json"] = '[{"epoch": 1, "valid_loss": 0.4}]'
    return make(root, spec)


def test_fixed_name_component_files_are_one_checkpoint_never_a_series(tmp_path: Path) -> None:
    root = _skorch_like(tmp_path / "ws")
    inv = inventory_of(root)
    series = series_at(inv, root / "exp")
    assert len(series.members) == 2  # the set and its train_end_ twin
    members = [inv.artifact_by_id[m] for m in series.members]
    # params, criterion, optimizer and history in each
    assert sorted(len(m.entries) for m in members) == [4, 4]
    assert set(series.protected) == set(series.members)
    for _, plan in _plans(root):
        paths = suggested_paths(plan)
        for name in ("params.pt", "criterion.pt", "train_end_params.pt"):
            assert not touches(paths, str(root / "exp" / name)), name
    # The two histories are byte for byte the same: still no copy of a kept set goes.
    with_copies = advise(inv, SETTINGS[2], find_duplicates(inv, min_size=1))
    assert not {Path(p).name for p in suggested_paths(with_copies)} & {
        "history.json", "train_end_history.json", "params.pt", "optimizer.pt"}


def test_unknown_best_keeps_the_newest_and_the_named_and_says_so(tmp_path: Path) -> None:
    spec: dict[str, object] = {f"run/net_{i}.pt": 2000 for i in range(1, 6)}
    spec["run/net_final.pt"] = 2000
    root = finished(make(tmp_path / "ws", spec))
    inv = inventory_of(root)
    series = series_at(inv, root / "run")
    assert series.best is None
    plan = advise(inv, AdviceSettings(keep_best=1, keep_latest=0))
    retention = next(s for s in plan.suggestions if s.policy == "checkpoint-retention")
    assert retention.risk == REVIEW
    assert "newest complete checkpoint and anything named best, last or final" in \
        retention.reason
    gone = {Path(p).name for p in retention.paths}
    assert gone == {f"net_{i}.pt" for i in range(1, 5)}
    kept = {Path(k.path).name for k in retention.kept}
    assert kept == {"net_5.pt", "net_final.pt"}


def test_a_score_in_the_names_orders_the_series_in_its_direction(tmp_path: Path) -> None:
    losses = {1: 0.61, 2: 0.43, 3: 0.52}
    accs = {1: 0.71, 2: 0.93, 3: 0.88}
    negs = {1: -0.61, 2: -0.43, 3: -0.52}
    spec: dict[str, object] = {}
    for e in losses:
        spec[f"loss/m_epoch_{e}_val_loss={losses[e]}.pt"] = 100
        spec[f"acc/m_epoch_{e}_acc{accs[e]}.pt"] = 100
        spec[f"neg/epoch={e}-neg_val_loss={negs[e]}.ckpt"] = 100
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    assert name_of(series_at(inv, root / "loss").best) == "m_epoch_2_val_loss=0.43.pt"
    assert name_of(series_at(inv, root / "acc").best) == "m_epoch_2_acc0.93.pt"
    neg = series_at(inv, root / "neg")
    assert name_of(neg.best) == "epoch=2-neg_val_loss=-0.43.ckpt"
    assert neg.best_mode == "max"
