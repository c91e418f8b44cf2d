"""pytest-benchmark: the user's small feature-engineering package (``src/featlib/``) has
benchmark tests (``tests/test_bench_features.py``, the ``benchmark`` fixture); they are run
twice with ``--benchmark-autosave`` (pytest-benchmark's documented way to keep results, in
``.benchmarks/``), the second time after an optimisation, comparing against the first run
with ``--benchmark-compare``, as a user tracking a speed-up would.

    python3.11 -m venv /tmp/h8/pytest-benchmark/venv
    /tmp/h8/pytest-benchmark/venv/bin/pip install pytest-benchmark numpy
    /tmp/h8/pytest-benchmark/venv/bin/python \\
        tests/corpus/heldout8/pytest-benchmark/make_fixtures.py

``pytest --benchmark-autosave --benchmark-max-time=0.05``; then ``rolling_mean`` is
rewritten with a cumulative sum and ``pytest --benchmark-autosave --benchmark-compare
--benchmark-max-time=0.05``. The project is not a git repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FEATURES_V1 = '''"""Feature engineering helpers."""
import numpy as np


def rolling_mean(x, window):
    return np.array([x[i:i + window].mean() for i in range(len(x) - window + 1)])


def zscore(x):
    return (x - x.mean()) / x.std()


def lag_matrix(x, lags):
    return np.stack([np.roll(x, k) for k in range(1, lags + 1)], axis=1)[lags:]
'''

FEATURES_V2 = FEATURES_V1.replace(
    "    return np.array([x[i:i + window].mean() for i in range(len(x) - window + 1)])",
    "    c = np.cumsum(np.insert(x, 0, 0.0))\n    return (c[window:] - c[:-window]) / window")

TESTS = '''import numpy as np
import pytest

from featlib.features import lag_matrix, rolling_mean, zscore

SERIES = np.random.default_rng(0).normal(size=2_000)


def test_rolling_mean(benchmark):
    out = benchmark(rolling_mean, SERIES, 20)
    assert out.shape == (1_981,)


def test_zscore(benchmark):
    out = benchmark(zscore, SERIES)
    assert abs(out.mean()) < 1e-9


@pytest.mark.parametrize("lags", [3, 12])
def test_lag_matrix(benchmark, lags):
    out = benchmark(lag_matrix, SERIES, lags)
    assert out.shape == (2_000 - lags, lags)
'''

PYPROJECT = '''[project]
name = "featlib"
version = "0.1.0"
dependencies = ["numpy"]

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]
'''


def _pytest(*args: str) -> str:
    # a user's shell does not set PYTHONDONTWRITEBYTECODE: let pytest write its bytecode
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--benchmark-autosave",
                           "--benchmark-max-time=0.05", *args], capture_output=True,
                          text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    return done.stdout + done.stderr


def run(work: Path) -> list[dict[str, object]]:
    Path("src/featlib").mkdir(parents=True)
    Path("src/featlib/__init__.py").write_text('"""featlib: time-series features."""\n')
    Path("src/featlib/features.py").write_text(FEATURES_V1)
    Path("tests").mkdir()
    Path("tests/test_bench_features.py").write_text(TESTS)
    Path("pyproject.toml").write_text(PYPROJECT)
    checkpoints = []
    for step, args in ((1, ()), (2, ("--benchmark-compare",))):
        if step == 2:
            Path("src/featlib/features.py").write_text(FEATURES_V2)
        out = _pytest(*args)
        assert "4 passed" in out, out
        saved = [x.split("Saved benchmark data in: ", 1)[1].strip() for x in out.splitlines()
                 if "Saved benchmark data in: " in x]
        assert len(saved) == 1 and Path(saved[0]).exists(), saved
        rel = Path(saved[0]).resolve().relative_to(work.resolve()).as_posix()
        checkpoints.append({
            "run": f"pytest --benchmark-autosave (run {step})", "best": None, "latest": None,
            "evidence": f"pytest-benchmark printed 'Saved benchmark data in: {rel}', a "
                        f"results file; benchmarks train and save no model, so there is no "
                        f"checkpoint"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith(".benchmarks/"):
        return "log"
    if path.startswith(".pytest_cache/") or "__pycache__/" in path:
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pytest-benchmark",
           tool="pytest-benchmark", kind="benchmark results of a test suite",
           command="pytest --benchmark-autosave --benchmark-max-time=0.05; (rolling_mean "
                   "rewritten) pytest --benchmark-autosave --benchmark-compare "
                   "--benchmark-max-time=0.05")
