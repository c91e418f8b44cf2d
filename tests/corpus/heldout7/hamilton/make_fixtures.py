"""Hamilton (sf-hamilton): the user's ``dataflow.py`` (functions as nodes: load the CSV,
clean, standardise, split, fit a NumPy logistic regression, score it) is run by
``run.py`` with a driver built with ``.with_cache()`` (Hamilton's caching, default path
``.hamilton_cache`` in the project), materializing the model with ``to.pickle`` and the
metrics with ``to.json``; run twice with two learning rates, as a user sweeping it would.

    python3.11 -m venv /tmp/h7/hamilton/venv
    /tmp/h7/hamilton/venv/bin/pip install sf-hamilton pandas numpy
    /tmp/h7/hamilton/venv/bin/python tests/corpus/heldout7/hamilton/make_fixtures.py

``python run.py 0.1`` then ``python run.py 0.5``: the second run retrieves ``raw_data``,
``clean_data``, ``features`` and the splits from the cache and recomputes only the nodes
that depend on ``learning_rate``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

DATAFLOW = '''"""Churn model dataflow: each function is a Hamilton node."""
import numpy as np
import pandas as pd


def raw_data(data_path: str) -> pd.DataFrame:
    return pd.read_csv(data_path)


def clean_data(raw_data: pd.DataFrame) -> pd.DataFrame:
    return raw_data.dropna().reset_index(drop=True)


def features(clean_data: pd.DataFrame) -> pd.DataFrame:
    x = clean_data.drop(columns=["churned"])
    return (x - x.mean()) / x.std()


def target(clean_data: pd.DataFrame) -> pd.Series:
    return clean_data["churned"]


def train_rows(features: pd.DataFrame) -> int:
    return int(0.8 * len(features))


def model(features: pd.DataFrame, target: pd.Series, train_rows: int,
          learning_rate: float, epochs: int = 300) -> dict:
    x, y = features.to_numpy()[:train_rows], target.to_numpy()[:train_rows]
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(epochs):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        w -= learning_rate * x.T @ (p - y) / len(y)
        b -= learning_rate * float(np.mean(p - y))
    return {"w": w, "b": b, "columns": list(features.columns)}


def metrics(model: dict, features: pd.DataFrame, target: pd.Series, train_rows: int,
            learning_rate: float) -> dict:
    x, y = features.to_numpy()[train_rows:], target.to_numpy()[train_rows:]
    accuracy = float(np.mean(((x @ model["w"] + model["b"]) > 0) == y))
    return {"learning_rate": learning_rate, "val_accuracy": accuracy}
'''

RUN = '''"""Run the churn dataflow: python run.py LEARNING_RATE"""
import sys

from hamilton import driver
from hamilton.io.materialization import to

import dataflow

lr = float(sys.argv[1])
dr = driver.Builder().with_modules(dataflow).with_cache().build()
meta, results = dr.materialize(
    to.pickle(id="save_model", dependencies=["model"], path=f"models/churn_lr{lr}.pkl"),
    to.json(id="save_metrics", dependencies=["metrics"], path=f"reports/metrics_lr{lr}.json"),
    additional_vars=["metrics"],
    inputs={"data_path": "data/customers.csv", "learning_rate": lr},
)
print("metrics", results["metrics"])
print("saved", meta["save_model"])
events = dr.cache.logs(level="info")[dr.cache.last_run_id]
print("from cache", sorted({str(e).split("::")[0] for e in events if str(e).endswith("::hit")}))
'''


def _customers(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 4))
    y = (x @ np.array([1.0, -0.8, 0.5, 0.3]) + rng.normal(0, 0.5, 500) > 0).astype(int)
    rows = []
    for features, target in zip(x, y, strict=True):
        cells = [f"{v:.4f}" for v in features]
        if rng.random() < 0.03:
            cells[int(rng.integers(4))] = ""
        rows.append(",".join([*cells, str(target)]))
    path.parent.mkdir(parents=True)
    path.write_text("tenure,monthly_spend,support_calls,age,churned\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _customers(Path("data/customers.csv"))
    Path("dataflow.py").write_text(DATAFLOW)
    Path("run.py").write_text(RUN)
    Path("models").mkdir()
    Path("reports").mkdir()
    checkpoints = []
    for lr in ("0.1", "0.5"):
        done = subprocess.run([sys.executable, "run.py", lr], capture_output=True, text=True,
                              check=True)
        sys.stderr.write(done.stdout + done.stderr[-2000:])
        saved = next(line for line in done.stdout.splitlines() if line.startswith("saved "))
        path = f"models/churn_lr{lr}.pkl"
        assert path in saved, saved
        hits = next(line for line in done.stdout.splitlines() if line.startswith("from cache"))
        assert (lr == "0.1") == (hits == "from cache []"), hits
        metrics = json.loads(Path(f"reports/metrics_lr{lr}.json").read_text())
        checkpoints.append({
            "run": f"python run.py {lr}", "best": None, "latest": path,
            "evidence": f"dr.materialize's metadata for the to.pickle saver save_model "
                        f"(printed by run.py) is {saved[6:]}, the one model the run saved "
                        f"(metrics {metrics}); Hamilton has no notion of a best model (the "
                        f"model result in .hamilton_cache is a memo, not a saved model)"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("reports/"):
        return "log"
    if path.startswith(".hamilton_cache/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sf-hamilton", tool="hamilton",
           kind="dataflow with caching (Hamilton driver .with_cache(), materializers)",
           command="python run.py 0.1; python run.py 0.5 (run.py: driver.Builder()"
                   ".with_modules(dataflow).with_cache().build(), dr.materialize(to.pickle "
                   "model to models/churn_lr<lr>.pkl, to.json metrics to reports/))")
