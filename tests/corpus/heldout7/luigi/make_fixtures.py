"""Luigi: the user's ``pipeline.py`` (raw CSV -> cleaned CSV -> standardised features ->
a trained NumPy logistic regression and its metrics, every task a ``luigi.LocalTarget``)
is run twice against Luigi's central scheduler ``luigid``, started in the project as its
docs show (``--background --pidfile --logdir --state-path``), with task history on
(``luigi.cfg``: ``record_task_history``, a SQLite ``db_connection``).

    python3.11 -m venv /tmp/h7/luigi/venv
    /tmp/h7/luigi/venv/bin/pip install luigi numpy "sqlalchemy<2" python-daemon
    /tmp/h7/luigi/venv/bin/python tests/corpus/heldout7/luigi/make_fixtures.py

``luigid --background --port P --pidfile luigi-state/luigid.pid --logdir logs/luigid
--state-path luigi-state/state.pickle``, then ``python -m luigi --module pipeline
TrainModel --lr 0.1`` and ``... --lr 0.5`` (the second finds ``BuildFeatures``
complete and runs only ``TrainModel``), then SIGTERM to luigid (it pickles its state on
shutdown).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PIPELINE = '''"""Churn pipeline: python -m luigi --module pipeline TrainModel --lr 0.1"""
import json

import luigi
import numpy as np


class RawCustomers(luigi.ExternalTask):
    def output(self):
        return luigi.LocalTarget("data/raw/customers.csv")


class CleanCustomers(luigi.Task):
    def requires(self):
        return RawCustomers()

    def output(self):
        return luigi.LocalTarget("data/processed/customers_clean.csv")

    def run(self):
        with self.input().open() as f:
            header, *rows = f.read().splitlines()
        kept = [r for r in rows if "" not in r.split(",")]
        with self.output().open("w") as f:
            f.write("\\n".join([header, *kept]) + "\\n")


class BuildFeatures(luigi.Task):
    def requires(self):
        return CleanCustomers()

    def output(self):
        return luigi.LocalTarget("data/features/features.npz", format=luigi.format.Nop)

    def run(self):
        table = np.loadtxt(self.input().path, delimiter=",", skiprows=1)
        x, y = table[:, :-1], table[:, -1]
        mean, std = x.mean(0), x.std(0)
        with self.output().open("w") as f:
            np.savez(f, x=(x - mean) / std, y=y, mean=mean, std=std)


class TrainModel(luigi.Task):
    lr = luigi.FloatParameter(default=0.1)
    epochs = luigi.IntParameter(default=200)

    def requires(self):
        return BuildFeatures()

    def output(self):
        return {"model": luigi.LocalTarget(f"models/logreg_lr{self.lr}.npz",
                                           format=luigi.format.Nop),
                "metrics": luigi.LocalTarget(f"reports/metrics_lr{self.lr}.json")}

    def run(self):
        data = np.load(self.input().path)
        x, y = data["x"], data["y"]
        n = int(0.8 * len(y))
        w, b = np.zeros(x.shape[1]), 0.0
        for _ in range(self.epochs):
            p = 1 / (1 + np.exp(-(x[:n] @ w + b)))
            w -= self.lr * x[:n].T @ (p - y[:n]) / n
            b -= self.lr * float(np.mean(p - y[:n]))
        acc = float(np.mean(((x[n:] @ w + b) > 0) == y[n:]))
        with self.output()["model"].open("w") as f:
            np.savez(f, w=w, b=b, mean=data["mean"], std=data["std"])
        with self.output()["metrics"].open("w") as f:
            json.dump({"lr": self.lr, "epochs": self.epochs, "val_accuracy": acc}, f)
'''

CONFIG = """[core]
default-scheduler-port = {port}

[scheduler]
record_task_history = true
state_path = luigi-state/state.pickle

[task_history]
db_connection = sqlite:///luigi-state/task-history.db
"""


def _customers(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5))
    y = (x @ np.array([1.2, -0.7, 0.4, 0.0, 0.9]) + rng.normal(0, 0.5, 600) > 0).astype(int)
    rows = []
    for features, target in zip(x, y, strict=True):
        cells = [f"{v:.4f}" for v in features]
        if rng.random() < 0.03:
            cells[int(rng.integers(5))] = ""
        rows.append(",".join([*cells, str(target)]))
    path.parent.mkdir(parents=True)
    header = "tenure,monthly_spend,support_calls,age,discount,churned"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(work: Path) -> list[dict[str, object]]:
    _customers(Path("data/raw/customers.csv"))
    Path("pipeline.py").write_text(PIPELINE)
    port = _free_port()
    Path("luigi.cfg").write_text(CONFIG.format(port=port))
    Path("models").mkdir()
    Path("reports").mkdir()
    bindir = Path(sys.executable).parent
    subprocess.run([str(bindir / "luigid"), "--background", "--port", str(port),
                    "--pidfile", "luigi-state/luigid.pid", "--logdir", "logs/luigid",
                    "--state-path", "luigi-state/state.pickle"], check=True)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    pid = int(Path("luigi-state/luigid.pid").read_text().split()[0])
    checkpoints = []
    env = {**os.environ, "PYTHONPATH": str(work)}
    try:
        for lr in ("0.1", "0.5"):
            done = subprocess.run([sys.executable, "-m", "luigi", "--module", "pipeline",
                                   "TrainModel", "--lr", lr], capture_output=True,
                                  text=True, check=True, env=env)
            sys.stderr.write(done.stderr[-2500:])
            summary = done.stderr[done.stderr.index("===== Luigi Execution Summary"):]
            assert f"- 1 TrainModel(lr={lr}, epochs=200)" in summary, summary
            assert ":)" in summary, summary
            model, metrics = f"models/logreg_lr{lr}.npz", f"reports/metrics_lr{lr}.json"
            assert Path(model).is_file() and Path(metrics).is_file()
            checkpoints.append({
                "run": f"python -m luigi --module pipeline TrainModel --lr {lr}",
                "best": None, "latest": model,
                "evidence": f"Luigi's execution summary lists TrainModel(lr={lr}, epochs=200) "
                            f"among the tasks that ran successfully, and that task's output() "
                            f"model target is {model} (metrics "
                            f"{json.loads(Path(metrics).read_text())}); Luigi has no notion of "
                            f"a best model"})
    finally:
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
    assert Path("luigi-state/state.pickle").is_file()
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/features/"):
        return "augmented"
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("reports/", "logs/")) or path == "luigi-state/task-history.db":
        return "log"
    if path.startswith("luigi-state/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "luigi", tool="luigi",
           kind="pipeline orchestration (local targets, central scheduler state)",
           command="luigid --background --pidfile luigi-state/luigid.pid --logdir "
                   "logs/luigid --state-path luigi-state/state.pickle; python -m luigi "
                   "--module pipeline TrainModel --lr 0.1; ... --lr 0.5; kill -TERM luigid")
