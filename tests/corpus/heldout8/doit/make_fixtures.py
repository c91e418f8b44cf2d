"""doit: the user's ``dodo.py`` is a small ML pipeline as doit tasks (``task_*`` functions with
``file_dep``, ``targets`` and python or shell actions): cleanse the raw CSV, compute features,
train a NumPy logistic regression, write a report. ``doit`` runs it, keeping its dependency
state in ``.doit.db`` (doit's default ``dbm`` backend, which on this Python is ``dbm.dumb``:
``.doit.db.dat``, ``.doit.db.dir``, ``.doit.db.bak``).

    python3.11 -m venv /tmp/h8/doit/venv
    /tmp/h8/doit/venv/bin/pip install doit numpy
    /tmp/h8/doit/venv/bin/python tests/corpus/heldout8/doit/make_fixtures.py

``doit`` (every task runs), ``doit`` again (every task up to date), then new rows are added
to the raw CSV and ``doit`` re-runs the chain; ``doit list --status`` at the end.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

DODO = '''"""Pipeline of the churn model: run ``doit``."""
import json

import numpy as np

RAW = "data/raw/customers.csv"
CLEAN = "data/interim/customers_clean.csv"
FEATURES = "data/processed/features.npz"
MODEL = "models/logreg.npz"
METRICS = "reports/metrics.json"


def clean(dependencies, targets):
    lines = open(dependencies[0]).read().splitlines()
    kept = [lines[0]] + [ln for ln in lines[1:] if "NA" not in ln.split(",")]
    open(targets[0], "w").write("\\n".join(kept) + "\\n")


def features(dependencies, targets):
    table = np.loadtxt(dependencies[0], delimiter=",", skiprows=1)
    X, y = table[:, 1:-1], table[:, -1]
    mean, std = X.mean(0), X.std(0)
    np.savez(targets[0], X=(X - mean) / std, y=y, mean=mean, std=std)


def train(dependencies, targets):
    data = np.load(FEATURES)
    X, y = np.c_[data["X"], np.ones(len(data["X"]))], data["y"]
    w = np.zeros(X.shape[1])
    for epoch in range(300):
        p = 1 / (1 + np.exp(-X @ w))
        w -= 0.5 * X.T @ (p - y) / len(y)
    accuracy = float(((X @ w > 0) == y).mean())
    np.savez(MODEL, w=w, mean=data["mean"], std=data["std"])
    json.dump({"train_accuracy": accuracy, "n": int(len(y))}, open(METRICS, "w"), indent=1)
    print(f"accuracy {accuracy:.3f} -> {MODEL}")


def task_cleanse():
    """drop rows with missing values"""
    return {"file_dep": [RAW], "targets": [CLEAN], "actions": [clean], "clean": True}


def task_features():
    """standardised feature matrix"""
    return {"file_dep": [CLEAN], "targets": [FEATURES], "actions": [features],
            "clean": True}


def task_train():
    """fit the logistic regression"""
    return {"file_dep": [FEATURES, "dodo.py"], "targets": [MODEL, METRICS],
            "actions": [train], "verbosity": 2}


def task_report():
    """markdown report from the metrics"""
    return {"file_dep": [METRICS], "targets": ["reports/report.md"],
            "actions": ["echo '# churn model' > %(targets)s",
                        "cat %(dependencies)s >> %(targets)s"]}
'''


def _customers(path: Path, start: int, n: int) -> None:
    import random

    rng = random.Random(start)
    rows = []
    for i in range(start, start + n):
        tenure, spend, tickets = rng.randint(1, 72), rng.uniform(5, 150), rng.randint(0, 9)
        churn = int(tickets * 0.4 - tenure * 0.05 + rng.gauss(0, 1) > 0)
        spend_text = "NA" if rng.random() < 0.03 else f"{spend:.2f}"
        rows.append(f"{i},{tenure},{spend_text},{tickets},{churn}")
    if not path.exists():
        path.parent.mkdir(parents=True)
        path.write_text("customer_id,tenure_months,monthly_spend,support_tickets,churned\n")
    with path.open("a") as f:
        f.write("\n".join(rows) + "\n")


def _doit(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "doit", *args], capture_output=True,
                          text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    return done.stdout + done.stderr


def run(work: Path) -> list[dict[str, object]]:
    raw = Path("data/raw/customers.csv")
    _customers(raw, 0, 400)
    for folder in ("data/interim", "data/processed", "models", "reports"):
        Path(folder).mkdir(parents=True)
    Path("dodo.py").write_text(DODO)
    first = _doit()
    assert ".  train" in first, first
    second = _doit()
    assert "-- train" in second, second
    _customers(raw, 400, 100)
    third = _doit()
    assert ".  train" in third, third
    _doit("list", "--status")
    return [{"run": "doit (three times: all, all up to date, after new raw rows)", "best": None,
             "latest": "models/logreg.npz",
             "evidence": "doit is a task runner with no notion of a checkpoint; the train task's "
                         "target is models/logreg.npz (its action printed 'accuracy ... -> "
                         "models/logreg.npz'), rewritten by the third run"}]


def label(path: str) -> str:
    if path.startswith(("data/interim/", "data/processed/")):
        return "augmented"
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("reports/"):
        return "log"
    if path.startswith(".doit.db"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "doit", tool="doit",
           kind="task runner with file dependencies (dodo.py, .doit.db state)",
           command="doit; doit; (rows appended to data/raw/customers.csv) doit; doit list "
                   "--status (dodo.py: tasks cleanse, features, train, report with file_dep "
                   "and targets)")
