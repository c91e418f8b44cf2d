"""Dagster: the user's ``assets.py`` defines three software-defined assets (``reviews``: the
user's ``data/reviews.csv`` loaded; ``features``: standardised; ``sentiment_model``: a NumPy
logistic regression trained on them, with a ``TrainConfig`` of ``lr`` and ``epochs``),
materialized from the command line with ``DAGSTER_HOME`` set to the project's
``dagster_home/`` (Dagster's documented way to keep its instance: run and event storage,
compute logs and the default filesystem IO manager's asset storage). ``HOME`` is the scratch
workspace too (Dagster keeps a telemetry id in ``~/.dagster``).

    python3.11 -m venv /tmp/h6/dagster/venv
    /tmp/h6/dagster/venv/bin/pip install dagster numpy
    /tmp/h6/dagster/venv/bin/python tests/corpus/heldout6/dagster/make_fixtures.py

``dagster asset materialize -f assets.py --select '*'`` (all three, ``lr`` 0.5), then
``dagster asset materialize -f assets.py --select sentiment_model --config-json
'{"ops": {"sentiment_model": {"config": {"lr": 2.0}}}}'`` (the model alone, retrained with a
larger learning rate, its input loaded from the stored ``features``). Each asset's value is
pickled by Dagster's default IO manager to ``dagster_home/storage/<asset key>``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

ASSETS = '''"""Sentiment model assets: dagster asset materialize -f assets.py --select '*'"""
import numpy as np
import dagster as dg


class TrainConfig(dg.Config):
    lr: float = 0.5
    epochs: int = 100


@dg.asset
def reviews(context: dg.AssetExecutionContext) -> dict:
    table = np.loadtxt("data/reviews.csv", delimiter=",", skiprows=1)
    context.log.info(f"loaded {len(table)} reviews")
    return {"X": table[:, :-1], "y": table[:, -1]}


@dg.asset
def features(reviews: dict) -> dict:
    X = reviews["X"]
    mean, std = X.mean(0), X.std(0) + 1e-8
    return {"X": (X - mean) / std, "y": reviews["y"], "mean": mean, "std": std}


@dg.asset
def sentiment_model(context: dg.AssetExecutionContext, config: TrainConfig,
                    features: dict) -> dict:
    X, y = features["X"], features["y"]
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(config.epochs):
        p = 1 / (1 + np.exp(-(X[:700] @ w + b)))
        w -= config.lr * X[:700].T @ (p - y[:700]) / 700
        b -= config.lr * float((p - y[:700]).mean())
    acc = float((((X[700:] @ w + b) > 0) == y[700:]).mean())
    print(f"lr={config.lr} val_accuracy={acc:.3f}")
    context.add_output_metadata({"val_accuracy": acc})
    return {"w": w, "b": b, "mean": features["mean"], "std": features["std"]}


defs = dg.Definitions(assets=[reviews, features, sentiment_model])
'''

RUNS = (
    ["--select", "*"],
    ["--select", "sentiment_model", "--config-json",
     '{"ops": {"sentiment_model": {"config": {"lr": 2.0}}}}'],
)


def _reviews(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    counts = rng.poisson(2, size=(900, 10))
    positive = counts[:, :5].sum(1) - counts[:, 5:].sum(1) + rng.normal(size=900) > 0
    path.parent.mkdir(parents=True)
    header = ",".join([f"w{i}" for i in range(10)] + ["positive"])
    rows = [",".join(str(v) for v in row) + f",{int(p)}"
            for row, p in zip(counts, positive, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _reviews(Path("data/reviews.csv"))
    Path("assets.py").write_text(ASSETS)
    home = work / "dagster_home"
    home.mkdir()
    env = {**os.environ, "HOME": str(work), "DAGSTER_HOME": str(home)}
    dagster = str(Path(sys.executable).parent / "dagster")
    checkpoints = []
    for args in RUNS:
        command = [dagster, "asset", "materialize", "-f", "assets.py", *args]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env,
                              timeout=600)
        sys.stderr.write(done.stdout + done.stderr)
        out = done.stdout + done.stderr
        run_id = re.search(r"__ASSET_JOB - ([0-9a-f-]{36}) - .*RUN_SUCCESS", out)
        written = re.findall(r"sentiment_model - Writing file at: (\S+) using "
                             r"PickledObjectFilesystemIOManager", out)
        assert run_id and written == [str(home / "storage/sentiment_model")], written
        assert "ASSET_MATERIALIZATION - Materialized value sentiment_model" in out
        checkpoints.append({
            "run": f"dagster_home/history/runs/{run_id.group(1)}.db", "best": None,
            "latest": "dagster_home/storage/sentiment_model",
            "evidence": f"run {run_id.group(1)} logged 'sentiment_model - Writing file at: "
                        f"<DAGSTER_HOME>/storage/sentiment_model using "
                        f"PickledObjectFilesystemIOManager' and ASSET_MATERIALIZATION of "
                        f"sentiment_model (its compute log and event log say the same); "
                        f"Dagster keeps one value per asset key, so the second run overwrote "
                        f"the file, and has no notion of a best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path == "dagster_home/storage/sentiment_model":
        return "checkpoint"
    if path in ("dagster_home/storage/reviews", "dagster_home/storage/features"):
        return "augmented"
    if path.startswith(("dagster_home/history/", "dagster_home/logs/")) or \
            "/compute_logs/" in path:
        return "log"
    if path.startswith(("dagster_home/", ".dagster/")):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "dagster", tool="dagster",
           kind="data orchestration (Dagster software-defined assets, local instance)",
           command="HOME=<workspace> DAGSTER_HOME=<workspace>/dagster_home; dagster asset "
                   "materialize -f assets.py --select '*'; dagster asset materialize -f "
                   "assets.py --select sentiment_model --config-json '{\"ops\": "
                   "{\"sentiment_model\": {\"config\": {\"lr\": 2.0}}}}'")
