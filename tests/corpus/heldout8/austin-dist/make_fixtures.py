"""austin-dist: the Austin frame stack sampler (the ``austin`` binary shipped in the wheel)
profiles the user's tiny NumPy training script ``train.py``, as its README shows: once in
wall-time mode at a 2 ms interval to Austin's collapsed-stack text format (``-o
profiles/train_wall.austin``), once with the full metrics (time and memory, ``-f``) in the
binary MOJO format (``-b -o profiles/train_full.mojo``). The script trains a small MLP on
the user's ``data/digits.csv``, saves a checkpoint every epoch and the best one, and logs
its metrics to ``logs/train.csv``.

    python3.11 -m venv /tmp/h8/austin-dist/venv
    /tmp/h8/austin-dist/venv/bin/pip install --only-binary=:all: austin-dist==3.7.0 numpy
    /tmp/h8/austin-dist/venv/bin/python tests/corpus/heldout8/austin-dist/make_fixtures.py

(austin-dist 4.0.0's binary needs GLIBC 2.38, newer than this machine's 2.36; 3.7.0 is the
last release that runs here.) ``austin -i 2ms -o profiles/train_wall.austin python train.py
--run wall`` then ``austin -f -b -i 2ms -o profiles/train_full.mojo python train.py --run
full``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train a small MLP on the digits table: python train.py --run NAME"""
import argparse
import csv
from pathlib import Path

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--run", required=True)
parser.add_argument("--epochs", type=int, default=8)
args = parser.parse_args()

table = np.loadtxt("data/digits.csv", delimiter=",", skiprows=1)
X, y = table[:, :-1] / 16.0, table[:, -1].astype(int)
X_tr, y_tr, X_va, y_va = X[:400], y[:400], X[400:], y[400:]
rng = np.random.default_rng(0)
W1, b1 = rng.normal(0, 0.1, (X.shape[1], 64)), np.zeros(64)
W2, b2 = rng.normal(0, 0.1, (64, 10)), np.zeros(10)


def forward(X):
    h = np.maximum(X @ W1 + b1, 0)
    z = h @ W2 + b2
    p = np.exp(z - z.max(1, keepdims=True))
    return h, p / p.sum(1, keepdims=True)


out = Path("checkpoints") / args.run
out.mkdir(parents=True, exist_ok=True)
Path("logs").mkdir(exist_ok=True)
best = 0.0
with open(f"logs/train_{args.run}.csv", "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["epoch", "loss", "val_acc"])
    for epoch in range(1, args.epochs + 1):
        for i in rng.permutation(len(X_tr) // 20):
            xb, yb = X_tr[i * 20:(i + 1) * 20], y_tr[i * 20:(i + 1) * 20]
            h, p = forward(xb)
            g = p.copy()
            g[np.arange(len(yb)), yb] -= 1
            g /= len(yb)
            gh = (g @ W2.T) * (h > 0)
            W2 -= 0.5 * h.T @ g
            b2 -= 0.5 * g.sum(0)
            W1 -= 0.5 * xb.T @ gh
            b1 -= 0.5 * gh.sum(0)
        _, p = forward(X_tr)
        loss = -np.log(p[np.arange(len(y_tr)), y_tr] + 1e-9).mean()
        acc = (forward(X_va)[1].argmax(1) == y_va).mean()
        log.writerow([epoch, f"{loss:.4f}", f"{acc:.4f}"])
        np.savez(out / f"epoch_{epoch:02d}.npz", W1=W1, b1=b1, W2=W2, b2=b2)
        if acc > best:
            best = acc
            np.savez(out / "best.npz", W1=W1, b1=b1, W2=W2, b2=b2, epoch=epoch)
            print(f"epoch {epoch}: new best val_acc {acc:.4f} -> {out / 'best.npz'}")
print(f"last checkpoint {out / f'epoch_{args.epochs:02d}.npz'}")
'''


def _digits(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    prototypes = rng.integers(4, 13, (10, 64))
    labels = rng.integers(0, 10, 500)
    pixels = np.clip(prototypes[labels] + rng.integers(-11, 12, (500, 64)), 0, 16)
    path.parent.mkdir(parents=True)
    header = ",".join([f"px{i}" for i in range(64)] + ["digit"])
    rows = [",".join(map(str, row)) + f",{c}" for row, c in zip(pixels, labels, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _digits(Path("data/digits.csv"))
    Path("train.py").write_text(TRAIN)
    Path("profiles").mkdir()
    austin = str(Path(sys.executable).with_name("austin"))
    checkpoints = []
    for name, flags, out in (("wall", [], "profiles/train_wall.austin"),
                             ("full", ["-f", "-b"], "profiles/train_full.mojo")):
        done = subprocess.run([austin, *flags, "-i", "2ms", "-o", out, sys.executable,
                               "train.py", "--run", name], capture_output=True, text=True,
                              check=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert Path(out).stat().st_size > 0, out
        lines = done.stdout.strip().splitlines()
        best = [line for line in lines if "new best" in line][-1].rsplit(" -> ", 1)[1]
        latest = lines[-1].removeprefix("last checkpoint ")
        assert Path(best).is_file() and Path(latest).is_file(), (best, latest)
        checkpoints.append({
            "run": f"austin {' '.join(flags + ['-i', '2ms', '-o', out])} python train.py "
                   f"--run {name}",
            "best": best, "latest": latest,
            "evidence": f"Austin, a profiler, has no notion of a checkpoint; the profiled "
                        f"train.py printed '{[ln for ln in lines if 'new best' in ln][-1]}' "
                        f"(its last new best) and '{lines[-1]}'"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("profiles/"):
        return "debug"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "austin-dist", tool="austin-dist",
           kind="frame stack sampling profiler (collapsed-stack text and MOJO profiles)",
           command="austin -i 2ms -o profiles/train_wall.austin python train.py --run wall; "
                   "austin -f -b -i 2ms -o profiles/train_full.mojo python train.py --run full "
                   "(train.py: NumPy MLP, checkpoints/<run>/epoch_NN.npz and best.npz, "
                   "logs/train_<run>.csv)")
