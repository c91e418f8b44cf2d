"""GluonTS: the user's ``train.py`` trains GluonTS's PyTorch ``DeepAREstimator`` on its
hourly load series (``PandasDataset.from_long_dataframe`` over ``data/load_hourly.csv``, the
last day held out for validation), with the estimator's defaults for where Lightning writes
(``lightning_logs/version_<n>/`` in the working folder, GluonTS's own ``ModelCheckpoint`` on
``val_loss``), evaluates the predictor on the held-out day, and saves it with GluonTS's
documented ``predictor.serialize(Path("models/deepar"))``; the script's log (GluonTS and
Lightning log through ``logging``) goes to ``logs/train.log``.

    python3.11 -m venv /tmp/h6/gluonts/venv
    /tmp/h6/gluonts/venv/bin/pip install torch==2.13.0   # the CPU wheel
    /tmp/h6/gluonts/venv/bin/pip install "gluonts[torch]"
    /tmp/h6/gluonts/venv/bin/python tests/corpus/heldout6/gluonts/make_fixtures.py

``python train.py`` with a tiny network (1 LSTM layer of 16), 3 epochs of 10 batches on CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train the load forecaster: python train.py"""
import json
import logging
from pathlib import Path

import pandas as pd
from gluonts.dataset.pandas import PandasDataset
from gluonts.dataset.split import split
from gluonts.evaluation import Evaluator, make_evaluation_predictions
from gluonts.torch import DeepAREstimator

Path("logs").mkdir(exist_ok=True)
logging.basicConfig(filename="logs/train.log", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

frame = pd.read_csv("data/load_hourly.csv", parse_dates=["timestamp"])
dataset = PandasDataset.from_long_dataframe(frame, target="load", item_id="meter",
                                            timestamp="timestamp", freq="h")
train, test_template = split(dataset, offset=-24)

estimator = DeepAREstimator(
    freq="h", prediction_length=24, context_length=48, num_layers=1, hidden_size=16,
    batch_size=16, num_batches_per_epoch=10,
    trainer_kwargs={"max_epochs": 3, "accelerator": "cpu", "enable_progress_bar": False},
)
predictor = estimator.train(train, validation_data=dataset)

forecasts, series = make_evaluation_predictions(dataset, predictor, num_samples=50)
aggregate, _ = Evaluator(quantiles=[0.1, 0.5, 0.9])(series, forecasts)
Path("results").mkdir(exist_ok=True)
Path("results/eval_metrics.json").write_text(json.dumps(aggregate, indent=2))
print("MASE", round(aggregate["MASE"], 3), "wQL", round(aggregate["mean_wQuantileLoss"], 3))

Path("models/deepar").mkdir(parents=True, exist_ok=True)
predictor.serialize(Path("models/deepar"))
print("serialized predictor to models/deepar")
'''


def _load(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    hours = np.arange(24 * 21)
    stamps = [f"2024-03-{1 + h // 24:02d} {h % 24:02d}:00:00" for h in hours]
    rows = []
    for meter in range(4):
        base = 50 + 10 * meter
        load = (base + 15 * np.sin(2 * np.pi * (hours - 6) / 24)
                + 5 * (hours // 24 % 7 < 5) + rng.normal(0, 2, size=hours.size))
        rows += [f"{s},meter_{meter},{v:.2f}" for s, v in zip(stamps, load, strict=True)]
    path.parent.mkdir(parents=True)
    path.write_text("timestamp,meter,load\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _load(Path("data/load_hourly.csv"))
    Path("train.py").write_text(TRAIN)
    env = {**os.environ, "PYTHONWARNINGS": "ignore::UserWarning"}
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    log = Path("logs/train.log").read_text()
    loaded = [line for line in log.splitlines() if "Loading best model from " in line]
    assert len(loaded) == 1, log
    best = Path(loaded[0].split("Loading best model from ", 1)[1]).resolve()
    best_rel = best.relative_to(work.resolve()).as_posix()
    ckpts = sorted(p.relative_to(work).as_posix() for p in work.rglob("*.ckpt"))
    assert ckpts == [best_rel], (ckpts, best_rel)
    predictor = sorted(p.name for p in Path("models/deepar").iterdir())
    return [{
        "run": "python train.py", "best": best_rel, "latest": "models/deepar",
        "evidence": f"GluonTS logged 'Loading best model from {best_rel}' (logs/train.log; its "
                    f"ModelCheckpoint monitors val_loss, save_top_k=1, no last.ckpt, so this is "
                    f"the only .ckpt) and restored those weights into the predictor; the "
                    f"predictor was then saved by predictor.serialize to models/deepar "
                    f"({', '.join(predictor)}), the last model the run "
                    f"wrote, printed 'serialized predictor to models/deepar'"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/") or path.endswith(".ckpt"):
        return "checkpoint"
    if path.startswith(("logs/", "lightning_logs/", "results/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "gluonts", tool="gluonts",
           kind="probabilistic time-series forecasting (PyTorch DeepAR on Lightning, "
                "predictor.serialize)",
           command="python train.py (DeepAREstimator(freq='h', prediction_length=24, ...)"
                   ".train(train, validation_data=dataset) with Lightning's defaults, "
                   "Evaluator metrics to results/eval_metrics.json, "
                   "predictor.serialize(Path('models/deepar')))")
