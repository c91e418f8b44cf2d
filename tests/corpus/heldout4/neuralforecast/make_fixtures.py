"""NeuralForecast (Nixtla): NHITS and an MLP forecasting 12 months ahead on a toy panel of
three monthly series (the user's CSV), CPU, with Lightning checkpointing switched on as
NeuralForecast's docs say, then ``nf.save`` of the fitted models and dataset.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 neuralforecast
    /work/venvs/tools-a/bin/python tests/corpus/heldout4/neuralforecast/make_fixtures.py

``NeuralForecast(models=[NHITS(...), MLP(...)], freq="MS").fit(df, val_size=24)``; each model
takes Lightning trainer arguments: NHITS gets ``enable_checkpointing=True`` and a
``ModelCheckpoint(monitor="ptl/val_loss", save_top_k=1, save_last=True,
filename="nhits-{step}-{ptl/val_loss:.4f}")``, the MLP only ``enable_checkpointing=True``
(Lightning's default checkpoint: the last step). Both log to Lightning's default
``lightning_logs/version_<N>/`` (TensorBoard events, ``hparams.yaml``) with their checkpoints
under ``checkpoints/``. Then ``nf.save("models/nf_sales", save_dataset=True, overwrite=True)``
writes ``NHITS_0.safetensors``, ``MLP_0.safetensors``, ``dataset.safetensors``,
``dataset.json`` and ``configuration.json``/``.safetensors``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def _toy_panel(path: Path) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    months = pd.date_range("2006-01-01", periods=180, freq="MS")
    frames = []
    for k, store in enumerate(("north", "south", "east")):
        t = np.arange(len(months))
        y = (100 + 20 * k + 0.4 * t + 12 * np.sin(2 * np.pi * t / 12 + k)
             + rng.normal(0, 3, len(t)))
        frames.append(pd.DataFrame({"unique_id": store, "ds": months, "y": y.round(2)}))
    path.parent.mkdir(parents=True)
    pd.concat(frames).to_csv(path, index=False)


def run(work: Path) -> list[dict[str, object]]:
    import pandas as pd
    from neuralforecast import NeuralForecast
    from neuralforecast.models import MLP, NHITS
    from pytorch_lightning.callbacks import ModelCheckpoint

    _toy_panel(Path("data/sales.csv"))
    df = pd.read_csv("data/sales.csv", parse_dates=["ds"])
    best = ModelCheckpoint(monitor="ptl/val_loss", mode="min", save_top_k=1, save_last=True,
                           filename="nhits-{step}-{ptl/val_loss:.4f}",
                           auto_insert_metric_name=False)
    nhits = NHITS(h=12, input_size=24, mlp_units=[[64, 64]] * 3, max_steps=300, val_check_steps=25,
                  early_stop_patience_steps=6, random_seed=0, accelerator="cpu",
                  enable_checkpointing=True, callbacks=[best], enable_progress_bar=False)
    mlp = MLP(h=12, input_size=24, hidden_size=64, num_layers=2, max_steps=200,
              val_check_steps=50, random_seed=0, accelerator="cpu", enable_checkpointing=True,
              enable_progress_bar=False)
    nf = NeuralForecast(models=[nhits, mlp], freq="MS")
    nf.fit(df, val_size=24)
    nf.save("models/nf_sales", save_dataset=True, overwrite=True)

    def rel(path: str) -> str:
        return Path(path).resolve().relative_to(work.resolve()).as_posix()

    best = next(cb for cb in nf.models[0].trainer_kwargs["callbacks"]  # the fitted
                if isinstance(cb, ModelCheckpoint))  # model's own callback, not a copy
    nhits_dir, mlp_dir = (f"lightning_logs/version_{n}" for n in (0, 1))  # in fit order
    mlp_ckpts = sorted(Path(mlp_dir, "checkpoints").iterdir())
    saved = [f"models/nf_sales/{name}" for name in (
        "NHITS_0.safetensors", "MLP_0.safetensors", "configuration.json",
        "configuration.safetensors", "dataset.json", "dataset.safetensors")
        if Path("models/nf_sales", name).exists()]
    return [
        {"run": nhits_dir, "best": rel(best.best_model_path), "latest": rel(best.last_model_path),
         "evidence": f"NHITS's ModelCheckpoint: best_model_path {rel(best.best_model_path)} "
                     f"(best_model_score {float(best.best_model_score):.4f}), last_model_path "
                     f"{rel(best.last_model_path)}"},
        {"run": mlp_dir, "best": None, "latest": rel(str(mlp_ckpts[-1])),
         "evidence": f"the MLP had Lightning's default ModelCheckpoint (no monitor, the last "
                     f"step only): {mlp_ckpts[-1].name}, its only checkpoint"},
        {"run": "models/nf_sales", "best": None, "latest": saved,
         "evidence": "nf.save('models/nf_sales') after fit: the fitted NHITS and MLP as they "
                     "ended (NeuralForecast restores no best), with its configuration and "
                     "dataset, which NeuralForecast.load reads together"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith((".ckpt", ".safetensors")) or path.startswith("models/"):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "neuralforecast", tool="NeuralForecast",
           kind="time series forecasting (PyTorch Lightning)",
           command="NeuralForecast(models=[NHITS(h=12, mlp_units=[[64, 64]] * 3, max_steps=300, "
                   "enable_checkpointing=True, callbacks=[ModelCheckpoint(monitor="
                   "'ptl/val_loss', save_top_k=1, save_last=True)]), MLP(h=12, hidden_size=64, "
                   "num_layers=2, max_steps=200, enable_checkpointing=True)], freq='MS')"
                   ".fit(df, val_size=24); nf.save('models/nf_sales', save_dataset=True)")
