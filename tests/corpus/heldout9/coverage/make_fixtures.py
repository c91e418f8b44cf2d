"""coverage plus pytest-profiling: the user's small ML package ``mlkit/`` (feature scaling and
a NumPy k-means) with its pytest suite ``tests/``, run once with coverage (pytest-cov's
``--cov=mlkit --cov-report=html``) and pytest-profiling's ``--profile``, as a user checking
which code the tests reach and where they spend their time.

    python3.11 -m venv /tmp/h9c/coverage/venv
    /tmp/h9c/coverage/venv/bin/pip install pytest pytest-cov coverage pytest-profiling numpy
    /tmp/h9c/coverage/venv/bin/python tests/corpus/heldout9/coverage/make_fixtures.py

``python -m pytest --cov=mlkit --cov-report=html --cov-report=term --profile`` leaves
``.coverage`` (coverage's SQLite data file), ``htmlcov/`` (the HTML report), ``prof/``
(one cProfile dump per test and ``combined.prof``), ``.pytest_cache/`` and the
``__pycache__/`` folders, with bytecode writing on as in a user's shell.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FILES = {
    "mlkit/__init__.py": '"""Tiny ML helpers."""\n',
    "mlkit/features.py": '''"""Feature scaling."""
import numpy as np


def standardize(x, eps=1e-8):
    mean, std = x.mean(axis=0), x.std(axis=0)
    return (x - mean) / (std + eps), mean, std


def minmax(x):
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (x - lo) / span
''',
    "mlkit/cluster.py": '''"""A small k-means."""
import numpy as np


def kmeans(x, k, iters=50, seed=0):
    rng = np.random.default_rng(seed)
    centers = x[rng.choice(len(x), size=k, replace=False)]
    for _ in range(iters):
        dist = ((x[:, None, :] - centers[None]) ** 2).sum(-1)
        assign = dist.argmin(1)
        new = np.stack([x[assign == j].mean(0) if (assign == j).any() else centers[j]
                        for j in range(k)])
        if np.allclose(new, centers):
            break
        centers = new
    return centers, assign


def inertia(x, centers, assign):
    return float(((x - centers[assign]) ** 2).sum())
''',
    "tests/test_features.py": '''import numpy as np

from mlkit.features import minmax, standardize


def test_standardize_zero_mean():
    x = np.loadtxt("tests/data/points.csv", delimiter=",", skiprows=1)
    z, _, _ = standardize(x)
    assert np.allclose(z.mean(0), 0, atol=1e-9)


def test_minmax_range():
    x = np.loadtxt("tests/data/points.csv", delimiter=",", skiprows=1)
    m = minmax(x)
    assert m.min() == 0 and m.max() == 1
''',
    "tests/test_cluster.py": '''import numpy as np

from mlkit.cluster import inertia, kmeans


def test_kmeans_three_blobs():
    x = np.loadtxt("tests/data/points.csv", delimiter=",", skiprows=1)
    fits = [kmeans(x, 3, seed=seed) for seed in range(5)]
    best = min(inertia(x, centers, assign) for centers, assign in fits)
    assert all(len(set(assign.tolist())) == 3 for _, assign in fits)
    assert best < len(x) * 2
''',
    "pyproject.toml": '''[project]
name = "mlkit"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = ["numpy"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
''',
}


def _points(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    labels = rng.integers(0, 3, size=150)
    points = centers[labels] + rng.normal(0, 0.6, size=(150, 2))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x,y\n" + "\n".join(f"{a:.4f},{b:.4f}" for a, b in points) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    for name, text in FILES.items():
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text)
    _points(Path("tests/data/points.csv"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--cov=mlkit",
                           "--cov-report=html", "--cov-report=term", "--profile"],
                          capture_output=True, text=True, env=env, check=True)
    sys.stderr.write(done.stdout[-4000:] + done.stderr)
    assert "3 passed" in done.stdout, done.stdout
    assert "Coverage HTML written to dir htmlcov" in done.stdout, done.stdout
    assert Path(".coverage").is_file() and Path("prof/combined.prof").is_file()
    return []


def label(path: str) -> str:
    if path.startswith("prof/"):
        return "debug"
    if path.startswith(("htmlcov/", ".pytest_cache/")) or "__pycache__/" in path:
        return "cache"
    if path == ".coverage":
        return "cache"
    if path.startswith("tests/data/"):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "coverage", tool="coverage",
           kind="test coverage and test profiling (coverage via pytest-cov, pytest-profiling)",
           command="python -m pytest --cov=mlkit --cov-report=html --cov-report=term "
                   "--profile")
