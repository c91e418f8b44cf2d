"""ClearML in offline mode: a toy training task reporting scalars with no server, run with
the workspace as the home folder (ClearML keeps offline sessions under ``~/.clearml``).

    /work/venvs/tools-corpus/bin/pip install clearml
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/clearml_offline/make_fixtures.py

``Task.set_offline(True)`` then ``Task.init(project_name="toy", task_name="regression")``
and ``task.close()`` write ``~/.clearml/cache/offline/offline-<task id>/`` (``task.json``,
``metrics.jsonl``, ``log.jsonl``) and the same zipped beside it, waiting for
``clearml-task --import-offline-session`` (``Task.import_offline_session``); the client
keeps its ``~/.clearml/.session.json``. matplotlib, imported by ClearML, leaves its font
cache in ``~/.cache/matplotlib``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCRIPT = """from clearml import Task

Task.set_offline(offline_mode=True)
task = Task.init(project_name="toy", task_name="regression", auto_connect_frameworks=False,
                 auto_resource_monitoring=False)
logger = task.get_logger()
for i in range(50):
    logger.report_scalar("loss", "train", value=1.0 / (i + 1), iteration=i)
task.close()
"""


def run(work: Path) -> list[dict[str, object]]:
    script = work.parent / "train_clearml.py"  # outside the captured home
    script.write_text(SCRIPT)
    subprocess.run([sys.executable, str(script)], check=True, env={**os.environ,
                                                                   "HOME": str(work)})
    return []


def label(path: str) -> str:
    if path.startswith(".clearml/cache/offline/"):
        return "log"  # the task's records (and their zip), waiting to be imported
    return "cache"  # the client's session state, matplotlib's font cache


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "clearml", tool="ClearML (offline)",
           kind="experiment tracker, offline",
           command="Task.set_offline(True); Task.init(project_name='toy', task_name="
                   "'regression'); report_scalar x50; task.close()  (HOME = the workspace)")
