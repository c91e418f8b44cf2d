"""Comet (comet_ml) in offline mode: a toy PyTorch run logging parameters, metrics per
step and its saved model, with no server (what a cluster node without network keeps until
``comet upload``).

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 comet_ml
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/comet_offline/make_fixtures.py

``OfflineExperiment(offline_directory="comet-offline")`` writes, when it ends, one archive
``comet-offline/<experiment key>.zip`` holding the queued messages, metadata and the
uploaded files, waiting for ``comet upload``. The model the script saves itself,
``checkpoints/model_final.pt``, is also logged into the run with ``log_model``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402
from toys import TORCH_REGRESSION_PARAMS, torch_regression  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    os.environ["COMET_DISABLE_AUTO_LOGGING"] = "1"
    import comet_ml
    import torch

    experiment = comet_ml.OfflineExperiment(project_name="toy-regression",
                                            offline_directory="comet-offline",
                                            log_code=False, log_env_details=False,
                                            log_git_metadata=False, log_git_patch=False,
                                            display_summary_level=0)
    experiment.log_parameters(TORCH_REGRESSION_PARAMS)
    model = torch_regression(100, lambda step, loss, _: experiment.log_metric("loss", loss,
                                                                             step=step))
    Path("checkpoints").mkdir()
    torch.save(model.state_dict(), "checkpoints/model_final.pt")
    experiment.log_model("toy-regression", "checkpoints/model_final.pt")
    experiment.end()
    return [{"run": "checkpoints", "best": None, "latest": "checkpoints/model_final.pt",
             "evidence": "the model saved after the last step, logged with log_model"}]


def label(path: str) -> str:
    if path.startswith("checkpoints/"):
        return "checkpoint"
    # The archive is the run's records queued for upload (log): judgment call, it also
    # holds a copy of the model file, but it exists to be synced, not to be loaded.
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "comet_ml", tool="Comet (offline)",
           kind="experiment tracker, offline",
           command="OfflineExperiment(offline_directory='comet-offline'): log_parameters, "
                   "log_metric x100, log_model; end()")
