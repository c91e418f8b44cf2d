"""pyinstrument: the statistical CPU profile of a small NumPy training script, saved in its
HTML, session and text renderers, as its docs run it from the command line.

    /work/venvs/tools-corpus/bin/pip install pyinstrument numpy
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/pyinstrument/make_fixtures.py

``pyinstrument -r html -o profile.html train.py``, ``-r session -o train.pyisession`` (a
session a later ``pyinstrument --load`` reopens) and ``-r text -o profile.txt``. The
script is the user's code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402
from toys import numpy_loop_script  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    (work / "train.py").write_text(numpy_loop_script(200))
    for renderer, out in (("html", "profile.html"), ("session", "train.pyisession"),
                          ("text", "profile.txt")):
        subprocess.run([sys.executable, "-m", "pyinstrument", "-r", renderer, "-o", out,
                        "train.py"], check=True)
    return []


def label(path: str) -> str:
    return "other" if path == "train.py" else "debug"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pyinstrument", tool="pyinstrument",
           kind="profiler", command="pyinstrument -r html|session|text -o <file> train.py")
