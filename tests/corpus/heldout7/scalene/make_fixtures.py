"""Scalene: the user profiles a small NumPy training script, ``train.py`` (a one-hidden-layer
MLP on the user's ``data/train.csv``, its model code in ``mlp.py``), with Scalene's documented
commands: ``scalene run train.py`` (CPU and memory, the default ``scalene-profile.json``),
``scalene view --html`` (the report ``scalene-profile.html`` beside it), then a CPU-only
profile of a second configuration into a file of the user's choosing,
``scalene run --cpu-only -o profiles/train_h64_cpu.json train.py --- --hidden 64``.

    python3.11 -m venv /tmp/h7/scalene/venv
    /tmp/h7/scalene/venv/bin/pip install scalene numpy
    /tmp/h7/scalene/venv/bin/python tests/corpus/heldout7/scalene/make_fixtures.py

Each run of ``train.py`` saves its trained weights with ``np.savez`` to
``models/mlp_h<hidden>.npz`` and prints the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MLP = '''"""A one-hidden-layer MLP in NumPy."""
import numpy as np


def init(n_in, hidden, n_out, seed=0):
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(0, n_in ** -0.5, (n_in, hidden)), "b1": np.zeros(hidden),
            "W2": rng.normal(0, hidden ** -0.5, (hidden, n_out)), "b2": np.zeros(n_out)}


def forward(params, X):
    h = np.maximum(X @ params["W1"] + params["b1"], 0)
    logits = h @ params["W2"] + params["b2"]
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return h, p / p.sum(axis=1, keepdims=True)


def step(params, X, y, lr):
    h, p = forward(params, X)
    loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
    d = p.copy()
    d[np.arange(len(y)), y] -= 1
    d /= len(y)
    grads = {"W2": h.T @ d, "b2": d.sum(0)}
    dh = (d @ params["W2"].T) * (h > 0)
    grads.update(W1=X.T @ dh, b1=dh.sum(0))
    for k in params:
        params[k] -= lr * grads[k]
    return loss
'''

TRAIN = '''"""Train the MLP on data/train.csv: python train.py [--hidden N] [--epochs N]"""
import argparse

import numpy as np

import mlp

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=32)
parser.add_argument("--epochs", type=int, default=15)
args = parser.parse_args()

table = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
X, y = table[:, :-1], table[:, -1].astype(int)
X = (X - X.mean(0)) / X.std(0)
split = int(0.8 * len(y))
params = mlp.init(X.shape[1], args.hidden, y.max() + 1)
for epoch in range(args.epochs):
    order = np.random.default_rng(epoch).permutation(split)
    for batch in np.array_split(order, split // 64):
        loss = mlp.step(params, X[batch], y[batch], lr=0.1)
    _, p = mlp.forward(params, X[split:])
    acc = (p.argmax(1) == y[split:]).mean()
    print(f"epoch {epoch} loss {loss:.4f} val_acc {acc:.3f}")
path = f"models/mlp_h{args.hidden}.npz"
np.savez(path, **params)
print("saved", path)
'''


def _data(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, size=4000)
    centers = rng.normal(0, 2, size=(4, 16))
    features = centers[labels] + rng.normal(0, 1.5, size=(4000, 16))
    path.parent.mkdir(parents=True)
    header = ",".join([f"f{i}" for i in range(16)] + ["label"])
    rows = [",".join(f"{v:.3f}" for v in row) + f",{c}"
            for row, c in zip(features, labels, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def _scalene(*args: str) -> str:
    scalene = str(Path(sys.executable).with_name("scalene"))
    # as a user's shell has it: Python writes its own bytecode cache
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([scalene, *args], capture_output=True, text=True, env=env,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data/train.csv"))
    Path("mlp.py").write_text(MLP)
    Path("train.py").write_text(TRAIN)
    Path("models").mkdir()
    Path("profiles").mkdir()
    checkpoints = []
    runs = [(["run", "train.py"], "32"),
            (["run", "--cpu-only", "-o", "profiles/train_h64_cpu.json", "train.py", "---",
              "--hidden", "64"], "64")]
    for args, hidden in runs:
        out = _scalene(*args)
        path = f"models/mlp_h{hidden}.npz"
        assert f"saved {path}" in out, out
        assert Path(path).is_file()
        checkpoints.append({
            "run": "scalene " + " ".join(args), "best": None, "latest": path,
            "evidence": f"train.py printed 'saved {path}' (np.savez), the one model the "
                        f"profiled run saved; Scalene is a profiler and names no checkpoint, "
                        f"and the script keeps no best"})
        if hidden == "32":
            _scalene("view", "--html")
    assert Path("scalene-profile.json").is_file() and Path("scalene-profile.html").is_file()
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if "__pycache__/" in path:
        return "cache"
    if path.startswith(("scalene-profile.", "profiles/")):
        return "debug"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "scalene", tool="scalene",
           kind="CPU and memory profiler (scalene run, scalene view --html)",
           command="scalene run train.py; scalene view --html; scalene run --cpu-only -o "
                   "profiles/train_h64_cpu.json train.py --- --hidden 64 (train.py: NumPy MLP "
                   "on data/train.csv, np.savez to models/mlp_h<hidden>.npz)")
