"""Lightning (ml-layouts.md §2): lightning_logs/version_N, metric-named .ckpt, last.ckpt."""

from __future__ import annotations

from pathlib import Path

from layouts import Link, categories_by_path, inventory_of, make, name_of, series_at

CKPTS = "lightning_logs/version_0/checkpoints"


def make_lightning(root: Path, last: object) -> Path:
    return make(root, {
        "lightning_logs/version_0/hparams.yaml": "lr: 0.001\n",
        "lightning_logs/version_0/metrics.csv": "epoch,step,val_loss\n0,100,0.9\n",
        "lightning_logs/version_0/events.out.tfevents.1730462400.gpu01.77.0": 2000,
        f"{CKPTS}/epoch=0-step=100-val_loss=0.90.ckpt": 3000,
        f"{CKPTS}/epoch=1-step=200-val_loss=0.50.ckpt": 3000,
        f"{CKPTS}/epoch=2-step=300-val_loss=0.70.ckpt": 3000,
        f"{CKPTS}/last.ckpt": last,
    })


def test_categories(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make_lightning(tmp_path, 3000)))
    assert cats["lightning_logs/version_0/hparams.yaml"] == "log"
    assert cats["lightning_logs/version_0/metrics.csv"] == "log"
    assert cats["lightning_logs/version_0/events.out.tfevents.1730462400.gpu01.77.0"] == "log"
    assert cats[f"{CKPTS}/epoch=1-step=200-val_loss=0.50.ckpt"] == "checkpoint"
    assert cats[f"{CKPTS}/last.ckpt"] == "checkpoint"


def test_metrics_steps_and_best_from_names(tmp_path: Path) -> None:
    inv = inventory_of(make_lightning(tmp_path, 3000))
    series = series_at(inv, tmp_path / CKPTS)
    ckpt = inv.artifact_by_id[f"checkpoint:{tmp_path / CKPTS}/epoch=1-step=200-val_loss=0.50.ckpt"]
    assert (ckpt.epoch, ckpt.step, ckpt.metric("val_loss")) == (1, 200, 0.5)
    assert name_of(series.best) == "epoch=1-step=200-val_loss=0.50.ckpt"
    assert series.best_metric == "val_loss" and series.best_mode == "min"
    assert name_of(series.latest) == "last.ckpt"
    assert series.run == f"run:{tmp_path / 'lightning_logs' / 'version_0'}"
    assert inv.run_by_id[series.run].tool == "Lightning"


def test_last_ckpt_symlink_points_at_the_latest(tmp_path: Path) -> None:
    inv = inventory_of(make_lightning(tmp_path, Link("epoch=2-step=300-val_loss=0.70.ckpt")))
    series = series_at(inv, tmp_path / CKPTS)
    link = inv.artifact_by_id[f"checkpoint:{tmp_path / CKPTS}/last.ckpt"]
    assert link.copy_kind == "symlink"
    assert name_of(link.copy_of) == "epoch=2-step=300-val_loss=0.70.ckpt"
    assert name_of(series.latest) == "epoch=2-step=300-val_loss=0.70.ckpt"
    assert {name_of(p) for p in series.protected} == {
        "epoch=1-step=200-val_loss=0.50.ckpt", "epoch=2-step=300-val_loss=0.70.ckpt", "last.ckpt"
    }


def test_version_suffix_and_negative_metrics(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "ckpts/epoch=3-reward=-1.50.ckpt": 10,
        "ckpts/epoch=4-reward=-0.20-v1.ckpt": 10,
    }))
    series = series_at(inv, tmp_path / "ckpts")
    assert name_of(series.best) == "epoch=4-reward=-0.20-v1.ckpt"
    assert series.best_value == -0.2 and series.best_mode == "max"


def test_directory_valued_ckpt_is_one_checkpoint(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "ckpts/epoch=1-step=50.ckpt/checkpoint/mp_rank_00_model_states.pt": 100,
        "ckpts/epoch=1-step=50.ckpt/checkpoint/zero_pp_rank_0_mp_rank_00_optim_states.pt": 300,
        "ckpts/epoch=1-step=50.ckpt/latest": "checkpoint",
    }))
    cats = categories_by_path(inv)
    assert cats["ckpts/epoch=1-step=50.ckpt/latest"] == "checkpoint"
    unit = inv.artifact_by_id[f"checkpoint:{tmp_path / 'ckpts' / 'epoch=1-step=50.ckpt'}"]
    assert unit.is_dir and unit.step == 50 and unit.epoch == 1
    assert len([a for a in inv.artifacts if a.kind == "checkpoint"]) == 1
