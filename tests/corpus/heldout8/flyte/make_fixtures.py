"""Flyte (flytekit): the user's ``workflow.py`` is a small training workflow of flytekit
``@task``s in a ``@workflow``, the data-loading and training tasks with ``cache=True,
cache_version="1"``; it is executed locally with ``pyflyte run`` (flytekit's local
execution), three times: ``--lr 0.1``, ``--lr 0.1`` again (both cached tasks are served from
flytekit's local cache) and ``--lr 0.3`` (the training task runs again). flytekit's local
cache is the ``diskcache`` folder ``~/.flyte/local-cache``, so the scratch workspace stands
for the user's home folder (``HOME`` points at it) with the project in ``projects/churn``.

    python3.11 -m venv /tmp/h8/flyte/venv
    /tmp/h8/flyte/venv/bin/pip install --only-binary=:all: flytekit numpy
    /tmp/h8/flyte/venv/bin/python tests/corpus/heldout8/flyte/make_fixtures.py

Task outputs that are files (the ``np.ndarray`` features and weights) go to flytekit's
local raw-output sandbox under the system temporary folder (``/tmp/flyte...``), outside the
home folder, and are not part of the capture; the last task writes the model into the
project's ``models/``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

WORKFLOW = '''"""Churn model workflow: pyflyte run workflow.py training_wf --lr 0.1"""
from pathlib import Path

import numpy as np
from flytekit import task, workflow

HERE = Path(__file__).resolve().parent


@task(cache=True, cache_version="1")
def load_features(path: str) -> np.ndarray:
    table = np.loadtxt(HERE / path, delimiter=",", skiprows=1)
    X = table[:, 1:]
    X[:, :-1] = (X[:, :-1] - X[:, :-1].mean(0)) / X[:, :-1].std(0)
    return X


@task(cache=True, cache_version="1")
def train(data: np.ndarray, lr: float, steps: int) -> np.ndarray:
    X, y = np.c_[data[:, :-1], np.ones(len(data))], data[:, -1]
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-X @ w))
        w -= lr * X.T @ (p - y) / len(y)
    return w


@task
def evaluate(data: np.ndarray, w: np.ndarray) -> float:
    X, y = np.c_[data[:, :-1], np.ones(len(data))], data[:, -1]
    return float(((X @ w > 0) == y).mean())


@task
def save_model(w: np.ndarray, lr: float, accuracy: float) -> str:
    out = HERE / "models" / f"logreg_lr{lr}.npz"
    out.parent.mkdir(exist_ok=True)
    np.savez(out, w=w, accuracy=accuracy)
    print("saved", out.relative_to(HERE))
    return str(out.relative_to(HERE))


@workflow
def training_wf(lr: float = 0.1, steps: int = 200) -> str:
    data = load_features(path="data/customers.csv")
    w = train(data=data, lr=lr, steps=steps)
    accuracy = evaluate(data=data, w=w)
    return save_model(w=w, lr=lr, accuracy=accuracy)
'''


def _customers(path: Path) -> None:
    import random

    rng = random.Random(0)
    rows = ["customer_id,tenure_months,monthly_spend,support_tickets,churned"]
    for i in range(400):
        tenure, spend, tickets = rng.randint(1, 72), rng.uniform(5, 150), rng.randint(0, 9)
        churn = int(tickets * 0.4 - tenure * 0.05 + rng.gauss(0, 1) > 0)
        rows.append(f"{i},{tenure},{spend:.2f},{tickets},{churn}")
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    project = work / "projects" / "churn"
    _customers(project / "data" / "customers.csv")
    (project / "workflow.py").write_text(WORKFLOW)
    env = {"PATH": os.environ["PATH"], "HOME": str(work), "LANG": "C.UTF-8"}
    pyflyte = str(Path(sys.executable).with_name("pyflyte"))
    checkpoints = []
    for lr in ("0.1", "0.1", "0.3"):
        done = subprocess.run([pyflyte, "run", "workflow.py", "training_wf", "--lr", lr],
                              cwd=project, env=env, capture_output=True, text=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert done.returncode == 0, done.returncode
        path = f"models/logreg_lr{lr}.npz"
        assert path in done.stdout, done.stdout
        checkpoints.append({
            "run": f"pyflyte run workflow.py training_wf --lr {lr}", "best": None,
            "latest": f"projects/churn/{path}",
            "evidence": f"Flyte has no notion of a best checkpoint; the workflow's output "
                        f"(save_model's return value, printed by pyflyte run) was '{path}', "
                        f"relative to the project projects/churn"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith(".flyte/") or "/__pycache__/" in path:
        return "cache"
    if path.startswith("projects/churn/data/"):
        return "dataset"
    if path.startswith("projects/churn/models/"):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "flytekit", tool="flyte",
           kind="workflow orchestrator, local execution (flytekit local cache)",
           command="HOME=<workspace>; cd projects/churn; pyflyte run workflow.py training_wf "
                   "--lr 0.1; the same again; pyflyte run workflow.py training_wf --lr 0.3 "
                   "(load_features and train with cache=True, cache_version='1')")
