"""pytorch-metric-learning: the user's ``train.py`` follows the library's example notebook
for its trainers and hooks (``trainers.MetricLossOnly`` with a trunk and an embedder,
``TripletMarginLoss``, ``MultiSimilarityMiner``, ``MPerClassSampler``; ``logging_presets``'
record keeper writing ``example_logs/`` (CSV and SQLite) and ``example_tensorboard/``; its
``end_of_epoch_hook`` testing on the validation set every epoch with
``GlobalEmbeddingSpaceTester`` and saving models to ``example_saved_models/``), the folder
names the example's, on the user's toy ``data/shapes.npz`` (32-d vectors of 8 classes).

    cd /tmp/h6/pytorch-metric-learning && python3.11 -m venv venv
    venv/bin/pip install torch==2.13.0 torchvision pytorch-metric-learning record-keeper
    venv/bin/pip install tensorboard faiss-cpu
    cd - && /tmp/h6/pytorch-metric-learning/venv/bin/python \\
        tests/corpus/heldout6/pytorch-metric-learning/make_fixtures.py

``python train.py``: 8 epochs (early stopping patience 2), then the script prints the hooks'
best epoch (``hooks.get_best_epoch_and_accuracy``) and the latest and best saved versions
(``common_functions.latest_version``, what ``hooks.load_latest_saved_models`` loads).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Metric learning on data/shapes.npz with pytorch-metric-learning's trainer, hooks."""
import logging

import numpy as np
import torch
import pytorch_metric_learning.utils.common_functions as c_f
import pytorch_metric_learning.utils.logging_presets as logging_presets
from pytorch_metric_learning import losses, miners, samplers, testers, trainers
from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator

logging.getLogger().setLevel(logging.INFO)
torch.manual_seed(0)


class ArrayDataset(torch.utils.data.Dataset):
    def __init__(self, x, y):
        self.x, self.y = torch.tensor(x), torch.tensor(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


data = np.load("data/shapes.npz")
train_dataset = ArrayDataset(data["train_x"], data["train_y"])
val_dataset = ArrayDataset(data["val_x"], data["val_y"])

trunk = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64))
embedder = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(64, 16))
trunk_optimizer = torch.optim.Adam(trunk.parameters(), lr=1e-2)
embedder_optimizer = torch.optim.Adam(embedder.parameters(), lr=1e-2)
loss = losses.TripletMarginLoss(margin=0.1)
miner = miners.MultiSimilarityMiner(epsilon=0.1)
sampler = samplers.MPerClassSampler(train_dataset.y, m=4,
                                   length_before_new_iter=len(train_dataset))

models = {"trunk": trunk, "embedder": embedder}
optimizers = {"trunk_optimizer": trunk_optimizer, "embedder_optimizer": embedder_optimizer}
loss_funcs = {"metric_loss": loss}
mining_funcs = {"tuple_miner": miner}

record_keeper, _, _ = logging_presets.get_record_keeper("example_logs", "example_tensorboard")
hooks = logging_presets.get_hook_container(record_keeper)
dataset_dict = {"val": val_dataset}
model_folder = "example_saved_models"

tester = testers.GlobalEmbeddingSpaceTester(
    end_of_testing_hook=hooks.end_of_testing_hook, dataloader_num_workers=0,
    accuracy_calculator=AccuracyCalculator(k="max_bin_count"))
end_of_epoch_hook = hooks.end_of_epoch_hook(tester, dataset_dict, model_folder,
                                            test_interval=1, patience=2)
trainer = trainers.MetricLossOnly(
    models, optimizers, 32, loss_funcs, train_dataset, mining_funcs=mining_funcs,
    sampler=sampler, dataloader_num_workers=0,
    end_of_iteration_hook=hooks.end_of_iteration_hook, end_of_epoch_hook=end_of_epoch_hook)
trainer.train(num_epochs=8)

best_epoch, best_accuracy = hooks.get_best_epoch_and_accuracy(tester, "val")
print(f"best epoch {best_epoch} accuracy {best_accuracy:.4f}")
print("latest saved", c_f.latest_version(model_folder, "trunk_*.pth")[0])
print("best saved", c_f.latest_version(model_folder, "trunk_*.pth", best=True)[0])
'''

PARTS = ("trunk", "embedder", "trunk_optimizer", "embedder_optimizer", "metric_loss",
         "tuple_miner")


def _shapes(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(8, 32))

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        labels = rng.integers(0, 8, size=n)
        points = centres[labels] + rng.normal(0, 2.5, size=(n, 32))
        return points.astype(np.float32), labels.astype(np.int64)

    train_x, train_y = draw(256)
    val_x, val_y = draw(320)
    path.parent.mkdir(parents=True)
    np.savez(path, train_x=train_x, train_y=train_y, val_x=val_x, val_y=val_y)


def run(work: Path) -> list[dict[str, object]]:
    _shapes(Path("data/shapes.npz"))
    Path("train.py").write_text(TRAIN)
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout)
    best_epoch = re.search(r"^best epoch (\d+) accuracy ([0-9.]+)$", done.stdout, re.M)
    latest = re.search(r"^latest saved (\d+)$", done.stdout, re.M)
    best = re.search(r"^best saved (\d+)$", done.stdout, re.M)
    assert best_epoch and latest and best, done.stdout
    assert best.group(1) == best_epoch.group(1), done.stdout
    folder = "example_saved_models"
    best_files = [f"{folder}/{part}_best{best.group(1)}.pth" for part in PARTS]
    latest_files = [f"{folder}/{part}_{latest.group(1)}.pth" for part in PARTS]
    for path in best_files + latest_files:
        assert Path(path).is_file(), path
    return [{
        "run": "python train.py", "best": best_files, "latest": latest_files,
        "evidence": f"hooks.get_best_epoch_and_accuracy(tester, 'val') returned epoch "
                    f"{best_epoch.group(1)} (mean_average_precision_at_r "
                    f"{best_epoch.group(2)}, the hooks' primary metric, also the best_epoch "
                    f"column of example_logs' accuracies CSV); "
                    f"common_functions.latest_version('{folder}', 'trunk_*.pth') gives "
                    f"{latest.group(1)} and with best=True {best.group(1)}, the suffixes "
                    f"hooks.load_latest_saved_models loads; the hook saves every model and "
                    f"optimizer of trainer.models/optimizers/loss_funcs/mining_funcs as "
                    f"<name>_<epoch>.pth (latest, the previous one deleted) and "
                    f"<name>_best<epoch>.pth"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("example_saved_models/"):
        return "checkpoint"
    if path.startswith(("example_logs/", "example_tensorboard/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pytorch-metric-learning",
           tool="pytorch-metric-learning",
           kind="metric learning (trainers.MetricLossOnly with logging_presets hooks)",
           command="python train.py (MetricLossOnly, TripletMarginLoss, MultiSimilarityMiner, "
                   "GlobalEmbeddingSpaceTester; logging_presets.get_record_keeper("
                   "'example_logs', 'example_tensorboard'), hooks.end_of_epoch_hook(tester, "
                   "{'val': ...}, 'example_saved_models', test_interval=1, patience=2), "
                   "8 epochs)")
