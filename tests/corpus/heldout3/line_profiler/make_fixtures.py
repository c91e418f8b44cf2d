"""line_profiler: the line-by-line timings of a small NumPy training script's step
function, with ``kernprof -l`` as its docs run it (the function marked ``@profile``), then
the timings rendered as text by ``python -m line_profiler``.

    /work/venvs/tools-b/bin/pip install line_profiler numpy
    /work/venvs/tools-b/bin/python tests/corpus/heldout3/line_profiler/make_fixtures.py

``kernprof -l train.py`` writes ``train.py.lprof`` (the pickled ``LineStats``) beside the
script; ``python -m line_profiler -mt train.py.lprof > profile.txt`` the report. The script
is the user's code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCRIPT = """import numpy as np


@profile
def step(w, x, lr):
    logits = x @ w
    grad = x.T @ (logits - logits.mean(axis=0))
    return w - lr * grad


def main():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(256, 10))
    for _ in range(200):
        w = step(w, rng.normal(size=(2048, 256)), 1e-4)
    print("done", float(w.sum()))


if __name__ == "__main__":
    main()
"""


def run(work: Path) -> list[dict[str, object]]:
    (work / "train.py").write_text(SCRIPT)
    subprocess.run([sys.executable, "-m", "kernprof", "-l", "train.py"], check=True)
    with open("profile.txt", "w") as out:
        subprocess.run([sys.executable, "-m", "line_profiler", "-mt", "train.py.lprof"],
                       check=True, stdout=out)
    return []


def label(path: str) -> str:
    return "other" if path == "train.py" else "debug"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "line_profiler", tool="line_profiler",
           kind="profiler",
           command="kernprof -l train.py; python -m line_profiler -mt train.py.lprof "
                   "> profile.txt")
