"""Tenth round of issue 27's principles, from heldout9's first contact, where four
suggestions touched a recorded best or latest (one *safe*):

- a best kept beside the periodic saves that shares the newest one's step does not make the
  periodic save an older one (Sample Factory's ``best_<step>_..._reward_<r>.pth`` beside
  ``checkpoint_<step>_<env steps>.pth``: the latter was offered as *safe*);
- a hex digest is no epoch (``e009700001_e3``), and saves whose names carry several configs'
  ids are one series per config (a search's ``<config digest>_e<budget>.joblib``);
- numbered folders in a folder of checkpoints that hold the same names are each one save
  (an experiment tracker's ``checkpoints/<step>/`` with ``model.pth`` and ``info.json``):
  the ``info.json`` of the latest is no duplicate to remove;
- pictures in a folder named for figures are the run's record; single-cell data files
  (``.h5ad``) are data; ``<file>.lock`` beside its file is the tool's state.
"""

from __future__ import annotations

from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make
from layouts_corpus import permissive_plan

from mlspace.classify.checkpoint_names import parse_checkpoint_name
from mlspace.classify.save_kinds import config_ids

_TORCH = Sparse(3_214_353, b"PK\x03\x04" + b"\x00" * 26 + b"archive/data.pkl")
_JOBLIB = Sparse(22_613, b"\x80\x04\x95" + b"\x00" * 8 + b"sklearn.neural_network")


def _touched(inv) -> set[str]:  # noqa: ANN001 - an Inventory
    return {item.path for s in permissive_plan(inv).suggestions for item in s.items}


def test_a_best_at_the_newest_step_leaves_the_newest_save_the_latest(tmp_path: Path) -> None:
    folder = "train_dir/cartpole_appo/checkpoint_p0"
    root = make(tmp_path / "ws", {
        f"{folder}/checkpoint_000000139_35584.pth": _TORCH,
        f"{folder}/checkpoint_000000158_40448.pth": _TORCH,
        f"{folder}/best_000000158_40448_reward_171.140.pth": _TORCH,
        "train_dir/cartpole_appo/sf_log.txt": b"Saving new best policy, reward=171.140!\n",
    })
    inv = inventory_of(root)
    series = next(s for s in inv.series if s.path == str(root / folder))
    assert series.latest == f"checkpoint:{root / folder}/checkpoint_000000158_40448.pth"
    touched = _touched(inv)
    assert str(root / folder / "checkpoint_000000158_40448.pth") not in touched
    assert str(root / folder / "best_000000158_40448_reward_171.140.pth") not in touched
    assert str(root / folder / "checkpoint_000000139_35584.pth") in touched


def test_a_digest_is_no_epoch_and_each_config_is_a_series(tmp_path: Path) -> None:
    assert parse_checkpoint_name("e009700001_e3.pt").epoch == 3  # type: ignore[union-attr]
    assert parse_checkpoint_name("e12ee4c859_e3.pt").epoch == 3  # type: ignore[union-attr]
    assert parse_checkpoint_name("net-e100.pth").epoch == 100  # type: ignore[union-attr]
    assert config_ids(["checkpoint_000000158_40448.pth", "best_000000158_40448.pth"]) is None
    assert config_ids(["model_epoch3.pt", "model_epoch4.pt"]) is None
    root = make(tmp_path / "ws", {
        "models/33273df29d_e3.joblib": _JOBLIB,
        "models/33273df29d_e9.joblib": _JOBLIB,
        "models/33273df29d_e27.joblib": _JOBLIB,
        "models/f464cd2624_e27.joblib": _JOBLIB,
        "models/e009700001_e3.joblib": _JOBLIB,
        "tune.py": b"from dehb import DEHB\n",
    })
    inv = inventory_of(root)
    assert len([s for s in inv.series if s.path == str(root / "models")]) == 3
    touched = _touched(inv)
    for kept in ("33273df29d_e27", "f464cd2624_e27", "e009700001_e3"):
        assert str(root / f"models/{kept}.joblib") not in touched  # each config's latest
    assert str(root / "models/33273df29d_e3.joblib") in touched  # superseded by its e27
    reasons = [s.reason for s in permissive_plan(inv).suggestions
               if any("33273df29d_e3" in i.path for i in s.items)]
    assert reasons and all("config 33273df29d" in r for r in reasons)


