"""loguru: the user's ``train.py`` (SGD linear regression on the user's ``data/train.csv``)
logs with loguru to the console and two file sinks, as loguru's README shows them: a debug
log ``logs/train.log`` rotated by size (``rotation="8 KB"``, ``retention=3``) and a JSON
metrics log ``logs/metrics_{time}.jsonl`` rotated by time (``rotation="2 seconds"``,
``retention=3``, ``compression="gz"``, ``serialize=True``). It saves the fitted weights to
``model.npz`` at the end. Run twice, as a user re-running a script would.

    python3.11 -m venv /tmp/h9/loguru/venv
    /tmp/h9/loguru/venv/bin/pip install loguru numpy
    /tmp/h9/loguru/venv/bin/python tests/corpus/heldout9/loguru/make_fixtures.py

``python train.py`` twice (40 epochs of about 0.25 s each, about 10 s a run).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Linear regression by SGD on data/train.csv, logging with loguru: python train.py"""
import sys
import time

import numpy as np
from loguru import logger

logger.remove()
logger.add(sys.stderr, level="INFO")
logger.add("logs/train.log", level="DEBUG", rotation="8 KB", retention=3)
logger.add("logs/metrics_{time}.jsonl", level="INFO", serialize=True, rotation="2 seconds",
           retention=3, compression="gz", filter=lambda record: "metrics" in record["extra"])


def main():
    table = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    w = np.zeros(X.shape[1])
    metrics = logger.bind(metrics=True)
    logger.info("training on {} rows, {} features", *X.shape)
    for epoch in range(1, 41):
        for i, (xi, yi) in enumerate(zip(X, y)):
            err = xi @ w - yi
            w -= 0.01 * err * xi
            if i % 50 == 0:
                logger.debug("epoch {} step {} err {:.5f}", epoch, i, err)
        mse = float(np.mean((X @ w - y) ** 2))
        metrics.info("epoch {epoch} mse {mse:.6f}", epoch=epoch, mse=mse)
        time.sleep(0.25)
    np.savez("model.npz", w=w)
    logger.success("saved model.npz (mse {:.6f})", mse)


if __name__ == "__main__":
    main()
'''


def _table(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = X @ rng.normal(size=6) + rng.normal(0, 0.1, size=300)
    path.parent.mkdir(parents=True)
    header = ",".join([f"x{i}" for i in range(6)] + ["y"])
    rows = [",".join(f"{v:.4f}" for v in r) + f",{t:.4f}" for r, t in zip(X, y, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _table(Path("data/train.csv"))
    Path("train.py").write_text(TRAIN)
    checkpoints: list[dict[str, object]] = []
    for n in (1, 2):
        done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                              check=True)
        sys.stderr.write(done.stderr[-800:])
        last = done.stderr.strip().splitlines()[-1]
        assert "SUCCESS" in last and "saved model.npz" in last, last
        checkpoints.append({"run": f"python train.py (run {n} of 2)", "best": None,
                            "latest": "model.npz" if n == 2 else None})
    logged = [line for line in Path("logs/train.log").read_text().splitlines()
              if "SUCCESS" in line]
    assert len(logged) == 1 and "saved model.npz" in logged[0], logged
    checkpoints[0]["evidence"] = (
        "run 1 logged 'saved model.npz' too, but run 2 overwrote model.npz, so nothing of run "
        "1's is left to name; loguru (a logging library) has no notion of checkpoints")
    checkpoints[1]["evidence"] = (
        f"the script's own last log record, in logs/train.log: '{logged[0].split(' - ')[-1]}' "
        f"(the one model the run saved); loguru has no notion of checkpoints, best or latest")
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("logs/"):
        return "log"
    if path == "model.npz":
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "loguru", tool="loguru",
           kind="logging library (rotated, retained and compressed log files)",
           command="python train.py; python train.py (train.py: logger.add('logs/train.log', "
                   "rotation='8 KB', retention=3) and logger.add('logs/metrics_{time}.jsonl', "
                   "serialize=True, rotation='2 seconds', retention=3, compression='gz'))")
