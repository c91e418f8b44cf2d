"""Darts: an N-BEATS forecaster on a toy monthly series, CPU, 20 epochs, with Darts' own
checkpointing (``save_checkpoints=True``) and TensorBoard logging, as its user guide trains
a torch model.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 darts pytorch-lightning
    /work/venvs/tools-a/bin/python tests/corpus/heldout3/darts/make_fixtures.py

The series (a trend, a yearly season and noise, 240 months) is the user's CSV
``data/sales.csv``, read with ``TimeSeries.from_csv`` and split into training and
validation parts. ``NBEATSModel(..., model_name="nbeats_sales", save_checkpoints=True,
log_tensorboard=True, force_reset=True).fit(train, val_series=val)`` writes, in its default
``work_dir`` (the current folder's ``darts_logs/``), ``darts_logs/nbeats_sales/``:
``_model.pth.tar`` (the untrained model object, which Darts pickles because Lightning
checkpoints only the module),
``checkpoints/best-epoch=<N>-val_loss=<loss>.ckpt`` (Lightning's ModelCheckpoint on
``val_loss``, top 1), ``checkpoints/last-epoch=<N>.ckpt``, and ``logs/`` (TensorBoard events
and Lightning's ``hparams.yaml``). Then the user saves the trained model with
``model.save("nbeats_sales.pt")``, which writes ``nbeats_sales.pt`` and its Lightning
checkpoint ``nbeats_sales.pt.ckpt``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def _write_series(path: Path) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    months = pd.date_range("2005-01-01", periods=240, freq="MS")
    t = np.arange(240)
    sales = 100 + 0.5 * t + 12 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 3, 240)
    path.parent.mkdir()
    pd.DataFrame({"month": months, "sales": sales.round(2)}).to_csv(path, index=False)


def run(work: Path) -> list[dict[str, object]]:
    from darts import TimeSeries
    from darts.dataprocessing.transformers import Scaler
    from darts.models import NBEATSModel
    from pytorch_lightning.callbacks import ModelCheckpoint

    _write_series(work / "data" / "sales.csv")
    series = TimeSeries.from_csv(work / "data" / "sales.csv", time_col="month",
                                 value_cols="sales").astype("float32")
    train, val = series.split_after(0.8)
    scaler = Scaler()
    train, val = scaler.fit_transform(train), scaler.transform(val)
    model = NBEATSModel(input_chunk_length=24, output_chunk_length=6, num_stacks=2,
                        num_blocks=1, num_layers=2, layer_widths=32, n_epochs=20,
                        batch_size=32, random_state=0, model_name="nbeats_sales",
                        save_checkpoints=True, log_tensorboard=True, force_reset=True,
                        pl_trainer_kwargs={"accelerator": "cpu", "enable_progress_bar": False})
    model.fit(train, val_series=val)
    model.save("nbeats_sales.pt")
    best_cb, last_cb = (cb for cb in model.trainer.callbacks if isinstance(cb, ModelCheckpoint))
    folder = "darts_logs/nbeats_sales"

    def rel(path: str) -> str:
        return Path(path).resolve().relative_to(work.resolve()).as_posix()

    return [{"run": folder,
             "best": [rel(best_cb.best_model_path), f"{folder}/_model.pth.tar"],
             "latest": [rel(last_cb.best_model_path), f"{folder}/_model.pth.tar"],
             "evidence": f"Darts' val_loss ModelCheckpoint's best_model_path "
                         f"({Path(best_cb.best_model_path).name}, val_loss "
                         f"{float(best_cb.best_model_score):.4f}) and its last-epoch "
                         f"ModelCheckpoint's ({Path(last_cb.best_model_path).name}); "
                         f"load_from_checkpoint(best=...) loads either with _model.pth.tar"},
            {"run": ".", "best": None, "latest": ["nbeats_sales.pt", "nbeats_sales.pt.ckpt"],
             "evidence": "model.save('nbeats_sales.pt') after fit: the model object and its "
                         "Lightning checkpoint beside it"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if "/logs/" in path:
        return "log"
    return "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "darts", tool="Darts",
           kind="time series forecasting (PyTorch Lightning)",
           command="NBEATSModel(model_name='nbeats_sales', "
                   "save_checkpoints=True, log_tensorboard=True, n_epochs=20).fit(train, "
                   "val_series=val); model.save('nbeats_sales.pt')")
