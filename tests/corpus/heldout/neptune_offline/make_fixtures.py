"""Neptune (neptune client 1.x) in offline mode: a toy PyTorch run logging parameters,
metrics per step and its saved model file, with no server (what waits for ``neptune
sync``).

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 neptune
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/neptune_offline/make_fixtures.py

``neptune.init_run(mode="offline")`` keeps the run under ``.neptune/`` in the working
folder: its queued operations, metadata and the uploaded file, until ``neptune sync``. The
model the script saves itself is ``outputs/model.pt``, also uploaded to
``run["model/weights"]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402
from toys import TORCH_REGRESSION_PARAMS, torch_regression  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import neptune
    import torch
    from neptune.types import GitRef

    # git_ref disabled: this script lives in mlspace's repository, whose state is not the
    # toy run's (Neptune would upload its diff).
    run = neptune.init_run(mode="offline", project="toy/regression",
                           source_files=[], capture_hardware_metrics=False,
                           capture_stdout=False, capture_stderr=False,
                           git_ref=GitRef.DISABLED)
    run["parameters"] = TORCH_REGRESSION_PARAMS
    model = torch_regression(100, lambda step, loss, _: run["train/loss"].append(loss))
    Path("outputs").mkdir()
    torch.save(model.state_dict(), "outputs/model.pt")
    run["model/weights"].upload("outputs/model.pt")
    run.stop()
    return [{"run": "outputs", "best": None, "latest": "outputs/model.pt",
             "evidence": "the model saved after the last step, uploaded to model/weights"}]


def label(path: str) -> str:
    if path.startswith("outputs/"):
        return "checkpoint"
    # Everything under .neptune/ is the run's queued records, waiting for `neptune sync`
    # (log; a copy of an uploaded file in it is there to be synced, not loaded).
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "neptune", tool="Neptune (offline)",
           kind="experiment tracker, offline",
           command="neptune.init_run(mode='offline'): parameters, train/loss x100, "
                   "model/weights upload; stop()")
