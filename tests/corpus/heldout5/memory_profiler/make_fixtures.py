"""memory_profiler: the user's NumPy training script, its functions decorated with bare
``@profile`` as memory_profiler's docs show, run under ``mprof run`` twice (the default
``mprofile_<YYYYMMDDhhmmss>.dat`` in the project), plotted with ``mprof plot``, and once
under ``python -m memory_profiler`` with the line-by-line report redirected to a file.

    python3.11 -m venv /tmp/h5/memory_profiler/venv
    /tmp/h5/memory_profiler/venv/bin/pip install memory_profiler matplotlib numpy
    /tmp/h5/memory_profiler/venv/bin/python tests/corpus/heldout5/memory_profiler/make_fixtures.py

``train.py`` (softmax regression with a random-feature layer on the user's
``data/features.npy`` and ``data/labels.npy``) pickles ``checkpoints/<name>/epoch_<k>.pkl``
each epoch and ``checkpoints/<name>/last.pkl`` at the end, and appends to
``checkpoints/<name>/log.csv``. Commands: ``mprof run train.py --name rf512``, ``mprof run
train.py --name rf2048 --features 2048``, ``mprof plot -o memory_usage.png`` (Matplotlib
Agg), ``python -m memory_profiler train.py --name rf2048_lines --features 2048 --epochs 2 >
memory_lines.txt``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Random-feature softmax classifier: python train.py --name N [--features F]"""
import argparse
import pickle
from pathlib import Path

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--name", required=True)
p.add_argument("--features", type=int, default=512)
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--lr", type=float, default=0.5)
args = p.parse_args()


@profile  # noqa: F821 - injected by mprof run / python -m memory_profiler
def load_data():
    X = np.load("data/features.npy")
    y = np.load("data/labels.npy")
    rng = np.random.default_rng(0)
    proj = rng.normal(0, 1 / np.sqrt(X.shape[1]), (X.shape[1], args.features))
    Z = np.cos(X @ proj)
    return Z.astype(np.float32), y, proj


@profile  # noqa: F821
def train_epoch(W, Z, y, rng):
    order = rng.permutation(len(Z))
    for i in range(0, len(Z), 128):
        zb, tb = Z[order[i:i + 128]], y[order[i:i + 128]]
        s = zb @ W
        e = np.exp(s - s.max(1, keepdims=True))
        pr = e / e.sum(1, keepdims=True)
        pr[np.arange(len(tb)), tb] -= 1
        W -= args.lr * zb.T @ pr / len(tb)
    s = Z @ W
    return float((s.argmax(1) == y).mean())


@profile  # noqa: F821
def save_checkpoint(path, W, proj, epoch, accuracy):
    with open(path, "wb") as f:
        pickle.dump({"W": W, "proj": proj, "epoch": epoch, "accuracy": accuracy}, f)


Z, y, proj = load_data()
W = np.zeros((Z.shape[1], int(y.max()) + 1), dtype=np.float32)
rng = np.random.default_rng(1)
out = Path("checkpoints") / args.name
out.mkdir(parents=True, exist_ok=True)
for epoch in range(1, args.epochs + 1):
    acc = train_epoch(W, Z, y, rng)
    save_checkpoint(out / f"epoch_{epoch}.pkl", W, proj, epoch, acc)
    with open(out / "log.csv", "a") as log:
        log.write(f"{epoch},{acc:.4f}\\n")
    print(f"epoch {epoch} train accuracy {acc:.3f}")
save_checkpoint(out / "last.pkl", W, proj, args.epochs, acc)
'''


def _data() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = rng.normal(0, 1, size=(5, 40))
    labels = rng.integers(0, 5, size=12000)
    features = (centers[labels] + rng.normal(0, 1.4, size=(12000, 40))).astype(np.float32)
    Path("data").mkdir()
    np.save("data/features.npy", features)
    np.save("data/labels.npy", labels)


def _run(argv: list[str], env: dict[str, str], stdout: Path | None = None) -> None:
    if stdout is None:
        done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
        sys.stderr.write(done.stdout + done.stderr)
        return
    with open(stdout, "w") as f:
        subprocess.run(argv, stdout=f, check=True, env=env)


def run(work: Path) -> list[dict[str, object]]:
    _data()
    Path("train.py").write_text(TRAIN)
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    mprof = str(Path(sys.executable).with_name("mprof"))
    _run([mprof, "run", "train.py", "--name", "rf512"], env)
    time.sleep(1.1)  # the next mprofile_<second>.dat gets its own name
    _run([mprof, "run", "train.py", "--name", "rf2048", "--features", "2048"], env)
    _run([mprof, "plot", "-o", "memory_usage.png"], env)
    _run([sys.executable, "-m", "memory_profiler", "train.py", "--name", "rf2048_lines",
          "--features", "2048", "--epochs", "2"], env, stdout=Path("memory_lines.txt"))
    # memory_profiler records memory over time and per line; it names no checkpoint (the
    # .pkl files are the user's train.py's own), so no run is listed (as for Fil, memray).
    return []


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "log" if path.endswith(".csv") else "checkpoint"
    if path.startswith("mprofile_") or path in ("memory_usage.png", "memory_lines.txt"):
        return "debug"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "memory_profiler",
           tool="memory_profiler", kind="memory profiler (Python, mprof)",
           command="mprof run train.py --name rf512; mprof run train.py --name rf2048 "
                   "--features 2048; mprof plot -o memory_usage.png; python -m "
                   "memory_profiler train.py --name rf2048_lines --features 2048 --epochs 2 "
                   "> memory_lines.txt")
