"""memray: the memory profile of a small NumPy training loop, and its flame graph and
table reports, with memray's default output names.

    /work/venvs/tools-corpus/bin/pip install memray numpy
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/memray/make_fixtures.py

``memray run train.py`` writes ``memray-train.py.<pid>.bin`` (its capture file, beginning
with the ``MEMRAY`` magic); ``memray flamegraph`` and ``memray table`` write
``memray-flamegraph-train.py.<pid>.html`` and ``memray-table-train.py.<pid>.html``. The
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
    (work / "train.py").write_text(numpy_loop_script(50))
    memray = [sys.executable, "-m", "memray"]
    subprocess.run([*memray, "run", "train.py"], check=True)
    (capture,) = work.glob("memray-train.py.*.bin")
    for report in ("flamegraph", "table"):
        subprocess.run([*memray, report, capture.name], check=True)
    return []


def label(path: str) -> str:
    return "other" if path == "train.py" else "debug"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "memray", tool="memray",
           kind="profiler", command="memray run train.py; memray flamegraph <bin>; "
                                    "memray table <bin>")
