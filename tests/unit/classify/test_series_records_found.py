"""Best checkpoints no tool reader knows, kept by what the saves themselves say: a score in
each save's own record (TorchRL's manifest, in folders named like HF Trainer's), and
scores in names whose direction mlspace cannot tell (MONAI's key-metric saves)."""

from __future__ import annotations

import json
from pathlib import Path

from layout_kit import Sparse
from layouts import inventory_of, make
from layouts_corpus import permissive_plan


def _manifest(frames: int, reward: float) -> str:
    return json.dumps({"format": "torchrl.checkpoint", "created_at": "2026-12-02T14:27:22Z",
                       "metadata": {"collected_frames": frames, "episode_reward": reward,
                                    "optim_steps": frames // 12},
                       "components": {"policy": {"files": ["state.json"]}}})


def _touched(inv) -> set[str]:  # noqa: ANN001 - an Inventory
    return {item.path for s in permissive_plan(inv).suggestions for item in s.items}


def test_a_score_in_each_saves_own_record_ranks_folders_with_borrowed_names(tmp_path: Path
                                                                           ) -> None:
    saves = {4000: 40.0, 5000: 54.75, 6000: 42.5}
    spec: dict[str, object] = {}
    for frames, reward in saves.items():
        save = f"checkpoints/checkpoint-{frames:012d}"
        spec[f"{save}/manifest.json"] = _manifest(frames, reward)
        spec[f"{save}/components/0000-policy/state.json"] = "{}"
        spec[f"{save}/components/0000-policy/state/tensor_0.memmap"] = Sparse(400_000)
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    (series,) = inv.series
    best = inv.artifact_by_id[series.best]
    assert best.name == "checkpoint-000000005000"
    assert "episode_reward" in series.best_reason
    touched = _touched(inv)
    assert str(root / "checkpoints/checkpoint-000000005000") not in touched  # the best
    assert str(root / "checkpoints/checkpoint-000000006000") not in touched  # the latest
    assert str(root / "checkpoints/checkpoint-000000004000") in touched


def test_saves_named_with_a_score_of_unknown_direction_are_all_kept(tmp_path: Path) -> None:
    names = ["checkpoint_epoch=2.pt", "checkpoint_epoch=4.pt", "checkpoint_epoch=6.pt",
             "checkpoint_final_iteration=48.pt", "net_key_metric=0.9355.pt",
             "net_key_metric=0.9488.pt"]
    root = make(tmp_path / "ws", {f"runs/{n}": Sparse(35_000, b"PK\x03\x04") for n in names}
                | {"runs/train.log": "INFO: Epoch[6] Metrics -- val_mean_dice: 0.9488\n"})
    inv = inventory_of(root)
    touched = _touched(inv)
    for name in ("net_key_metric=0.9355.pt", "net_key_metric=0.9488.pt",
                 "checkpoint_final_iteration=48.pt"):
        assert str(root / "runs" / name) not in touched, name
    assert str(root / "runs/checkpoint_epoch=2.pt") in touched  # the rest is still thinned


def test_two_models_saved_at_the_same_step_are_one_save_not_older_and_newer(tmp_path: Path
                                                                             ) -> None:
    """NeuralForecast's nf.save() writes each fitted model as <Model>_<index>.safetensors
    beside its configuration and dataset: NHITS_0 and MLP_0 are one save."""
    root = make(tmp_path / "ws", {
        "models/nf_sales/NHITS_0.safetensors": Sparse(1_500_000, b"\x08\0\0\0\0\0\0\0{}"),
        "models/nf_sales/MLP_0.safetensors": Sparse(90_000, b"\x08\0\0\0\0\0\0\0{}"),
        "models/nf_sales/configuration.json": json.dumps({"freq": "D", "h": 7}),
        "models/nf_sales/dataset.json": json.dumps({"n_series": 2}),
        # a series of one model still thins out
        "runs/model_1.safetensors": Sparse(90_000), "runs/model_2.safetensors": Sparse(90_000),
        "runs/model_3.safetensors": Sparse(90_000),
    })
    inv = inventory_of(root)
    touched = _touched(inv)
    assert str(root / "models/nf_sales/MLP_0.safetensors") not in touched
    assert str(root / "models/nf_sales/NHITS_0.safetensors") not in touched
    assert str(root / "runs/model_1.safetensors") in touched


def test_a_saves_config_is_not_read_for_a_score(tmp_path: Path) -> None:
    """A model's config.json names its settings ("hidden_dropout_prob": 0.1, and here even
    a key named score): it is no record of how good the save is, so it ranks nothing."""
    spec: dict[str, object] = {}
    for step, setting in ((100, 0.9), (200, 0.1), (300, 0.5)):
        save = f"run/save-{step}"
        spec[f"{save}/config.json"] = json.dumps({"score": setting, "direction": "max",
                                                  "hidden_size": 32})
        spec[f"{save}/weights.safetensors"] = Sparse(50_000)
    root = make(tmp_path / "ws", spec)
    (series,) = inventory_of(root).series
    assert series.best is None  # nothing recorded how good each save is
    assert series.best_reason == "no metric recorded"
