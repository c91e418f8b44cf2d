"""DVCLive: a toy PyTorch training loop logging parameters and metrics per epoch, with its
HTML report and the trained model logged as an artifact, CPU, seconds.

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 dvclive
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/dvclive/make_fixtures.py

``Live(report="html", save_dvc_exp=False)`` writes ``dvclive/``: ``params.yaml``,
``metrics.json`` (the latest values), ``plots/metrics/<name>.tsv`` (one row per step),
and ``report.html``, and a top-level ``dvc.yaml`` naming them. With no git or DVC
repository here, ``live.log_artifact("model.pt", type="model")`` records nothing more.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402
from toys import TORCH_REGRESSION_PARAMS, torch_regression  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import torch
    from dvclive import Live

    with Live(report="html", save_dvc_exp=False) as live:
        live.log_params({**TORCH_REGRESSION_PARAMS, "epochs": 20})

        def log(step: int, loss: float, val: float) -> None:
            live.log_metric("train/loss", loss)
            live.log_metric("val/loss", val)
            live.next_step()

        model = torch_regression(20, log)
        torch.save(model.state_dict(), "model.pt")
        live.log_artifact("model.pt", type="model", name="toy-regression")
    return [{"run": "dvclive", "best": None, "latest": "model.pt",
             "evidence": "saved after the last epoch (and passed to log_artifact)"}]


def label(path: str) -> str:
    if path == "model.pt":
        return "checkpoint"
    # dvc.yaml is DVC's project file, committed like code (as in the in-sample DVC layout).
    return "other" if path == "dvc.yaml" else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "dvclive", tool="DVCLive",
           kind="experiment tracker, offline",
           command="Live(report='html', save_dvc_exp=False): log_params, log_metric x2 per "
                   "epoch x20, log_artifact('model.pt', type='model')")
