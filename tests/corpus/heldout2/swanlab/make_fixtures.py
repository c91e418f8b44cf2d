"""SwanLab offline: an experiment tracker's local run of a small PyTorch regression, with
``mode="offline"`` as its docs run it without a server (``swanlab sync`` uploads it later).

    /work/venvs/tools/bin/pip install torch==2.13.0 swanlab
    /work/venvs/tools/bin/python tests/corpus/heldout2/swanlab/make_fixtures.py

``swanlab.init(project="regression", config=..., mode="offline", logdir="swanlog")``, then
``swanlab.log({"train/loss": ..., "val/loss": ...}, step=...)`` per step and
``swanlab.finish()``. The run folder under ``swanlog/`` is the tracker's record. The user
saves the trained model with ``torch.save`` into ``model.pt``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402
from toys import TORCH_REGRESSION_PARAMS, torch_regression  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import swanlab
    import torch

    swanlab.init(project="regression", experiment_name="mlp", config=TORCH_REGRESSION_PARAMS,
                 mode="offline", logdir="swanlog")

    def on_step(step: int, train: float, val: float) -> None:
        swanlab.log({"train/loss": train, "val/loss": val}, step=step)

    model = torch_regression(60, on_step)
    swanlab.finish()
    torch.save(model.state_dict(), "model.pt")
    return [{"run": ".", "best": None, "latest": "model.pt",
             "evidence": "the one model the script saved after training"}]


def label(path: str) -> str:
    if path in ("model.pt",):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "swanlab", tool="SwanLab (offline)",
           kind="experiment tracker",
           command="swanlab.init(project='regression', mode='offline', logdir='swanlog'); "
                   "swanlab.log per step; swanlab.finish()")
