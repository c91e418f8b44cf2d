"""torchx: PyTorch's job launcher (``torchx run``), as a researcher uses it to launch a small
DDP training script on the local machine before sending the same component to a cluster:
``torchx run --scheduler local_cwd dist.ddp -j 1x2 --script train.py -- ...`` (the builtin
``dist.ddp`` component, which runs the script under ``torchrun``, one node of two workers,
gloo on CPU), with the scheduler's ``log_dir`` set in the project's ``.torchxconfig`` (as
``torchx configure`` writes it) so the replicas' logs land in ``torchx_logs/``. The user's
``train.py`` trains a tiny MLP regressor on ``data/train.npz`` and saves, from rank 0, a
checkpoint per epoch (``epoch_NNN.pt``) and ``best.pt`` on each new best validation loss.
Two launches (learning rates 0.05 and 0.1, each into its own checkpoint folder).

    python3 -m venv /tmp/h11/torchx/venv
    /tmp/h11/torchx/venv/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl torchx
    /tmp/h11/torchx/venv/bin/pip install numpy
    /tmp/h11/torchx/venv/bin/python tests/corpus/heldout11/torchx/make_fixtures.py

(the torch wheel is the CPU build of torch 2.13.0; torchx 0.7.0.)
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""DDP training of a tiny regressor, launched with torchx:
torchx run --scheduler local_cwd dist.ddp -j 1x2 --script train.py -- --lr 0.05"""
import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--ckpt-dir", default="checkpoints")
args = parser.parse_args()

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
data = np.load("data/train.npz")
x, y = torch.from_numpy(data["x"]), torch.from_numpy(data["y"])
val = np.load("data/val.npz")
vx, vy = torch.from_numpy(val["x"]), torch.from_numpy(val["y"])
x, y = x[rank::world], y[rank::world]
model = DDP(torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 1)))
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
best = float("inf")
os.makedirs(args.ckpt_dir, exist_ok=True)
for epoch in range(1, args.epochs + 1):
    for i in range(0, len(x), 8):
        loss = torch.nn.functional.mse_loss(model(x[i:i + 8]), y[i:i + 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        val_loss = torch.nn.functional.mse_loss(model(vx), vy).item()
    if rank == 0:
        state = {"epoch": epoch, "model": model.module.state_dict(),
                 "optimizer": opt.state_dict(), "val_loss": val_loss}
        path = os.path.join(args.ckpt_dir, f"epoch_{epoch:03d}.pt")
        torch.save(state, path)
        print(f"epoch {epoch} train_loss {loss.item():.4f} val_loss {val_loss:.4f} "
              f"saved {path}", flush=True)
        if val_loss < best:
            best = val_loss
            torch.save(state, os.path.join(args.ckpt_dir, "best.pt"))
            print(f"new best val_loss {val_loss:.4f} at epoch {epoch}: "
                  f"{args.ckpt_dir}/best.pt", flush=True)
dist.destroy_process_group()
'''

TORCHXCONFIG = """[local_cwd]
log_dir = torchx_logs
"""


def _toy_data() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    w = rng.normal(size=(8, 1))
    Path("data").mkdir()
    for name, n in (("train", 48), ("val", 64)):
        x = rng.normal(size=(n, 8)).astype("float32")
        y = (np.tanh(x @ w) + rng.normal(0, 0.3, size=(n, 1))).astype("float32")
        np.savez(f"data/{name}.npz", x=x, y=y)


def run(work: Path) -> list[dict[str, object]]:
    import torch

    _toy_data()
    Path("train.py").write_text(TRAIN)
    Path(".torchxconfig").write_text(TORCHXCONFIG)
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
           "CUDA_VISIBLE_DEVICES": ""}
    runs = []
    for lr in ("0.05", "0.1"):
        ckpt_dir = f"checkpoints/ddp_lr{lr}"
        cmd = [str(bindir / "torchx"), "run", "--scheduler", "local_cwd", "dist.ddp",
               "-j", "1x2", "--script", "train.py", "--", "--epochs", "8", "--lr", lr,
               "--ckpt-dir", ckpt_dir]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        sys.stderr.write(done.stdout + done.stderr)
        assert done.returncode == 0, done.returncode
        assert "Job finished: SUCCEEDED" in done.stderr, done.stderr[-2000:]
        handle = re.search(r"^local_cwd://torchx/(\S+)$", done.stdout, re.M).group(1)
        app_dir = Path("torchx_logs/torchx", handle)
        assert (app_dir / "SUCCESS").is_file(), app_dir
        log = (app_dir / "train/0/stdout.log").read_text()
        saved = re.findall(r"saved (\S+\.pt)$", log, re.M)
        bests = re.findall(r"new best val_loss (\S+) at epoch (\d+): (\S+)$", log, re.M)
        latest, best = saved[-1], bests[-1][2]
        assert latest == f"{ckpt_dir}/epoch_008.pt", saved
        assert best == f"{ckpt_dir}/best.pt", bests
        best_epoch = torch.load(best, weights_only=True)["epoch"]
        assert best_epoch == int(bests[-1][1]) and best_epoch != 8, best_epoch
        runs.append({
            "run": " ".join(["torchx", *cmd[1:]]),
            "best": best, "latest": latest,
            "evidence": "torchx itself has no notion of a checkpoint (it only launches and "
                        "logs); the user's train.py prints each save, and torchx's "
                        f"replica log {app_dir}/train/0/stdout.log holds them: the last "
                        f"'saved ...' line names {latest} (epoch 8 of 8), the last 'new "
                        f"best val_loss ... at epoch {best_epoch}: {best}' line names the "
                        f"best (its stored epoch is {best_epoch})"})
    return runs


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("torchx_logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "torchx", tool="torchx",
           kind="job launcher (local_cwd scheduler, dist.ddp component, replica logs)",
           command="torchx run --scheduler local_cwd dist.ddp -j 1x2 --script train.py -- "
                   "--epochs 8 --lr {0.05,0.1} --ckpt-dir checkpoints/ddp_lr{lr} "
                   "(.torchxconfig: [local_cwd] log_dir = torchx_logs)")
