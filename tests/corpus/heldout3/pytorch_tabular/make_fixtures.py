"""PyTorch Tabular: a CategoryEmbedding classifier on a toy "adult"-like table, CPU, up to
10 epochs, with its default checkpointing and TensorBoard experiment tracking, then
``save_model``, as its tutorials run it.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 pytorch-tabular
    /work/venvs/tools-a/bin/python tests/corpus/heldout3/pytorch_tabular/make_fixtures.py

The table is the user's CSV ``data/adult.csv``. ``TrainerConfig`` keeps its defaults:
``checkpoints="valid_loss"`` (Lightning's ModelCheckpoint, top 1, into ``saved_models/``,
named ``<run>-<version>_epoch=<N>-valid_loss=<loss>.ckpt``), early stopping on
``valid_loss`` and ``load_best=True``; ``checkpoints_kwargs={"save_last": True}`` adds the
callback's ``last.ckpt``. ``ExperimentConfig(project_name="tabular_runs", run_name="adult",
log_target="tensorboard")`` logs to ``tabular_runs/adult/version_<N>/``.
Its ``.pt_tmp/exp_version_manager.yml`` counts the run versions.
``tabular_model.save_model("examples/basic")`` writes the model folder (config, data module,
callbacks, logger, weights) after fit, which has loaded the best checkpoint back.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import pandas as pd
    from pytorch_lightning.callbacks import ModelCheckpoint
    from pytorch_tabular import TabularModel
    from pytorch_tabular.config import (
        DataConfig,
        ExperimentConfig,
        OptimizerConfig,
        TrainerConfig,
    )
    from pytorch_tabular.models import CategoryEmbeddingModelConfig

    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "hours": rng.integers(10, 70, n),
                          "education": rng.choice(["hs", "college", "masters", "phd"], n),
                          "workclass": rng.choice(["private", "gov", "self"], n)})
    frame["salary"] = np.where(frame.age * 0.5 + frame.hours * 0.8 + rng.normal(0, 8, n) > 55,
                               ">=50k", "<50k")
    (work / "data").mkdir()
    frame.to_csv(work / "data" / "adult.csv", index=False)
    table = pd.read_csv(work / "data" / "adult.csv")
    train, val = table.iloc[:2400], table.iloc[2400:]

    tabular_model = TabularModel(
        data_config=DataConfig(target=["salary"], continuous_cols=["age", "hours"],
                               categorical_cols=["education", "workclass"]),
        model_config=CategoryEmbeddingModelConfig(task="classification", layers="32-16",
                                                  seed=0),
        optimizer_config=OptimizerConfig(),
        trainer_config=TrainerConfig(batch_size=64, max_epochs=10, accelerator="cpu",
                                     progress_bar="none", seed=0,
                                     checkpoints_kwargs={"save_last": True}),
        experiment_config=ExperimentConfig(project_name="tabular_runs", run_name="adult",
                                           log_target="tensorboard"))
    tabular_model.fit(train=train, validation=val, seed=0)
    tabular_model.save_model("examples/basic")
    callback = next(cb for cb in tabular_model.trainer.callbacks
                    if isinstance(cb, ModelCheckpoint))

    def rel(path: str) -> str:
        return Path(path).resolve().relative_to(work.resolve()).as_posix()

    return [{"run": "saved_models", "best": rel(callback.best_model_path),
             "latest": rel(callback.last_model_path),
             "evidence": f"the valid_loss ModelCheckpoint's best_model_path (valid_loss "
                         f"{float(callback.best_model_score):.4f}, loaded back by "
                         f"load_best=True) and its last_model_path "
                         f"(after the last epoch, {tabular_model.trainer.current_epoch - 1} "
                         f"as the checkpoint names count)"},
            {"run": "examples", "best": None, "latest": "examples/basic",
             "evidence": "tabular_model.save_model('examples/basic') after fit: the one "
                         "model folder the script saved"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(".pt_tmp/"):
        return "cache"
    return "log" if path.startswith("tabular_runs/") else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pytorch_tabular",
           tool="PyTorch Tabular", kind="tabular (PyTorch Lightning)",
           command="TabularModel(CategoryEmbeddingModelConfig(...), TrainerConfig("
                   "max_epochs=10, checkpoints_kwargs={'save_last': True}), ExperimentConfig("
                   "project_name='tabular_runs', log_target='tensorboard')).fit(train, "
                   "validation); save_model('examples/basic')")
