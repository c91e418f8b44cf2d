"""yappi: a profile of a small NumPy training script (a softmax regression, a few epochs
of minibatch gradient steps), saved as a pstats file and as a callgrind file, as yappi's
docs show, with a text dump of the function and thread statistics beside them.

    /work/venvs/tools-b/bin/pip install yappi numpy
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/yappi/make_fixtures.py

``train.py`` (the user's code) starts yappi with the CPU clock, trains, then
``yappi.get_func_stats().save("profiles/train.pstat", type="pstat")`` (readable by the
standard ``pstats`` module and snakeviz), ``save("profiles/callgrind.out.train",
type="callgrind")`` (for KCachegrind) and ``print_all`` of the function and thread stats
into ``profiles/yappi_stats.txt``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCRIPT = '''"""Softmax regression on a toy table, profiled with yappi."""
import os

import numpy as np
import yappi


def batches(x, y, size, rng):
    order = rng.permutation(len(x))
    for i in range(0, len(x), size):
        yield x[order[i:i + size]], y[order[i:i + size]]


def step(w, x, y, lr):
    logits = x @ w
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1.0
    return w - lr * x.T @ p / len(y)


def accuracy(w, x, y):
    return float(((x @ w).argmax(axis=1) == y).mean())


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 32))
    y = (x[:, :4] @ rng.normal(size=(4, 5))).argmax(axis=1)
    w = np.zeros((32, 5))
    for epoch in range(5):
        for xb, yb in batches(x, y, 64, rng):
            w = step(w, xb, yb, 0.5)
        print(f"epoch {epoch}: accuracy {accuracy(w, x, y):.3f}")


if __name__ == "__main__":
    yappi.set_clock_type("cpu")
    yappi.start()
    main()
    yappi.stop()
    os.makedirs("profiles", exist_ok=True)
    stats = yappi.get_func_stats()
    stats.save("profiles/train.pstat", type="pstat")
    stats.save("profiles/callgrind.out.train", type="callgrind")
    with open("profiles/yappi_stats.txt", "w") as out:
        stats.print_all(out=out)
        yappi.get_thread_stats().print_all(out=out)
'''


def run(work: Path) -> list[dict[str, object]]:
    (work / "train.py").write_text(SCRIPT)
    subprocess.run([sys.executable, "train.py"], check=True)
    return []


def label(path: str) -> str:
    return "other" if path == "train.py" else "debug"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "yappi", tool="yappi",
           kind="profiler",
           command="python train.py (yappi.start(); ...; get_func_stats().save("
                   "'profiles/train.pstat', type='pstat') and save('profiles/callgrind.out."
                   "train', type='callgrind'); print_all into profiles/yappi_stats.txt)")
