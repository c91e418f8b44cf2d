"""Guild AI: the user's tiny NumPy ``train.py`` run as the ``train`` operation of their
``guild.yml`` (flags ``lr``, ``hidden``, ``epochs`` imported from the script's globals, the
dataset file a required dependency, scalars read from the output), with ``GUILD_HOME`` set
to a ``.guild`` folder inside the project (a project-local Guild home): one run, then a grid
search of two learning rates (a batch run and its two trials).

    python3.11 -m venv /tmp/h5/guildai/venv
    /tmp/h5/guildai/venv/bin/pip install guildai numpy
    /tmp/h5/guildai/venv/bin/python tests/corpus/heldout5/guildai/make_fixtures.py

``train.py`` trains a one-hidden-layer MLP on the user's ``data/blobs.npz`` and writes, in
its run folder (its working directory under Guild), ``checkpoints/epoch_<k>.npz`` each
epoch, ``checkpoints/best.npz`` at each new best validation accuracy and ``metrics.csv``.
Commands: ``guild run -y train epochs=6``, then ``guild run -y train lr=[0.05,0.3]
epochs=6``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

GUILD_YML = '''train:
  description: Train the blob classifier MLP
  main: train
  flags-import: [lr, hidden, epochs]
  requires:
    - file: data/blobs.npz
      target-path: data
  sourcecode:
    - '*.py'
  output-scalars:
    - step: 'epoch (\\step)'
    - train_loss: 'train_loss=(\\value)'
    - val_acc: 'val_acc=(\\value)'
'''

TRAIN = '''"""Train an MLP on data/blobs.npz (flags: lr, hidden, epochs)."""
import os

import numpy as np

lr = 0.1
hidden = 32
epochs = 5

d = np.load("data/blobs.npz")
X, y = d["features"], d["labels"]
Xtr, ytr, Xva, yva = X[:1600], y[:1600], X[1600:], y[1600:]
rng = np.random.default_rng(0)
W1 = rng.normal(0, 0.2, (X.shape[1], hidden))
b1 = np.zeros(hidden)
W2 = rng.normal(0, 0.2, (hidden, 4))
b2 = np.zeros(4)
os.makedirs("checkpoints", exist_ok=True)
best = -1.0
with open("metrics.csv", "w") as log:
    log.write("epoch,train_loss,val_acc\\n")
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(Xtr))
        total = 0.0
        for i in range(0, len(order), 32):
            xb, tb = Xtr[order[i:i + 32]], ytr[order[i:i + 32]]
            h = np.maximum(xb @ W1 + b1, 0)
            z = h @ W2 + b2
            pr = np.exp(z - z.max(1, keepdims=True))
            pr /= pr.sum(1, keepdims=True)
            total -= np.log(pr[np.arange(len(tb)), tb] + 1e-12).sum()
            pr[np.arange(len(tb)), tb] -= 1
            g = pr / len(tb)
            dh = (g @ W2.T) * (h > 0)
            W2 -= lr * h.T @ g
            b2 -= lr * g.sum(0)
            W1 -= lr * xb.T @ dh
            b1 -= lr * dh.sum(0)
        val = float(((np.maximum(Xva @ W1 + b1, 0) @ W2 + b2).argmax(1) == yva).mean())
        loss = total / len(Xtr)
        weights = dict(W1=W1, b1=b1, W2=W2, b2=b2)
        np.savez(f"checkpoints/epoch_{epoch}.npz", **weights)
        if val > best:
            best = val
            np.savez("checkpoints/best.npz", epoch=epoch, **weights)
        log.write(f"{epoch},{loss:.5f},{val:.4f}\\n")
        print(f"epoch {epoch}")
        print(f"train_loss={loss:.4f}")
        print(f"val_acc={val:.4f}")
'''


def _blobs(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = rng.normal(0, 2.0, size=(4, 16))
    labels = rng.integers(0, 4, size=2000)
    features = centers[labels] + rng.normal(0, 2.2, size=(2000, 16))
    path.parent.mkdir(parents=True)
    np.savez(path, features=features, labels=labels)


def run(work: Path) -> list[dict[str, object]]:
    _blobs(Path("data/blobs.npz"))
    Path("train.py").write_text(TRAIN)
    Path("guild.yml").write_text(GUILD_YML)
    Path(".guild").mkdir()
    # A plain user's shell (Guild copies the environment into each run's attrs/env).
    env = {"GUILD_HOME": str(work / ".guild"), "HOME": "/tmp/h5/guildai", "LANG": "C.UTF-8",
           "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"}
    guild = str(Path(sys.executable).with_name("guild"))
    for argv in (["run", "-y", "train", "epochs=6"],
                 ["run", "-y", "train", "lr=[0.05,0.3]", "epochs=6"],
                 ["runs", "--all"]):
        done = subprocess.run([guild, *argv], capture_output=True, text=True, env=env,
                              timeout=300)
        sys.stderr.write(done.stdout + done.stderr)
        done.check_returncode()
    # Guild records runs (flags, scalars, output, source code) but names no checkpoint:
    # checkpoints/best.npz and epoch_<k>.npz are the user's train.py's own files, so no
    # run is listed.
    return []


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith((".guild/cache/", ".guild/locks/")):
        return "cache"
    if path.startswith(".guild/runs/"):
        inside = path.split("/", 3)[3]
        if inside.startswith("checkpoints/"):
            return "checkpoint"
        if inside.startswith("data/"):  # Guild's copy of the required data/blobs.npz
            return "cache"
        return "log"
    if path.startswith(".guild/trash/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "guildai", tool="Guild AI",
           kind="experiment tracker (runs of guild.yml operations)",
           command="GUILD_HOME=.guild guild run -y train epochs=6; GUILD_HOME=.guild guild "
                   "run -y train lr=[0.05,0.3] epochs=6")
