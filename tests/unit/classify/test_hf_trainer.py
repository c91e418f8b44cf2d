"""HF Trainer output dirs (ml-layouts.md §1): checkpoint-N folders, trainer_state.json."""

from __future__ import annotations

from pathlib import Path

from layouts import categories_by_path, inventory_of, make, name_of, series_at, trainer_state


def _checkpoint(step: int, best: str | None, best_metric: float | None,
                evals: list[tuple[int, float]]) -> dict[str, object]:
    base = f"out/checkpoint-{step}/"
    return {
        base + "config.json": "{}",
        base + "model.safetensors": 4000,
        base + "optimizer.pt": 8000,
        base + "scheduler.pt": 100,
        base + "rng_state.pth": 100,
        base + "training_args.bin": 100,
        base + "trainer_state.json": trainer_state(step, best, best_metric, evals),
    }


def make_hf_run(root: Path) -> Path:
    evals = [(500, 0.9), (1000, 0.6), (1500, 0.7)]
    spec: dict[str, object] = {}
    for i, step in enumerate((500, 1000, 1500)):
        best = "out/checkpoint-1000" if step >= 1000 else "out/checkpoint-500"
        spec.update(_checkpoint(step, best, 0.6 if step >= 1000 else 0.9, evals[: i + 1]))
    spec.update({
        "out/runs/Nov01_12-00-00_gpu01/events.out.tfevents.1730462400.gpu01.1234.0": 3000,
        "out/model.safetensors": 4000,
        "out/config.json": "{}",
        "train.py": "print('train')\n",
    })
    return make(root, spec)


def test_every_file_of_a_checkpoint_folder_is_checkpoint(tmp_path: Path) -> None:
    inv = inventory_of(make_hf_run(tmp_path))
    cats = categories_by_path(inv)
    for name in ("optimizer.pt", "trainer_state.json", "config.json", "rng_state.pth",
                 "training_args.bin", "model.safetensors"):
        assert cats[f"out/checkpoint-500/{name}"] == "checkpoint"
    assert cats["out/checkpoint-500"] == "checkpoint"
    assert cats["out/runs/Nov01_12-00-00_gpu01/events.out.tfevents.1730462400.gpu01.1234.0"] \
        == "log"
    assert cats["out/model.safetensors"] == "checkpoint"
    assert cats["train.py"] == "other"


def test_series_best_and_latest_come_from_trainer_state(tmp_path: Path) -> None:
    inv = inventory_of(make_hf_run(tmp_path))
    series = series_at(inv, tmp_path / "out")
    assert [name_of(m) for m in series.members] == [
        "checkpoint-500", "checkpoint-1000", "checkpoint-1500"
    ]
    assert name_of(series.latest) == "checkpoint-1500"
    assert name_of(series.best) == "checkpoint-1000"
    assert series.best_reason == "trainer_state.json best_model_checkpoint"
    assert series.best_metric == "eval_loss"
    assert series.best_value == 0.6
    assert series.best_mode == "min"
    assert {name_of(p) for p in series.protected} == {"checkpoint-1000", "checkpoint-1500"}
    assert series.tool == "HF Trainer"


def test_checkpoints_carry_step_epoch_and_their_evaluation(tmp_path: Path) -> None:
    inv = inventory_of(make_hf_run(tmp_path))
    ckpt = inv.artifact_by_id[f"checkpoint:{tmp_path / 'out' / 'checkpoint-1000'}"]
    assert ckpt.step == 1000
    assert ckpt.epoch == 2
    assert ckpt.metric("eval_loss") == 0.6
    assert ckpt.run == f"run:{tmp_path / 'out'}"
    assert ckpt.disk_usage > 12_000


def test_run_holds_the_series(tmp_path: Path) -> None:
    inv = inventory_of(make_hf_run(tmp_path))
    run = inv.run_by_id[f"run:{tmp_path / 'out'}"]
    # checkpoint-N folders are one series; the final save_model() weights beside them are
    # another, so they are never rotated away as an "older step".
    assert set(run.series) == {f"series:{tmp_path / 'out'}", f"series:{tmp_path / 'out'}#files"}
    final = inv.series_by_id[f"series:{tmp_path / 'out'}#files"]
    assert [name_of(m) for m in final.members] == ["model.safetensors"]
    assert final.protected == final.members
    assert run.tool == "HF Trainer"


def test_without_best_model_checkpoint_best_is_unknown(tmp_path: Path) -> None:
    spec: dict[str, object] = {}
    for step in (500, 1000):
        spec.update(_checkpoint(step, None, None, []))
    inv = inventory_of(make(tmp_path, spec))
    series = series_at(inv, tmp_path / "out")
    assert series.best is None
    assert name_of(series.latest) == "checkpoint-1000"
    assert [name_of(p) for p in series.protected] == ["checkpoint-1000"]


def test_a_run_or_a_checkpoint_given_as_the_scan_root_keeps_its_name(tmp_path: Path) -> None:
    """Scanning the output folder itself (or one checkpoint of it): runs and artifacts are
    named after the folder, as when they are found deeper in a workspace."""
    out = make_hf_run(tmp_path) / "out"
    run = inventory_of(out)
    assert [(r.name, r.path) for r in run.runs] == [("out", str(out))]
    checkpoint = inventory_of(out / "checkpoint-500")
    assert [a.name for a in checkpoint.artifacts if a.kind == "checkpoint"] == ["checkpoint-500"]
