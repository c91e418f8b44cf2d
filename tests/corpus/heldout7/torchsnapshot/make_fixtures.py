"""torchsnapshot: the user's ``train.py`` fits a small PyTorch MLP on its toy CSV and, as
torchsnapshot's docs show, takes ``Snapshot.take(path, app_state)`` of the model, the
optimizer and a ``StateDict`` of progress every 100 steps, one folder per snapshot
(``checkpoints/step_<n>``); after training it restores the last snapshot into a fresh
model to check it.

    python3.11 -m venv /tmp/h7/torchsnapshot/venv
    /tmp/h7/torchsnapshot/venv/bin/pip install torch==2.13.0 torchsnapshot numpy
    /tmp/h7/torchsnapshot/venv/bin/python tests/corpus/heldout7/torchsnapshot/make_fixtures.py

``python train.py``: 300 full-batch Adam steps of a 8-512-512-1 MLP on
``data/train.csv``, validation on ``data/valid.csv``; snapshots at steps 100, 200, 300.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train the price regressor with torchsnapshot checkpoints: python train.py"""
import numpy as np
import torch
from torchsnapshot import Snapshot, StateDict


def load(path):
    table = torch.from_numpy(np.loadtxt(path, delimiter=",", skiprows=1)).float()
    return table[:, :-1], table[:, -1:]


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(8, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 1))


torch.manual_seed(0)
x_train, y_train = load("data/train.csv")
x_valid, y_valid = load("data/valid.csv")
model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
progress = StateDict(step=0, val_loss=float("inf"))
app_state = {"model": model, "optimizer": optimizer, "progress": progress}

for step in range(1, 301):
    loss = torch.nn.functional.mse_loss(model(x_train), y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        with torch.no_grad():
            val = torch.nn.functional.mse_loss(model(x_valid), y_valid).item()
        progress["step"], progress["val_loss"] = step, val
        snapshot = Snapshot.take(path=f"checkpoints/step_{step}", app_state=app_state)
        print(f"step {step} train_loss={loss.item():.4f} val_loss={val:.4f} "
              f"snapshot={snapshot.path}")

restored = {"model": make_model(), "progress": StateDict(step=0, val_loss=0.0)}
Snapshot(path="checkpoints/step_300").restore(app_state=restored)
print("restored step", restored["progress"]["step"])
'''


def _data(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    folder.mkdir()
    names = ["area", "rooms", "age", "dist_center", "dist_school", "floor", "garden", "noise"]
    for split, n in (("train", 400), ("valid", 100)):
        x = rng.normal(size=(n, 8))
        y = 2 * x[:, 0] + x[:, 1] - 0.5 * x[:, 2] ** 2 + rng.normal(0, 0.2, n)
        rows = [",".join(f"{v:.4f}" for v in (*r, t)) for r, t in zip(x, y, strict=True)]
        (folder / f"{split}.csv").write_text(",".join([*names, "price"]) + "\n"
                                             + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data"))
    Path("train.py").write_text(TRAIN)
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr[-2000:])
    taken = [line.split("snapshot=")[1] for line in done.stdout.splitlines()
             if "snapshot=" in line]
    assert taken == ["checkpoints/step_100", "checkpoints/step_200", "checkpoints/step_300"]
    assert "restored step 300" in done.stdout
    latest = sorted(p.relative_to(work).as_posix()
                    for p in Path(taken[-1]).resolve().rglob("*") if p.is_file())
    return [{
        "run": "python train.py", "best": None, "latest": latest,
        "evidence": f"Snapshot.take returned Snapshot(path={taken[-1]!r}), the last of the "
                    f"three snapshots train.py took (printed), restored by the script at the "
                    f"end (progress step 300); the snapshot is the folder's files, "
                    f"{taken[-1]}/.snapshot_metadata naming its manifest. torchsnapshot has "
                    f"no notion of a best snapshot"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "torchsnapshot", tool="torchsnapshot",
           kind="PyTorch checkpointing (Snapshot.take of model, optimizer, progress)",
           command="python train.py (train.py: 300 Adam steps of an MLP, Snapshot.take("
                   "path='checkpoints/step_<n>', app_state={model, optimizer, progress}) at "
                   "steps 100, 200, 300, then Snapshot('checkpoints/step_300').restore)")
