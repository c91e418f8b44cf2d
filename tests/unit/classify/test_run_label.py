"""A run is named by its folder below the scanned one (projB/lightning_logs/version_0), since
every Lightning run is version_N: Inventory.run_label, the one place the app names runs."""

from __future__ import annotations

from pathlib import Path

from layouts import make

from mlspace.classify import Inventory, classify
from mlspace.scan import ScanOptions, scan

CKPT = "lightning_logs/version_0/checkpoints/epoch=1-step=200-val_loss=0.50.ckpt"


def _labels(inv: Inventory) -> set[str]:
    return {inv.run_label(run) for run in inv.runs}


def _two_projects(root: Path) -> Path:
    return make(root, {f"projA/{CKPT}": 3000, f"projB/{CKPT}": 3000})


def test_a_run_is_named_below_the_scanned_folder(tmp_path: Path) -> None:
    inv = classify(scan([_two_projects(tmp_path)], ScanOptions(workers=1)))
    assert _labels(inv) == {"projA/lightning_logs/version_0", "projB/lightning_logs/version_0"}


def test_with_several_folders_scanned_each_names_its_own(tmp_path: Path) -> None:
    """Scanned as two folders, the two version_0 still differ: by the scanned folder's name."""
    root = _two_projects(tmp_path)
    inv = classify(scan([root / "projA", root / "projB"], ScanOptions(workers=1)))
    assert _labels(inv) == {"projA/lightning_logs/version_0", "projB/lightning_logs/version_0"}


def test_a_run_that_is_the_scanned_folder_is_named_by_it(tmp_path: Path) -> None:
    run = _two_projects(tmp_path) / "projA" / "lightning_logs" / "version_0"
    inv = classify(scan([run], ScanOptions(workers=1)))
    assert _labels(inv) == {"version_0"}
