"""river: the user's ``learn.py`` learns a classifier online from a sensor stream with
river (``stream.iter_csv`` over the user's ``data/sensor_stream.csv``, a
``StandardScaler | HoeffdingAdaptiveTreeClassifier`` pipeline, progressive validation) and
pickles the model every 1000 samples, river's documented way to persist a model (its FAQ:
models are pickled); the rolling metrics go to ``logs/metrics.csv`` and the script's output
is redirected to ``logs/learn.log``.

    python3.11 -m venv /tmp/h6/river/venv
    /tmp/h6/river/venv/bin/pip install river
    /tmp/h6/river/venv/bin/python tests/corpus/heldout6/river/make_fixtures.py

``python learn.py > logs/learn.log``: 3000 toy readings (4 sensors, a binary fault label,
the concept drifting at sample 1500). Every 1000 samples the script appends the running
accuracy and rolling accuracy to ``logs/metrics.csv`` and pickles the whole pipeline to
``checkpoints/model_<n>.pkl``, printing the path.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

LEARN = '''"""Learn a fault detector online: python learn.py > logs/learn.log"""
import csv
import pickle
from pathlib import Path

from river import metrics, preprocessing, stream, tree, utils

CONVERTERS = {"s1": float, "s2": float, "s3": float, "s4": float, "fault": int}

model = preprocessing.StandardScaler() | tree.HoeffdingAdaptiveTreeClassifier(grace_period=50,
                                                                              seed=0)
metric = metrics.Accuracy()
rolling = utils.Rolling(metrics.Accuracy, window_size=500)
Path("checkpoints").mkdir(exist_ok=True)

with open("logs/metrics.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["step", "accuracy", "rolling_accuracy"])
    dataset = stream.iter_csv("data/sensor_stream.csv", target="fault", converters=CONVERTERS)
    for n, (x, y) in enumerate(dataset, start=1):
        y_pred = model.predict_one(x)
        if y_pred is not None:
            metric.update(y, y_pred)
            rolling.update(y, y_pred)
        model.learn_one(x, y)
        if n % 1000 == 0:
            writer.writerow([n, f"{metric.get():.4f}", f"{rolling.get():.4f}"])
            path = f"checkpoints/model_{n}.pkl"
            with open(path, "wb") as f:
                pickle.dump(model, f)
            print(f"[{n:,}] {metric} {rolling} -> saved {path}", flush=True)
print("final", metric)
'''


def _stream(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 4))
    score = np.where(np.arange(3000) < 1500, x[:, 0] + 0.5 * x[:, 1], x[:, 2] - x[:, 3])
    fault = (score + rng.normal(0, 0.3, size=3000) > 0.4).astype(int)
    path.parent.mkdir(parents=True)
    rows = [",".join(f"{v:.4f}" for v in r) + f",{c}" for r, c in zip(x, fault, strict=True)]
    path.write_text("s1,s2,s3,s4,fault\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _stream(Path("data/sensor_stream.csv"))
    Path("learn.py").write_text(LEARN)
    Path("logs").mkdir()
    with open("logs/learn.log", "w") as log:
        subprocess.run([sys.executable, "learn.py"], stdout=log, check=True)
    printed = Path("logs/learn.log").read_text()
    sys.stderr.write(printed)
    saved = [line.rsplit("saved ", 1)[1] for line in printed.splitlines() if "saved " in line]
    assert saved == [f"checkpoints/model_{n}.pkl" for n in (1000, 2000, 3000)], saved
    return [{
        "run": "python learn.py > logs/learn.log", "best": None, "latest": saved[-1],
        "evidence": f"the run printed 'saved {saved[-1]}' last (logs/learn.log), the pickle of "
                    f"the model after the final sample; river has no checkpoint or best-model "
                    f"notion of its own (models are pickled by the user), and the script keeps "
                    f"no best"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "river", tool="river",
           kind="online machine learning (models persisted with pickle)",
           command="python learn.py > logs/learn.log (learn.py: stream.iter_csv over "
                   "data/sensor_stream.csv, StandardScaler | HoeffdingAdaptiveTreeClassifier, "
                   "predict_one/learn_one, pickle.dump every 1000 samples to "
                   "checkpoints/model_<n>.pkl, metrics to logs/metrics.csv)")
