"""Poutyne: a small MLP classifier on a toy 3-class table (the user's CSV), CPU, trained
twice as Poutyne's docs show: once with ``Model.fit_generator`` and its callbacks, once with
its ``Experiment`` class, which manages a whole run folder.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 poutyne pandas matplotlib tensorboard
    /work/venvs/tools-a/bin/python tests/corpus/heldout4/poutyne/make_fixtures.py

Run 1 (``fit_run/``), the callbacks of Poutyne's "getting started": ``ModelCheckpoint(
'fit_run/last_epoch.ckpt')`` (rewritten every epoch), ``ModelCheckpoint(
'fit_run/best_epoch_{epoch}.ckpt', monitor='val_acc', mode='max', save_best_only=True,
restore_best=True)`` (a new file at each new best, all kept), ``ModelCheckpoint(
'fit_run/epochs/model_epoch_{epoch}.ckpt')`` (one file every epoch) and ``CSVLogger(
'fit_run/log.csv')``; 8 epochs. Run 2 (``saves/mlp_experiment/``): ``Experiment(
'saves/mlp_experiment', net, optimizer='sgd', task='classif')``, ``.train(train, valid,
epochs=8)`` then ``.test(test)``, which writes ``checkpoint_epoch_<N>.ckpt`` at each new best
``val_acc``, the resume set ``checkpoint.ckpt``/``.optim``/``.randomstate`` and
``last.epoch``, ``log.tsv``, ``test_log.tsv``, ``tensorboard/`` and ``plots/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def _toy_table(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = rng.normal(0, 1.2, size=(3, 8))
    labels = rng.integers(0, 3, size=1200)
    features = centers[labels] + rng.normal(0, 1.5, size=(1200, 8))
    path.parent.mkdir(parents=True)
    header = ",".join([f"f{i}" for i in range(8)] + ["label"])
    rows = [",".join(f"{v:.5f}" for v in x) + f",{y}"
            for x, y in zip(features, labels, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import torch
    from poutyne import CSVLogger, Experiment, Model, ModelCheckpoint
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset, random_split

    _toy_table(Path("data/blobs.csv"))
    table = np.loadtxt("data/blobs.csv", delimiter=",", skiprows=1)
    dataset = TensorDataset(torch.tensor(table[:, :8], dtype=torch.float32),
                            torch.tensor(table[:, 8], dtype=torch.long))
    train, valid, test = random_split(dataset, [800, 200, 200],
                                      generator=torch.Generator().manual_seed(0))
    loaders = [DataLoader(part, batch_size=32, shuffle=shuffle)
               for part, shuffle in ((train, True), (valid, False), (test, False))]

    def network() -> nn.Module:
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                             nn.Linear(64, 3))

    Path("fit_run/epochs").mkdir(parents=True)
    net = network()
    model = Model(net, torch.optim.SGD(net.parameters(), lr=0.01), "cross_entropy",
                  batch_metrics=["accuracy"])
    best = ModelCheckpoint("fit_run/best_epoch_{epoch}.ckpt", monitor="val_acc", mode="max",
                           save_best_only=True, restore_best=True, verbose=True)
    history = model.fit_generator(loaders[0], loaders[1], epochs=8, callbacks=[
        ModelCheckpoint("fit_run/last_epoch.ckpt"), best,
        ModelCheckpoint("fit_run/epochs/model_epoch_{epoch}.ckpt"),
        CSVLogger("fit_run/log.csv")])
    fit_best = max(history, key=lambda h: h["val_acc"])  # the first of ties, as Poutyne
    fit_best_file = f"fit_run/best_epoch_{fit_best['epoch']}.ckpt"
    assert best.best_filename == fit_best_file, best.best_filename

    exp = Experiment("saves/mlp_experiment", network(), optimizer="sgd", task="classif")
    exp.train(loaders[0], loaders[1], epochs=8)
    exp.test(loaders[2])
    stats = exp.get_best_epoch_stats()
    epoch = int(stats["epoch"].item())
    folder = "saves/mlp_experiment"
    resume = [f"{folder}/checkpoint.{ext}" for ext in ("ckpt", "optim", "randomstate")]
    return [
        {"run": "fit_run", "best": fit_best_file, "latest": "fit_run/last_epoch.ckpt",
         "evidence": f"the save_best_only ModelCheckpoint's best_filename is {fit_best_file} "
                     f"(val_acc {fit_best['val_acc']:.2f} at epoch {fit_best['epoch']}, from "
                     f"fit_generator's history); last_epoch.ckpt is rewritten every epoch"},
        {"run": folder, "best": f"{folder}/checkpoint_epoch_{epoch}.ckpt",
         "latest": resume + [f"{folder}/last.epoch"],
         "evidence": f"Experiment.get_best_epoch_stats(): epoch {epoch} (val_acc "
                     f"{float(stats['val_acc'].item()):.2f}), its checkpoint_epoch_{epoch}.ckpt;"
                     f" the resume set checkpoint.ckpt/.optim/.randomstate and last.epoch, "
                     f"which Experiment reloads to continue"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith((".ckpt", ".optim", ".randomstate", "last.epoch")):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "poutyne", tool="Poutyne",
           kind="training framework (PyTorch)",
           command="Model(net, sgd, 'cross_entropy').fit_generator(train, valid, epochs=8, "
                   "callbacks=[ModelCheckpoint('fit_run/last_epoch.ckpt'), ModelCheckpoint("
                   "'fit_run/best_epoch_{epoch}.ckpt', monitor='val_acc', save_best_only=True),"
                   " ModelCheckpoint('fit_run/epochs/model_epoch_{epoch}.ckpt'), CSVLogger("
                   "'fit_run/log.csv')]); Experiment('saves/mlp_experiment', net, task="
                   "'classif').train(train, valid, epochs=8); .test(test)")
