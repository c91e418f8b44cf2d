"""Prefect: the user's ``flow.py`` trains a NumPy logistic-regression churn model as a Prefect
flow whose tasks persist their results (``@task(persist_result=True)``, the features task also
cached on its inputs and source with ``cache_policy=TASK_SOURCE + INPUTS``), with ``HOME`` set
to the scratch workspace so that Prefect's default home ``~/.prefect`` (its SQLite database
and its default local result storage, ``~/.prefect/storage``) is inside it. No Prefect
server is configured, so each run starts Prefect's temporary local server, as a first-time
user gets it. Run twice, with two learning rates, as a user sweeping it would.

    python3.11 -m venv /tmp/h6/prefect/venv
    /tmp/h6/prefect/venv/bin/pip install prefect numpy
    /tmp/h6/prefect/venv/bin/python tests/corpus/heldout6/prefect/make_fixtures.py

``HOME=<workspace> PREFECT_SERVER_ANALYTICS_ENABLED=false python flow.py 0.1``, then the same
with ``0.5``: ``load_features`` (standardised features of the user's ``data/churn.csv``) is
computed and persisted in the first run and read from its cached result in the second;
``train`` (the fit, returning weights and validation accuracy) is persisted once per run;
``save_model`` writes the model the user keeps to ``models/churn_lr<lr>.npz`` and the flow
returns that path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FLOW = '''"""Train a churn classifier as a Prefect flow: python flow.py LR"""
import sys
from pathlib import Path

import numpy as np
from prefect import flow, task
from prefect.cache_policies import INPUTS, TASK_SOURCE


@task(persist_result=True, cache_policy=TASK_SOURCE + INPUTS)
def load_features(path: str) -> dict:
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    mean, std = X.mean(0), X.std(0)
    return {"X": (X - mean) / std, "y": y, "mean": mean, "std": std}


@task(persist_result=True)
def train(features: dict, lr: float, epochs: int = 200) -> dict:
    X, y = features["X"], features["y"]
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(epochs):
        p = 1 / (1 + np.exp(-(X[:800] @ w + b)))
        w -= lr * X[:800].T @ (p - y[:800]) / 800
        b -= lr * float((p - y[:800]).mean())
    accuracy = float((((X[800:] @ w + b) > 0) == y[800:]).mean())
    return {"w": w, "b": b, "val_accuracy": accuracy}


@task
def save_model(model: dict, features: dict, lr: float) -> str:
    Path("models").mkdir(exist_ok=True)
    path = f"models/churn_lr{lr}.npz"
    np.savez(path, w=model["w"], b=model["b"], mean=features["mean"], std=features["std"])
    return path


@flow(log_prints=True)
def train_churn(lr: float = 0.1) -> str:
    features = load_features("data/churn.csv")
    model = train(features, lr)
    print(f"lr={lr} val_accuracy={model['val_accuracy']:.3f}")
    path = save_model(model, features, lr)
    print("saved", path)
    return path


if __name__ == "__main__":
    print("flow returned", train_churn(float(sys.argv[1])))
'''


def _churn(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 6))
    churned = X @ np.array([1.0, -2.0, 0.5, 0.0, 0.0, 1.5]) + rng.normal(size=1000) > 0
    path.parent.mkdir(parents=True)
    header = ",".join([f"f{i}" for i in range(6)] + ["churned"])
    rows = [",".join(f"{v:.4f}" for v in x) + f",{int(c)}"
            for x, c in zip(X, churned, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _churn(Path("data/churn.csv"))
    Path("flow.py").write_text(FLOW)
    env = {**os.environ, "HOME": str(work), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    for var in ("PREFECT_API_URL", "PREFECT_HOME", "PREFECT_PROFILES_PATH"):
        env.pop(var, None)
    checkpoints = []
    for lr in ("0.1", "0.5"):
        done = subprocess.run([sys.executable, "flow.py", lr], capture_output=True,
                              text=True, check=True, env=env, timeout=600)
        sys.stderr.write(done.stdout + done.stderr)
        path = f"models/churn_lr{lr}.npz"
        assert done.stdout.strip().splitlines()[-1] == f"flow returned {path}", done.stdout
        assert f"saved {path}" in done.stdout + done.stderr
        checkpoints.append({
            "run": f"python flow.py {lr}", "best": None, "latest": path,
            "evidence": f"the flow train_churn returned {path!r} (printed 'flow returned "
                        f"{path}') and logged 'saved {path}' (log_prints, also kept in "
                        f"prefect.db), the one model the run saved; Prefect has no notion of "
                        f"a best checkpoint (its persisted task results in .prefect/storage "
                        f"are cached return values, not saved models)"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(".prefect/prefect.db"):
        return "log"
    if path.startswith(".prefect/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "prefect", tool="prefect",
           kind="workflow orchestration (Prefect flow with persisted task results)",
           command="HOME=<workspace> PREFECT_SERVER_ANALYTICS_ENABLED=false; python flow.py "
                   "0.1; python flow.py 0.5 (flow.py: @flow train_churn with @task("
                   "persist_result=True) load_features (cache_policy TASK_SOURCE + INPUTS) "
                   "and train, and save_model writing models/churn_lr<lr>.npz)")
