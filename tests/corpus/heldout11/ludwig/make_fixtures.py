"""ludwig: a Ludwig user trains a declarative tabular model (a churn classifier on the
user's toy table ``data/churn.csv``: a category and three numbers in, a binary out) with
the command-line quickstart: ``ludwig train --config config.yaml --dataset data/churn.csv``
(early stopping on validation loss), a second run with a wider combiner
(``config_wide.yaml``), then ``ludwig predict --model_path results/experiment_run/model
--dataset data/churn.csv`` with the default output directory.

    python3.11 -m venv /tmp/h11/ludwig/venv
    /tmp/h11/ludwig/venv/bin/pip install ludwig
    /tmp/h11/ludwig/venv/bin/pip install --force-reinstall torch==2.13.0 (the PyPI build)
    /tmp/h11/ludwig/venv/bin/python tests/corpus/heldout11/ludwig/make_fixtures.py

(ludwig 0.11.0 pulls torchvision 0.28.0, whose PyPI wheel is linked against the CUDA
build of torch; with the CPU build of torch it fails to import, so the venv has PyPI's
torch 2.13.0 (+cu130) with its nvidia libraries, run on CPU with CUDA_VISIBLE_DEVICES="".)
Ludwig writes the preprocessed dataset cache beside the CSV (``data/churn.training.hdf5``,
``.validation.hdf5``, ``.test.hdf5``, ``.meta.json``, ``.split.parquet``), one folder per
run under ``results/`` (``experiment_run``, then ``experiment_run_0``), and the predictions
straight into ``results/``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MAKE_DATA = '''"""Write the toy churn table data/churn.csv: python make_data.py"""
import random
from pathlib import Path

random.seed(0)
plans = ["basic", "plus", "pro"]
rows = []
for i in range(400):
    plan = random.choice(plans)
    tenure = random.randint(1, 72)
    monthly = round(random.uniform(10, 120), 2)
    tickets = random.randint(0, 8)
    score = 0.04 * tickets * 10 - 0.03 * tenure + 0.01 * monthly + (plan == "basic") * 0.8
    churn = random.random() < 1 / (1 + 2.718 ** (-(score - 0.3)))
    rows.append(f"c{i:04d},{plan},{tenure},{monthly},{tickets},{str(churn).lower()}")
Path("data").mkdir(exist_ok=True)
Path("data/churn.csv").write_text("customer_id,plan,tenure_months,monthly_charges,"
                                  "support_tickets,churned\\n" + "\\n".join(rows) + "\\n")
'''

CONFIG = '''input_features:
  - name: plan
    type: category
  - name: tenure_months
    type: number
  - name: monthly_charges
    type: number
  - name: support_tickets
    type: number
output_features:
  - name: churned
    type: binary
combiner:
  type: concat
  num_fc_layers: 2
  output_size: 32
trainer:
  epochs: 12
  batch_size: 32
  learning_rate: 0.01
  early_stop: 4
  validation_field: churned
  validation_metric: loss
preprocessing:
  split:
    type: random
    probabilities: [0.7, 0.15, 0.15]
'''

CONFIG_WIDE = '''input_features:
  - name: plan
    type: category
  - name: tenure_months
    type: number
  - name: monthly_charges
    type: number
  - name: support_tickets
    type: number
output_features:
  - name: churned
    type: binary
combiner:
  type: concat
  num_fc_layers: 2
  output_size: 64
trainer:
  epochs: 15
  batch_size: 32
  learning_rate: 0.005
  early_stop: 5
  validation_field: churned
  validation_metric: loss
preprocessing:
  split:
    type: random
    probabilities: [0.7, 0.15, 0.15]
'''

LUDWIG = str(Path(sys.executable).parent / "ludwig")
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}


def _run(*args: str) -> str:
    done = subprocess.run(list(args), capture_output=True, text=True, env=ENV)
    sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
    assert done.returncode == 0, (args, done.returncode, done.stderr[-2000:])
    return done.stdout + done.stderr


def _train(config: str) -> tuple[str, dict[str, object]]:
    import torch

    out = _run(LUDWIG, "train", "--config", config, "--dataset", "data/churn.csv")
    run_dir = Path(re.search(r"Saved to: (\S+)", out).group(1)).relative_to(Path.cwd())
    assert "EARLY STOPPING" in out, "no early stop"
    best_step = int(re.search(r"Best model step\s+│\s+(\d+)", out).group(1))
    model = run_dir / "model"
    progress = json.loads((model / "training_progress.json").read_text())
    assert progress["best_eval_metric_steps"] == best_step, (progress, best_step)
    ckpts = model / "training_checkpoints"
    steps = {tag: torch.load(ckpts / f"{tag}.ckpt", weights_only=False)["global_step"]
             for tag in ("best", "latest")}
    assert steps == {"best": best_step, "latest": progress["steps"]}, (steps, progress)
    assert steps["best"] < steps["latest"], steps
    best, latest = (ckpts / "best.ckpt").as_posix(), (ckpts / "latest.ckpt").as_posix()
    return run_dir.as_posix(), {
        "run": f"ludwig train --config {config} --dataset data/churn.csv",
        "best": best, "latest": latest,
        "evidence": f"ludwig printed 'Saved to: <ws>/{run_dir.as_posix()}' and, in its "
                    f"TRAINING REPORT, 'Best model step {best_step}' (also "
                    "best_eval_metric_steps in model/training_progress.json); its "
                    "CheckpointManager writes training_checkpoints/best.ckpt on each 'New best "
                    "model saved.' and latest.ckpt at every checkpoint: best.ckpt's "
                    f"global_step is {steps['best']}, latest.ckpt's {steps['latest']} (= "
                    "'steps' in training_progress.json, where early stopping ended the run). "
                    "At the end of training Ludwig loads the best checkpoint and saves it as "
                    f"{run_dir.as_posix()}/model/model_weights, the model LudwigModel.load "
                    "restores."}


def run(work: Path) -> list[dict[str, object]]:
    Path("make_data.py").write_text(MAKE_DATA)
    Path("config.yaml").write_text(CONFIG)
    Path("config_wide.yaml").write_text(CONFIG_WIDE)
    subprocess.run([sys.executable, "make_data.py"], check=True)
    first, run1 = _train("config.yaml")
    second, run2 = _train("config_wide.yaml")
    assert (first, second) == ("results/experiment_run", "results/experiment_run_0")
    out = _run(LUDWIG, "predict", "--model_path", f"{first}/model", "--dataset",
               "data/churn.csv")
    assert "Saved to: results" in out, out
    assert Path("results/churned_predictions.csv").exists()
    return [run1, run2]


def label(path: str) -> str:
    if path == "data/churn.csv":
        return "dataset"
    if path.startswith("data/"):
        return "cache"  # Ludwig's preprocessed-dataset cache and its lock
    if "/training_checkpoints/" in path or path.endswith("/model/model_weights"):
        return "checkpoint"
    if path.endswith(("/model/model_hyperparameters.json",
                      "/model/training_set_metadata.json")):
        return "checkpoint"  # part of the saved model: LudwigModel.load needs both
    if path.startswith("results/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "ludwig", tool="ludwig",
           kind="declarative deep learning (results/experiment_run* folders, training "
                "checkpoints, preprocessed dataset cache)",
           command="python make_data.py; ludwig train --config config.yaml --dataset "
                   "data/churn.csv; ludwig train --config config_wide.yaml --dataset "
                   "data/churn.csv; ludwig predict --model_path results/experiment_run/model "
                   "--dataset data/churn.csv")