def test_numbered_save_folders_in_a_checkpoints_folder_are_each_one_save(
        tmp_path: Path) -> None:
    info = b'{"model": "model.pth"}'
    spec: dict[str, object] = {}
    for run, steps in (("6f3bcd4eef1011f1969802fc00000001", (100, 200, 300)),
                       ("73aeff72ef1011f1b39d02fc00000001", (400, 500, 600))):
        for step in steps:
            spec[f"logs/mlp/{run}/checkpoints/{step}/model.pth"] = \
                Sparse(60_000 + step, b"PK\x03\x04" + b"\x00" * 26 + b"archive/data.pkl")
            spec[f"logs/mlp/{run}/checkpoints/{step}/info.json"] = info
        spec[f"logs/mlp/{run}/run.yaml"] = b"name: mlp\n"
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    first = str(root / "logs/mlp/6f3bcd4eef1011f1969802fc00000001/checkpoints")
    series = next(s for s in inv.series if s.path == first)
    assert series.latest == f"checkpoint:{first}/300"
    touched = _touched(inv)
    assert not {p for p in touched if p.startswith((f"{first}/300", first.replace(
        "6f3bcd4eef1011f1969802fc00000001", "73aeff72ef1011f1b39d02fc00000001") + "/600"))}
    assert f"{first}/100" in touched


def test_figures_single_cell_data_and_a_files_lock(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 4000
    root = make(tmp_path / "ws", {
        "figures/umap_leiden.png": png,
        "figures/violin_qc.png": png,
        "write/pbmc3k.h5ad": Sparse(500_000, b"\x89HDF\r\n\x1a\n"),
        "orion_db.pkl": b"\x80\x04" + b"\x00" * 100,
        "orion_db.pkl.lock": b"",
        "poetry.lock": b"[[package]]\nname = 'numpy'\n",
    })
    got = categories_by_path(inventory_of(root))
    assert got["figures/umap_leiden.png"] == "log"
    assert got["write/pbmc3k.h5ad"] == "dataset"
    assert got["orion_db.pkl.lock"] == "cache"
    assert got["poetry.lock"] != "cache"


def test_a_folder_named_best_keeps_every_save_and_a_recency_number_counts_back(
        tmp_path: Path) -> None:
    """DeepChem's TorchModel: models/<name>/checkpoint1.pt is the newest save (each save
    renames checkpoint<k> to checkpoint<k+1>), and its best-model callback keeps its own
    rotation in best/. Found in heldout10 at first contact."""
    import os

    weights = Sparse(205_037, b"PK\x03\x04" + b"\x00" * 26 + b"archive/data.pkl")
    spec: dict[str, object] = {f"models/mtr/checkpoint{k}.pt": weights for k in (1, 2, 3)}
    spec |= {f"models/mtr/best/checkpoint{k}.pt": weights for k in range(1, 6)}
    root = make(tmp_path / "ws", spec)
    for k in (1, 2, 3):  # checkpoint1 written last, a minute after checkpoint2
        when = 1_764_750_000 - 60 * k
        os.utime(root / f"models/mtr/checkpoint{k}.pt", (when, when))
    inv = inventory_of(root)
    series = next(s for s in inv.series if s.path == str(root / "models/mtr"))
    assert series.latest == f"checkpoint:{root}/models/mtr/checkpoint1.pt"
    touched = _touched(inv)
    assert not {p for p in touched if "/best/" in p}
    assert str(root / "models/mtr/checkpoint1.pt") not in touched
    # The highest number is kept beside the newest: a copy may have refreshed older times.
    assert str(root / "models/mtr/checkpoint3.pt") not in touched
    assert str(root / "models/mtr/checkpoint2.pt") in touched


def test_runs_of_a_sweep_in_a_checkpoints_folder_are_no_saves_of_one_series(
        tmp_path: Path) -> None:
    """checkpoints/lr-0.01/ and checkpoints/lr-0.05/ hold the same names, but they are two
    runs named by their setting, each with its own saves."""
    weights = Sparse(60_000, b"PK\x03\x04" + b"\x00" * 26 + b"archive/data.pkl")
    root = make(tmp_path / "ws", {f"checkpoints/{run}/epoch_{e}.pt": weights
                                  for run in ("lr-0.01", "lr-0.05") for e in range(3)})
    inv = inventory_of(root)
    for run in ("lr-0.01", "lr-0.05"):
        series = next(s for s in inv.series if s.path == str(root / "checkpoints" / run))
        assert series.latest == f"checkpoint:{root}/checkpoints/{run}/epoch_2.pt"
