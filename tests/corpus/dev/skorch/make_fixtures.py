"""skorch: a NeuralNetClassifier (a two-layer MLP) on a toy scikit-learn dataset, CPU, 12
epochs, with skorch's Checkpoint and TrainEndCheckpoint callbacks (its docs' "Saving and
Loading" example).

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 skorch scikit-learn
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/skorch/make_fixtures.py

``Checkpoint(dirname="exp1", monitor="valid_loss_best")`` overwrites one fixed set of files
each time the validation loss improves: ``params.pt``, ``optimizer.pt``, ``criterion.pt``
and ``history.json``. ``TrainEndCheckpoint(dirname="exp1")`` writes the same set with the
prefix ``train_end_`` when fit() ends. Both live in one folder: one checkpoint each (the
best, and the last), never a series. The data is ``data/train.csv``, as a user keeps it.
The best is the epoch ``history.json`` marks ``event_cp: true`` last; the latest is the
train_end_ set.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SET = ("params.pt", "optimizer.pt", "criterion.pt", "history.json")


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import torch
    from sklearn.datasets import make_classification
    from skorch import NeuralNetClassifier
    from skorch.callbacks import Checkpoint, TrainEndCheckpoint

    torch.manual_seed(0)
    x, y = make_classification(1000, 20, n_informative=10, random_state=0)
    (work / "data").mkdir()
    np.savetxt(work / "data" / "train.csv", np.column_stack([x, y]), delimiter=",",
               header=",".join([*(f"f{i}" for i in range(20)), "label"]), comments="",
               fmt="%.6f")
    module = torch.nn.Sequential(torch.nn.Linear(20, 256), torch.nn.ReLU(),
                                 torch.nn.Linear(256, 2))
    net = NeuralNetClassifier(module, criterion=torch.nn.CrossEntropyLoss, max_epochs=12,
                              lr=0.1, device="cpu",
                              callbacks=[Checkpoint(dirname="exp1", monitor="valid_loss_best"),
                                         TrainEndCheckpoint(dirname="exp1")])
    net.fit(x.astype(np.float32), y.astype(np.int64))
    history = json.loads((work / "exp1" / "history.json").read_text())
    best_epoch = max(h["epoch"] for h in history if h.get("event_cp"))
    return [{"run": "exp1", "best": [f"exp1/{n}" for n in SET],
             "latest": [f"exp1/train_end_{n}" for n in SET],
             "evidence": f"Checkpoint(monitor='valid_loss_best') last saved at epoch "
                         f"{best_epoch} (history.json event_cp); TrainEndCheckpoint at the end"}]


def label(path: str) -> str:
    return "dataset" if path.startswith("data/") else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "skorch", tool="skorch",
           kind="tabular (PyTorch, scikit-learn API)",
           command="NeuralNetClassifier(MLP, callbacks=[Checkpoint(dirname='exp1', "
                   "monitor='valid_loss_best'), TrainEndCheckpoint(dirname='exp1')]).fit(X, y)")
