"""joblib: the user's ``train.py`` caches its feature extraction and its model fit with
``joblib.Memory(location="cache")`` (joblib's documented memoization, the cache inside the
project), and saves the final model with ``joblib.dump``; it is run twice, with two values of
the regularisation argument, as a user sweeping it would.

    python3.11 -m venv /tmp/h5/joblib/venv
    /tmp/h5/joblib/venv/bin/pip install joblib numpy scikit-learn
    /tmp/h5/joblib/venv/bin/python tests/corpus/heldout5/joblib/make_fixtures.py

``python train.py 0.1`` then ``python train.py 1.0``: ``extract_features`` (FFT band powers
and statistics of each row of the user's ``data/signals.csv``) is computed in the first run
and loaded from the cache in the second; ``fit_model(X, y, C)`` (a scikit-learn
``LogisticRegression``) is computed once per ``C``. Each run ``joblib.dump``s its fitted
model to ``models/logreg_C<C>.joblib`` (compress=3).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train a signal classifier: python train.py C"""
import sys

import joblib
import numpy as np
from joblib import Memory
from sklearn.linear_model import LogisticRegression

memory = Memory(location="cache", verbose=1)


@memory.cache
def extract_features(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    signals, labels = table[:, :-1], table[:, -1].astype(int)
    spectrum = np.abs(np.fft.rfft(signals, axis=1)) ** 2
    bands = np.stack([band.sum(axis=1) for band in np.array_split(spectrum, 8, axis=1)], 1)
    stats = np.stack([signals.mean(1), signals.std(1), np.abs(np.diff(signals)).mean(1)], 1)
    return np.log1p(np.hstack([bands, stats])), labels


@memory.cache
def fit_model(X, y, C):
    return LogisticRegression(C=C, max_iter=500).fit(X, y)


if __name__ == "__main__":
    C = float(sys.argv[1])
    X, y = extract_features("data/signals.csv")
    model = fit_model(X[:480], y[:480], C)
    print(f"C={C} validation accuracy {model.score(X[480:], y[480:]):.3f}")
    written = joblib.dump(model, f"models/logreg_C{C}.joblib", compress=3)
    print("saved", written)
'''


def _signals(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    t = np.arange(64) / 64
    labels = rng.integers(0, 3, size=600)
    freq = np.array([3.0, 7.0, 13.0])[labels] + rng.normal(0, 0.5, size=600)
    signals = np.sin(2 * np.pi * freq[:, None] * t) + rng.normal(0, 0.6, size=(600, 64))
    path.parent.mkdir(parents=True)
    header = ",".join([f"t{i}" for i in range(64)] + ["label"])
    rows = [",".join(f"{v:.4f}" for v in s) + f",{c}" for s, c in zip(signals, labels, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _signals(Path("data/signals.csv"))
    Path("train.py").write_text(TRAIN)
    Path("models").mkdir()
    checkpoints = []
    for C in ("0.1", "1.0"):
        done = subprocess.run([sys.executable, "train.py", C], capture_output=True, text=True,
                              check=True)
        sys.stderr.write(done.stdout + done.stderr)
        saved = done.stdout.strip().splitlines()[-1]
        path = f"models/logreg_C{C}.joblib"
        assert saved == f"saved {[path]}", saved
        checkpoints.append({
            "run": f"python train.py {C}", "best": None, "latest": path,
            "evidence": f"joblib.dump returned {[path]}, the one model the run saved; "
                        f"joblib keeps no notion of best (Memory's cached fit_model output "
                        f"is a memo, not a saved checkpoint)"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("cache/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "joblib", tool="joblib",
           kind="caching and model persistence (joblib.Memory, joblib.dump)",
           command="python train.py 0.1; python train.py 1.0 (train.py: Memory(location="
                   "'cache').cache on extract_features and fit_model, joblib.dump(model, "
                   "'models/logreg_C<C>.joblib', compress=3))")
