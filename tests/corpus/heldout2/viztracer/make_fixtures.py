"""VizTracer: a tracing profiler's record of a small NumPy training script, saved as its
docs run it from the command line: the default ``result.json`` (Chrome trace events) and an
HTML report.

    /work/venvs/tools/bin/pip install viztracer numpy
    /work/venvs/tools/bin/python tests/corpus/heldout2/viztracer/make_fixtures.py

``viztracer train.py`` writes ``result.json``; ``viztracer -o report.html train.py`` the
self-contained viewer page. The script is the user's code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402
from toys import numpy_loop_script  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    (work / "train.py").write_text(numpy_loop_script(50))
    subprocess.run([sys.executable, "-m", "viztracer", "train.py"], check=True)
    subprocess.run([sys.executable, "-m", "viztracer", "-o", "report.html", "train.py"],
                   check=True)
    return []


def label(path: str) -> str:
    return "other" if path == "train.py" else "debug"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "viztracer", tool="VizTracer",
           kind="profiler (tracer)",
           command="viztracer train.py; viztracer -o report.html train.py")
