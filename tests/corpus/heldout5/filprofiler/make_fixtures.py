"""Fil (filprofiler): the peak-memory profiler for Python data scripts, run over the user's
toy NumPy training script as Fil's docs show (``fil-profile run script.py``), twice.

    python3.11 -m venv /tmp/h5/filprofiler/venv
    /tmp/h5/filprofiler/venv/bin/pip install filprofiler numpy
    /tmp/h5/filprofiler/venv/bin/python tests/corpus/heldout5/filprofiler/make_fixtures.py

``train.py`` trains a one-hidden-layer NumPy MLP on the user's ``data/train.npz`` (toy
3-class features), mini-batch SGD, writes ``runs/<name>/metrics.csv`` and saves
``runs/<name>/model_epoch<k>.npz`` each epoch and ``runs/<name>/model_best.npz`` at each new
best validation loss. Run 1: ``fil-profile --no-browser run train.py --name h64`` (the
report lands in ``fil-result/<timestamp>/``, Fil's default); run 2: ``fil-profile
--no-browser -o profiles/h256 run train.py --name h256 --hidden 256`` (``-o``: the report
folder the user picked).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Toy NumPy MLP: python train.py --name NAME [--hidden H] [--epochs E]"""
import argparse
from pathlib import Path

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--name", required=True)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--epochs", type=int, default=5)
args = parser.parse_args()

data = np.load("data/train.npz")
X, y = data["features"], data["labels"]
Xtr, ytr, Xva, yva = X[:3000], y[:3000], X[3000:], y[3000:]
rng = np.random.default_rng(0)
W1 = rng.normal(0, 0.1, (X.shape[1], args.hidden))
b1 = np.zeros(args.hidden)
W2 = rng.normal(0, 0.1, (args.hidden, 3))
b2 = np.zeros(3)


def forward(x):
    h = np.maximum(x @ W1 + b1, 0)
    z = h @ W2 + b2
    p = np.exp(z - z.max(1, keepdims=True))
    return h, p / p.sum(1, keepdims=True)


def loss(x, t):
    return float(-np.log(forward(x)[1][np.arange(len(t)), t] + 1e-12).mean())


out = Path("runs") / args.name
out.mkdir(parents=True, exist_ok=True)
best = np.inf
with open(out / "metrics.csv", "w") as log:
    log.write("epoch,train_loss,val_loss\\n")
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(Xtr))
        for i in range(0, len(order), 64):
            xb, tb = Xtr[order[i:i + 64]], ytr[order[i:i + 64]]
            h, p = forward(xb)
            p[np.arange(len(tb)), tb] -= 1
            g = p / len(tb)
            dh = (g @ W2.T) * (h > 0)
            W2 -= 0.1 * h.T @ g
            b2 -= 0.1 * g.sum(0)
            W1 -= 0.1 * xb.T @ dh
            b1 -= 0.1 * dh.sum(0)
        tr, va = loss(Xtr, ytr), loss(Xva, yva)
        log.write(f"{epoch},{tr:.5f},{va:.5f}\\n")
        weights = dict(W1=W1, b1=b1, W2=W2, b2=b2)
        np.savez(out / f"model_epoch{epoch}.npz", **weights)
        if va < best:
            best = va
            np.savez(out / "model_best.npz", epoch=epoch, **weights)
        print(f"epoch {epoch} train {tr:.4f} val {va:.4f}")
'''


def _toy_data(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = rng.normal(0, 1.0, size=(3, 32))
    labels = rng.integers(0, 3, size=4000)
    features = centers[labels] + rng.normal(0, 1.8, size=(4000, 32))
    path.parent.mkdir(parents=True)
    np.savez(path, features=features, labels=labels)


def run(work: Path) -> list[dict[str, object]]:
    _toy_data(Path("data/train.npz"))
    Path("train.py").write_text(TRAIN)
    fil = str(Path(sys.executable).with_name("fil-profile"))
    for argv in (["--no-browser", "run", "train.py", "--name", "h64"],
                 ["--no-browser", "-o", "profiles/h256", "run", "train.py", "--name", "h256",
                  "--hidden", "256"]):
        done = subprocess.run([fil, *argv], capture_output=True, text=True, check=True)
        sys.stderr.write(done.stdout + done.stderr)
    # Fil reports peak memory only (its flamegraphs and .prof) and names no checkpoint; the
    # model_*.npz files are the user's script's own, so no run is listed (as for memray).
    return []


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith(".npz"):
        return "checkpoint"
    if path == "train.py":
        return "other"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "filprofiler", tool="Fil",
           kind="memory profiler (Python)",
           command="fil-profile --no-browser run train.py --name h64; fil-profile "
                   "--no-browser -o profiles/h256 run train.py --name h256 --hidden 256")
