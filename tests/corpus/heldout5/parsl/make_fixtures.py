"""Parsl: the user's ``sweep.py`` runs a small hyperparameter sweep as Parsl apps on a local
``HighThroughputExecutor`` (Parsl's documented local configuration, ``run_dir`` left at its
default ``runinfo``), with app caching and Parsl's task-exit checkpointing on, twice: the
second time with one more configuration, so the finished ones come from Parsl's checkpoint.

    python3.11 -m venv /tmp/h5/parsl/venv
    /tmp/h5/parsl/venv/bin/pip install parsl numpy
    /tmp/h5/parsl/venv/bin/python tests/corpus/heldout5/parsl/make_fixtures.py

``sweep.py``: a ``bash_app`` ``train`` (``python train_mlp.py --name N --hidden H --lr LR``,
``stdout``/``stderr`` = ``parsl.AUTO_LOGNAME``, ``cache=True``) per configuration, then a
``python_app`` ``evaluate`` on each run's best weights; the sweep's table goes to
``results/sweep.csv``. ``train_mlp.py`` is the user's: a NumPy MLP on ``data/shapes.npz``
(toy 8x8 images of three shapes), saving ``checkpoints/<name>/epoch_<k>.npz`` each epoch,
``checkpoints/<name>/best.npz`` at each new best validation accuracy and
``checkpoints/<name>/metrics.jsonl``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SWEEP = '''"""Hyperparameter sweep with Parsl: python sweep.py NAME:HIDDEN:LR ..."""
import csv
import os
import sys

import parsl
from parsl import bash_app, python_app
from parsl.config import Config
from parsl.dataflow.memoization import BasicMemoizer
from parsl.executors import HighThroughputExecutor
from parsl.providers import LocalProvider

config = Config(
    executors=[HighThroughputExecutor(
        label="htex_local", address="127.0.0.1", max_workers_per_node=2,
        provider=LocalProvider(init_blocks=1, max_blocks=1))],
    memoizer=BasicMemoizer(checkpoint_mode="task_exit"),
)


@bash_app(cache=True)
def train(name, hidden, lr, stdout=parsl.AUTO_LOGNAME, stderr=parsl.AUTO_LOGNAME):
    return f"python train_mlp.py --name {name} --hidden {hidden} --lr {lr} --epochs 6"


@python_app(cache=True)
def evaluate(weights, data, inputs=()):
    import numpy as np

    w, d = np.load(weights), np.load(data)
    X, y = d["images"].reshape(len(d["images"]), -1)[-300:], d["labels"][-300:]
    h = np.maximum(X @ w["W1"] + w["b1"], 0)
    return float(((h @ w["W2"] + w["b2"]).argmax(1) == y).mean())


if __name__ == "__main__":
    here = os.getcwd()
    configs = [arg.split(":") for arg in sys.argv[1:]]
    with parsl.load(config):
        trained = {name: train(name, hidden, lr) for name, hidden, lr in configs}
        scores = {name: evaluate(f"{here}/checkpoints/{name}/best.npz",
                                 f"{here}/data/shapes.npz", inputs=[fut])
                  for name, fut in trained.items()}
        os.makedirs("results", exist_ok=True)
        with open("results/sweep.csv", "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["name", "hidden", "lr", "test_accuracy"])
            for name, hidden, lr in configs:
                out.writerow([name, hidden, lr, f"{scores[name].result():.4f}"])
                print(name, "test accuracy", scores[name].result())
'''

TRAIN = '''"""NumPy MLP on the toy shapes: python train_mlp.py --name N [--hidden H] [--lr LR]"""
import argparse
import json
from pathlib import Path

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--name", required=True)
p.add_argument("--hidden", type=int, default=32)
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--epochs", type=int, default=5)
args = p.parse_args()

d = np.load("data/shapes.npz")
X, y = d["images"].reshape(len(d["images"]), -1), d["labels"]
Xtr, ytr, Xva, yva = X[:1200], y[:1200], X[1200:1500], y[1200:1500]
rng = np.random.default_rng(0)
W1 = rng.normal(0, 0.1, (64, args.hidden))
b1 = np.zeros(args.hidden)
W2 = rng.normal(0, 0.1, (args.hidden, 3))
b2 = np.zeros(3)
out = Path("checkpoints") / args.name
out.mkdir(parents=True, exist_ok=True)
best = -1.0
for epoch in range(1, args.epochs + 1):
    order = rng.permutation(len(Xtr))
    for i in range(0, len(order), 32):
        xb, tb = Xtr[order[i:i + 32]], ytr[order[i:i + 32]]
        h = np.maximum(xb @ W1 + b1, 0)
        z = h @ W2 + b2
        pr = np.exp(z - z.max(1, keepdims=True))
        pr /= pr.sum(1, keepdims=True)
        pr[np.arange(len(tb)), tb] -= 1
        g = pr / len(tb)
        dh = (g @ W2.T) * (h > 0)
        W2 -= args.lr * h.T @ g
        b2 -= args.lr * g.sum(0)
        W1 -= args.lr * xb.T @ dh
        b1 -= args.lr * dh.sum(0)
    acc = float(((np.maximum(Xva @ W1 + b1, 0) @ W2 + b2).argmax(1) == yva).mean())
    weights = dict(W1=W1, b1=b1, W2=W2, b2=b2)
    np.savez(out / f"epoch_{epoch:02d}.npz", **weights)
    if acc > best:
        best = acc
        np.savez(out / "best.npz", epoch=epoch, **weights)
    with open(out / "metrics.jsonl", "a") as log:
        log.write(json.dumps({"epoch": epoch, "val_accuracy": acc}) + "\\n")
    print(f"[{args.name}] epoch {epoch} val accuracy {acc:.3f}", flush=True)
print(f"[{args.name}] best val accuracy {best:.3f}")
'''


def _shapes(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:8, 0:8]
    masks = [((yy - 3.5) ** 2 + (xx - 3.5) ** 2 < 9).astype(float),  # disc
             ((abs(yy - 3.5) < 3) & (abs(xx - 3.5) < 3)).astype(float),  # square
             (abs(yy - xx) < 1.5).astype(float)]  # diagonal bar
    labels = rng.integers(0, 3, size=1800)
    images = np.stack([np.roll(masks[c], rng.integers(-1, 2, 2), (0, 1)) for c in labels])
    images = (images + rng.normal(0, 0.35, images.shape)).astype(np.float32)
    path.parent.mkdir(parents=True)
    np.savez_compressed(path, images=images, labels=labels)


def run(work: Path) -> list[dict[str, object]]:
    _shapes(Path("data/shapes.npz"))
    Path("sweep.py").write_text(SWEEP)
    Path("train_mlp.py").write_text(TRAIN)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    sweeps = (["h16:16:0.1", "h64:64:0.1"], ["h16:16:0.1", "h64:64:0.1", "h64_lr03:64:0.3"])
    for configs in sweeps:
        done = subprocess.run([sys.executable, "sweep.py", *configs], capture_output=True,
                              text=True, check=True, env=env, timeout=300)
        sys.stderr.write(done.stdout + done.stderr)
    # Parsl names no model checkpoint: its "checkpoint" (runinfo/<n>/checkpoint/tasks.pkl)
    # is its table of finished app results, and best.npz/epoch_*.npz are the user's
    # train_mlp.py's own files, which Parsl neither writes nor records; so no run is listed.
    return []


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "log" if path.endswith(".jsonl") else "checkpoint"
    if path.startswith("results/"):
        return "log"
    if path.startswith("runinfo/"):
        if "/checkpoint/" in path or "/certificates/" in path:
            return "cache"
        if "/submit_scripts/" in path:
            return "log" if path.endswith((".out", ".err")) else "cache"
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "parsl", tool="Parsl",
           kind="parallel workflow library (Python apps on a local HighThroughputExecutor)",
           command="python sweep.py h16:16:0.1 h64:64:0.1; python sweep.py h16:16:0.1 "
                   "h64:64:0.1 h64_lr03:64:0.3 (sweep.py: bash_app train with AUTO_LOGNAME "
                   "stdout/stderr and cache=True, python_app evaluate, HighThroughputExecutor "
                   "with LocalProvider, BasicMemoizer(checkpoint_mode='task_exit'))")
