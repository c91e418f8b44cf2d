"""pytorch-forecasting: the user's ``train.py`` follows the library's Temporal Fusion
Transformer tutorial on its own toy sales CSV: a ``TimeSeriesDataSet`` (encoder 24 steps,
prediction 6, ``GroupNormalizer`` per store), ``TemporalFusionTransformer.from_dataset``
(a tiny one: hidden size 8), a Lightning ``Trainer`` with ``EarlyStopping``,
``LearningRateMonitor``, a ``ModelCheckpoint(monitor="val_loss", save_last=True)`` and
``TensorBoardLogger("lightning_logs")``; after fitting it reloads
``trainer.checkpoint_callback.best_model_path`` and saves the validation predictions.

    python3.11 -m venv /tmp/h7/pytorch-forecasting/venv
    /tmp/h7/pytorch-forecasting/venv/bin/pip install torch==2.13.0 pytorch-forecasting \
        tensorboard
    /tmp/h7/pytorch-forecasting/venv/bin/python \
        tests/corpus/heldout7/pytorch-forecasting/make_fixtures.py

``python train.py``: at most 6 epochs of 10 batches on CPU.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Forecast weekly store sales with a Temporal Fusion Transformer: python train.py"""
import json

import lightning.pytorch as pl
import pandas as pd
from lightning.pytorch.callbacks import EarlyStopping, LearningRateMonitor, ModelCheckpoint
from lightning.pytorch.loggers import TensorBoardLogger
from pytorch_forecasting import TemporalFusionTransformer, TimeSeriesDataSet
from pytorch_forecasting.data import GroupNormalizer
from pytorch_forecasting.metrics import QuantileLoss

pl.seed_everything(0)
data = pd.read_csv("data/store_sales.csv")
data["store"] = data["store"].astype(str)
data["month"] = data["month"].astype(str)
cutoff = data["time_idx"].max() - 6

training = TimeSeriesDataSet(
    data[data.time_idx <= cutoff], time_idx="time_idx", target="sales", group_ids=["store"],
    max_encoder_length=24, max_prediction_length=6, static_categoricals=["store"],
    time_varying_known_categoricals=["month"], time_varying_known_reals=["time_idx", "promo"],
    time_varying_unknown_reals=["sales"],
    target_normalizer=GroupNormalizer(groups=["store"], transformation="softplus"),
    add_relative_time_idx=True, add_target_scales=True, add_encoder_length=True,
)
validation = TimeSeriesDataSet.from_dataset(training, data, predict=True,
                                            stop_randomization=True)
train_loader = training.to_dataloader(train=True, batch_size=16, num_workers=0)
val_loader = validation.to_dataloader(train=False, batch_size=32, num_workers=0)

checkpoint = ModelCheckpoint(monitor="val_loss", mode="min", save_last=True)
trainer = pl.Trainer(
    max_epochs=6, accelerator="cpu", gradient_clip_val=0.1, limit_train_batches=10,
    callbacks=[LearningRateMonitor(), EarlyStopping(monitor="val_loss", patience=3),
               checkpoint],
    logger=TensorBoardLogger("lightning_logs"), enable_progress_bar=False,
)
tft = TemporalFusionTransformer.from_dataset(
    training, learning_rate=0.03, hidden_size=8, attention_head_size=1, dropout=0.1,
    hidden_continuous_size=4, loss=QuantileLoss(), log_interval=5,
)
trainer.fit(tft, train_dataloaders=train_loader, val_dataloaders=val_loader)

best_model_path = trainer.checkpoint_callback.best_model_path
print("REPORT " + json.dumps({
    "best_model_path": best_model_path, "last_model_path": checkpoint.last_model_path,
    "best_model_score": float(checkpoint.best_model_score),
    "epochs": trainer.current_epoch, "log_dir": trainer.logger.log_dir}))
best_tft = TemporalFusionTransformer.load_from_checkpoint(best_model_path)
predictions = best_tft.predict(val_loader)
pd.DataFrame(predictions.numpy()).to_csv("forecasts/val_forecast.csv", index=False)
'''


def _sales(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    rows = ["store,time_idx,month,promo,sales"]
    for store in range(6):
        level = rng.uniform(50, 150)
        for t in range(60):
            promo = int(rng.random() < 0.2)
            season = 1 + 0.3 * np.sin(2 * np.pi * t / 12)
            sales = level * season * (1.25 if promo else 1) + rng.normal(0, 5)
            rows.append(f"{store},{t},{t % 12 + 1},{promo},{max(sales, 1):.2f}")
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _sales(Path("data/store_sales.csv"))
    Path("train.py").write_text(TRAIN)
    Path("forecasts").mkdir()
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout[-2500:] + done.stderr[-2500:])
    report = json.loads(next(line for line in done.stdout.splitlines()
                             if line.startswith("REPORT "))[7:])
    best = Path(report["best_model_path"]).resolve().relative_to(work.resolve()).as_posix()
    last = Path(report["last_model_path"]).resolve().relative_to(work.resolve()).as_posix()
    assert Path(best).is_file() and Path(last).is_file()
    return [{
        "run": "python train.py", "best": best, "latest": last,
        "evidence": f"trainer.checkpoint_callback.best_model_path (printed by train.py, and "
                    f"reloaded with TemporalFusionTransformer.load_from_checkpoint) is {best}"
                    f" (val_loss {report['best_model_score']:.4f}); ModelCheckpoint("
                    f"save_last=True).last_model_path is {last}; {report['epochs']} epochs, "
                    f"logs in {report['log_dir']}"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith(".ckpt"):
        return "checkpoint"
    if path.startswith(("lightning_logs/", "forecasts/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pytorch-forecasting",
           tool="pytorch-forecasting",
           kind="time-series forecasting on Lightning (TemporalFusionTransformer)",
           command="python train.py (train.py: TimeSeriesDataSet, TemporalFusionTransformer."
                   "from_dataset, Trainer(max_epochs=6, callbacks=[LearningRateMonitor, "
                   "EarlyStopping, ModelCheckpoint(monitor='val_loss', save_last=True)], "
                   "logger=TensorBoardLogger('lightning_logs')), load best, predict)")
