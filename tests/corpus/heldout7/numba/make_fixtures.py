"""numba: the user's ``features.py`` holds ``@njit(cache=True)`` kernels (rolling-window
features of a price series, a parallel ``prange`` z-scoring, a ``@vectorize`` ufunc) and
``train.py`` uses them to build features from its toy ``data/prices.csv`` and fits a
logistic regression with a jitted gradient-descent loop (also ``cache=True``), saving the
weights with ``np.savez``. Run twice, as a user iterating would: the first run compiles and
writes numba's on-disk cache (``__pycache__/*.nbi`` index and ``*.nbc`` data files beside
the source), the second loads from it.

    python3.11 -m venv /tmp/h7/numba/venv
    /tmp/h7/numba/venv/bin/pip install --only-binary=:all: numba scipy
    /tmp/h7/numba/venv/bin/python tests/corpus/heldout7/numba/make_fixtures.py

``python train.py`` twice (numba's default cache location: no ``NUMBA_CACHE_DIR``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FEATURES = '''"""Feature kernels, compiled by numba and cached on disk."""
import numpy as np
from numba import float64, njit, prange, vectorize


@vectorize([float64(float64)], cache=True)
def log_return_clip(r):
    return max(-0.1, min(0.1, r))


@njit(cache=True)
def rolling_features(prices, window):
    n = prices.size
    out = np.full((n, 4), np.nan)
    for i in range(window, n):
        w = prices[i - window:i]
        mean = w.mean()
        out[i, 0] = (prices[i - 1] - mean) / (w.std() + 1e-9)
        out[i, 1] = np.log(prices[i - 1] / prices[i - window])
        out[i, 2] = (w.max() - w.min()) / mean
        up = 0.0
        for j in range(1, window):
            up += max(w[j] - w[j - 1], 0.0)
        out[i, 3] = up / (np.abs(np.diff(w)).sum() + 1e-9)
    return out


@njit(parallel=True, cache=True)
def zscore_columns(X):
    Z = np.empty_like(X)
    for j in prange(X.shape[1]):
        col = X[:, j]
        Z[:, j] = (col - col.mean()) / (col.std() + 1e-9)
    return Z
'''

TRAIN = '''"""Predict next-day direction from rolling features: python train.py"""
import time

import numpy as np
from numba import njit

from features import log_return_clip, rolling_features, zscore_columns


@njit(cache=True)
def fit_logreg(X, y, lr, epochs):
    w = np.zeros(X.shape[1] + 1)
    for _ in range(epochs):
        z = X @ w[1:] + w[0]
        p = 1.0 / (1.0 + np.exp(-z))
        g = p - y
        w[0] -= lr * g.mean()
        w[1:] -= lr * (X.T @ g) / y.size
    return w


start = time.perf_counter()
prices = np.loadtxt("data/prices.csv", delimiter=",", skiprows=1, usecols=1)
returns = log_return_clip(np.diff(np.log(prices)))
feats = np.column_stack([rolling_features(prices, 20)[1:], returns])[20:-1]
X = zscore_columns(np.ascontiguousarray(feats))
y = (returns[21:] > 0).astype(np.float64)
split = int(0.8 * y.size)
w = fit_logreg(X[:split], y[:split], 0.1, 300)
acc = (((X[split:] @ w[1:] + w[0]) > 0) == (y[split:] > 0)).mean()
print(f"val accuracy {acc:.3f} in {time.perf_counter() - start:.2f}s (compile included)")
np.savez("models/direction_logreg.npz", w=w, window=20)
print("saved models/direction_logreg.npz")
'''


def _prices(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 3000
    steps = rng.normal(0.0002, 0.01, n) + 0.002 * np.sin(np.arange(n) / 15)
    prices = 100 * np.exp(np.cumsum(steps))
    path.parent.mkdir(parents=True)
    rows = [f"{i},{p:.4f}" for i, p in enumerate(prices)]
    path.write_text("day,close\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _prices(Path("data/prices.csv"))
    Path("features.py").write_text(FEATURES)
    Path("train.py").write_text(TRAIN)
    Path("models").mkdir()
    path = "models/direction_logreg.npz"
    # as a user's shell has it: Python writes its own bytecode cache too
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for _ in range(2):
        done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                              env=env, check=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert f"saved {path}" in done.stdout, done.stdout
    assert list(Path("__pycache__").glob("*.nbc")), "numba wrote no cache"
    return [{"run": "python train.py (twice, the second from numba's cache)", "best": None,
             "latest": path,
             "evidence": f"train.py printed 'saved {path}' (np.savez) in both runs, the "
                         f"second overwriting the first; numba is a compiler and names no "
                         f"checkpoint, and the script keeps no best"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("__pycache__/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "numba", tool="numba",
           kind="JIT compiler (on-disk cache of @njit(cache=True) functions)",
           command="python train.py; python train.py (features.py: @njit(cache=True), "
                   "@njit(parallel=True, cache=True), @vectorize(cache=True); train.py: "
                   "@njit(cache=True) fit_logreg, np.savez to models/direction_logreg.npz)")
