"""ray-tune: Ray Tune, Ray's hyperparameter-search library, as a researcher runs a small
search: a ``tune.Tuner`` over a function trainable (a tiny torch MLP regressor on the
user's toy ``data/train.npz``), a grid of three learning rates, 12 epochs per trial,
``tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(d))`` every 3 epochs
(``model.pt`` with model and optimizer state), ``tune.CheckpointConfig(num_to_keep=2,
checkpoint_score_attribute="val_loss", checkpoint_score_order="min")``, and
``RunConfig(name="mlp_lr_search", storage_path=<workspace>/ray_results)`` (the default is
``~/ray_results``), then ``ResultGrid.get_best_result(...)`` and each result's checkpoints.

    python3 -m venv /tmp/h11/ray-tune/venv
    /tmp/h11/ray-tune/venv/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl "ray[tune]"
    /tmp/h11/ray-tune/venv/bin/python tests/corpus/heldout11/ray-tune/make_fixtures.py

(ray 2.60.0, torch 2.13.0+cpu, tensorboardX 2.6.5 from the ``tune`` extra.)
``python tune_mlp.py`` starts a local Ray instance (its session files go to
``/tmp/ray/``, outside the workspace) and runs the three trials on CPU (~50 s).
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TUNE = '''"""Tune a tiny MLP regressor's learning rate and width with Ray Tune: python tune_mlp.py"""
import os
import tempfile
from pathlib import Path

import numpy as np
import torch
from ray import tune

DATA = Path("data").resolve()


def train_mlp(config):
    torch.manual_seed(0)
    tr, va = np.load(DATA / "train.npz"), np.load(DATA / "val.npz")
    x, y = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])
    vx, vy = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    model = torch.nn.Sequential(torch.nn.Linear(8, config["hidden"]), torch.nn.ReLU(),
                                torch.nn.Linear(config["hidden"], 1))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    start = 0
    checkpoint = tune.get_checkpoint()
    if checkpoint:
        with checkpoint.as_directory() as d:
            state = torch.load(os.path.join(d, "model.pt"))
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            start = state["epoch"] + 1
    for epoch in range(start, 12):
        for i in range(0, len(x), 8):
            loss = torch.nn.functional.mse_loss(model(x[i:i + 8]), y[i:i + 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            val_loss = torch.nn.functional.mse_loss(model(vx), vy).item()
        metrics = {"epoch": epoch, "train_loss": loss.item(), "val_loss": val_loss}
        if (epoch + 1) % 3 == 0:
            with tempfile.TemporaryDirectory() as d:
                torch.save({"epoch": epoch, "model": model.state_dict(),
                            "optimizer": opt.state_dict()}, os.path.join(d, "model.pt"))
                tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(d))
        else:
            tune.report(metrics)


if __name__ == "__main__":
    tuner = tune.Tuner(
        tune.with_resources(train_mlp, {"cpu": 1}),
        param_space={"lr": tune.grid_search([0.003, 0.03, 0.1]), "hidden": 64},
        tune_config=tune.TuneConfig(metric="val_loss", mode="min"),
        run_config=tune.RunConfig(
            name="mlp_lr_search", storage_path=str(Path("ray_results").resolve()),
            checkpoint_config=tune.CheckpointConfig(
                num_to_keep=2, checkpoint_score_attribute="val_loss",
                checkpoint_score_order="min")))
    results = tuner.fit()
    best = results.get_best_result(metric="val_loss", mode="min")
    print("best trial config", best.config)
    print("best result checkpoint", best.checkpoint.path)
    print("best result best checkpoint", best.get_best_checkpoint("val_loss", "min").path)
    for result in results:
        print("trial", result.path, "latest", result.checkpoint.path,
              "best", result.get_best_checkpoint("val_loss", "min").path,
              "kept", [c.path for c, _ in result.best_checkpoints],
              "val_loss", round(result.metrics["val_loss"], 4))
'''


def _toy_data() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    w = rng.normal(size=(8, 1))
    Path("data").mkdir()
    for name, n in (("train", 48), ("val", 64)):
        x = rng.normal(size=(n, 8)).astype("float32")
        y = (np.tanh(x @ w) + rng.normal(0, 0.3, size=(n, 1))).astype("float32")
        np.savez(f"data/{name}.npz", x=x, y=y)


def run(work: Path) -> list[dict[str, object]]:
    import torch

    _toy_data()
    Path("tune_mlp.py").write_text(TUNE)
    done = subprocess.run([sys.executable, "tune_mlp.py"], capture_output=True, text=True,
                          timeout=900)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    out = done.stdout
    root = str(work.resolve()) + "/"

    def rel(path: str) -> str:
        assert path.startswith(root), path
        return path[len(root):]

    grid_best = rel(re.search(r"^best result checkpoint (\S+)$", out, re.M).group(1))
    best_config = re.search(r"^best trial config (.+)$", out, re.M).group(1)
    runs = []
    for line in re.findall(r"^trial .+$", out, re.M):
        m = re.match(r"trial (\S+) latest (\S+) best (\S+) kept (\[.*\]) val_loss (\S+)$",
                     line)
        trial, latest, best = rel(m.group(1)), rel(m.group(2)), rel(m.group(3))
        kept = [rel(p) for p in re.findall(r"'([^']+)'", m.group(4))]
        on_disk = sorted(p.parent.as_posix()
                         for p in Path(trial).glob("checkpoint_*/model.pt"))
        assert sorted(kept) == on_disk and latest in kept and best in kept, (kept, on_disk)
        assert (Path(trial) / "progress.csv").is_file() and (Path(trial) / "result.json")
        epochs = {c: torch.load(f"{c}/model.pt", weights_only=True)["epoch"] for c in kept}
        assert epochs[latest] == 11, epochs
        evidence = (f"ResultGrid entry for trial {Path(trial).name}: result.checkpoint (the "
                    f"trial's latest, printed by tune_mlp.py) = {latest} (epoch 11 of 12 in "
                    "its model.pt); result.get_best_checkpoint('val_loss', 'min') = "
                    f"{best} (epoch {epochs[best]}); result.best_checkpoints, the ones "
                    f"CheckpointConfig(num_to_keep=2) kept, = {kept}")
        if grid_best.startswith(trial + "/"):
            evidence += (f"; ResultGrid.get_best_result(metric='val_loss', mode='min') is "
                         f"this trial (config {best_config}), its .checkpoint = "
                         f"{grid_best}")
        runs.append({"run": f"python tune_mlp.py: trial {Path(trial).name}",
                     "best": best, "latest": latest, "evidence": evidence})
    assert len(runs) == 3, out
    assert any(r["best"] != r["latest"] for r in runs), runs
    assert any(grid_best == r["latest"] for r in runs), grid_best
    return runs


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if re.search(r"/checkpoint_\d{6}/", path):
        return "checkpoint"
    if path.endswith(".validate_storage_marker"):
        return "cache"
    if path.startswith("ray_results/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "ray", tool="ray-tune",
           kind="hyperparameter search (Tuner experiment folder, trial folders, "
                "checkpoint_NNNNNN directories)",
           command="python tune_mlp.py (tune.Tuner(train_mlp, param_space={lr: "
                   "grid_search([0.003, 0.03, 0.1])}, RunConfig(name='mlp_lr_search', "
                   "storage_path='ray_results', CheckpointConfig(num_to_keep=2, "
                   "checkpoint_score_attribute='val_loss'))).fit(); tune.report with "
                   "Checkpoint.from_directory every 3 of 12 epochs)")
