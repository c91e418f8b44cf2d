"""sacred: the user's ``train.py`` is a Sacred experiment (a NumPy logistic regression on the
user's ``data/points.csv``) with a ``FileStorageObserver("runs")``, Sacred's documented file
observer; it reads the data through ``ex.open_resource``, logs metrics with
``_run.log_scalar`` and saves a checkpoint every ``save_every`` epochs with ``np.savez``
beside the script, then hands it to Sacred with ``ex.add_artifact``. Run twice from the
command line, as Sacred's CLI is used.

    python3.11 -m venv /tmp/h9/sacred/venv
    /tmp/h9/sacred/venv/bin/pip install sacred numpy
    /tmp/h9/sacred/venv/bin/python tests/corpus/heldout9/sacred/make_fixtures.py

``python train.py with lr=0.1`` (30 epochs, checkpoints at 10, 20, 30) then ``python
train.py with lr=0.5 epochs=20`` (checkpoints at 10, 20): runs ``runs/1`` and ``runs/2``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Logistic regression on data/points.csv, tracked with Sacred."""
import numpy as np
from sacred import Experiment
from sacred.observers import FileStorageObserver

ex = Experiment("points_logreg")
ex.observers.append(FileStorageObserver("runs"))


@ex.config
def config():
    lr = 0.1
    epochs = 30
    save_every = 10
    seed = 0


@ex.automain
def main(_run, lr, epochs, save_every):
    with ex.open_resource("data/points.csv") as f:
        table = np.loadtxt(f, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    Xtr, ytr, Xva, yva = X[:320], y[:320], X[320:], y[320:]
    w = np.zeros(X.shape[1])
    best = 0.0
    for epoch in range(1, epochs + 1):
        p = 1 / (1 + np.exp(-Xtr @ w))
        w -= lr * Xtr.T @ (p - ytr) / len(ytr)
        loss = float(-np.mean(ytr * np.log(p + 1e-9) + (1 - ytr) * np.log(1 - p + 1e-9)))
        acc = float(np.mean(((Xva @ w) > 0) == yva))
        _run.log_scalar("train.loss", loss, epoch)
        _run.log_scalar("val.accuracy", acc, epoch)
        best = max(best, acc)
        if epoch % save_every == 0:
            name = f"ckpt_epoch{epoch}.npz"
            np.savez(name, w=w, epoch=epoch)
            ex.add_artifact(name)
            print(f"epoch {epoch}: loss {loss:.4f} val acc {acc:.3f}, saved {name}")
    return best
'''

RUNS = (("1", ["lr=0.1"], 30), ("2", ["lr=0.5", "epochs=20"], 20))


def _points(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 8))
    y = (X @ rng.normal(size=8) + rng.normal(0, 0.5, size=400) > 0).astype(int)
    path.parent.mkdir(parents=True)
    header = ",".join([f"x{i}" for i in range(8)] + ["label"])
    rows = [",".join(f"{v:.4f}" for v in r) + f",{c}" for r, c in zip(X, y, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _points(Path("data/points.csv"))
    Path("train.py").write_text(TRAIN)
    checkpoints = []
    for run_id, updates, epochs in RUNS:
        done = subprocess.run([sys.executable, "train.py", "with", *updates],
                              capture_output=True, text=True, check=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert f'Started run with ID "{run_id}"' in done.stderr, done.stderr
        assert f"saved ckpt_epoch{epochs}.npz" in done.stdout.splitlines()[-1], done.stdout
        info = json.loads(Path(f"runs/{run_id}/run.json").read_text())
        assert info["status"] == "COMPLETED", info["status"]
        artifacts = info["artifacts"]
        assert artifacts == [f"ckpt_epoch{e}.npz" for e in range(10, epochs + 1, 10)]
        checkpoints.append({
            "run": f"python train.py with {' '.join(updates)} (runs/{run_id})",
            "best": None, "latest": f"runs/{run_id}/{artifacts[-1]}",
            "evidence": f"runs/{run_id}/run.json lists the run's artifacts in the order "
                        f"added, {artifacts}, the last printed as 'saved {artifacts[-1]}' "
                        f"at the final epoch; Sacred names no best (run.json's result "
                        f"{info['result']} is the best validation accuracy, not a file)"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith(".npz"):
        return "checkpoint"
    if path.startswith("runs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sacred", tool="sacred",
           kind="experiment tracker (FileStorageObserver)",
           command="python train.py with lr=0.1; python train.py with lr=0.5 epochs=20 "
                   "(train.py: Experiment with FileStorageObserver('runs'), "
                   "ex.open_resource('data/points.csv'), _run.log_scalar, np.savez then "
                   "ex.add_artifact('ckpt_epoch<N>.npz') every 10 epochs)")
