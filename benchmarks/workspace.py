"""Generate a large, ML-shaped tree for benchmarks: image-folder datasets, augmented copies,
checkpoint series, TensorBoard/W&B logs, caches. Files are tiny (most empty) so a 1M-file tree
fits anywhere; what a scanner pays for is the number of entries, not their bytes.

Reused when it already exists (a marker file records the size), since generating 300k files
takes longer than scanning them. Its times are set a day back once written, as a workspace's
are: a cleanup skips what was written in the last 10 minutes (a running job), so a tree made
just now would give the UI benchmark's cleanup nothing to move.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

MARKER = ".mlspace-bench-tree"


def _touch_many(folder: Path, names: list[str], payload_every: int = 10) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(names):
        with open(folder / name, "wb") as f:
            if i % payload_every == 0:
                f.write(b"x" * 100)


def generate(root: Path, n_files: int) -> Path:
    """Create (or reuse) a tree of about ``n_files`` files under ``root``; return root."""
    marker = root / MARKER
    if marker.exists() and marker.read_text().strip() == str(n_files):
        return root
    root.mkdir(parents=True, exist_ok=True)
    made = 0
    shares = {"data": 0.6, "aug": 0.2, "runs": 0.15, "cache": 0.05}
    per_dir = 250
    n_data = int(n_files * shares["data"])
    for d in range(max(1, n_data // per_dir)):
        split = "train" if d % 10 else "val"
        names = [f"img_{d:05d}_{i:04d}.jpg" for i in range(per_dir)]
        _touch_many(root / "data" / "imagenet" / split / f"n{d:08d}", names)
        made += per_dir
    n_aug = int(n_files * shares["aug"])
    for d in range(max(1, n_aug // per_dir)):
        names = [f"img_{d:05d}_{i:04d}_aug{i % 3}.jpg" for i in range(per_dir)]
        _touch_many(root / "data" / "augmented" / f"n{d:08d}", names)
        made += per_dir
    run = 0
    while made < n_files * (shares["data"] + shares["aug"] + shares["runs"]):
        out = root / "outputs" / f"run-{run:03d}"
        for step in range(500, 5001, 500):
            _touch_many(out / f"checkpoint-{step}", [
                "config.json", "model.safetensors", "optimizer.pt", "scheduler.pt",
                "rng_state.pth", "trainer_state.json", "training_args.bin",
            ])
            made += 7
        wandb = out / "wandb" / f"run-20261101_1200{run % 60:02d}-abc{run:05d}" / "files"
        _touch_many(wandb / "media" / "images", [f"sample_{i}_{i * 7}.png" for i in range(200)])
        events = [f"events.out.tfevents.{i}.host" for i in range(20)]
        _touch_many(out / "runs" / "Nov01_12-00-00_host", events)
        made += 220
        run += 1
    cache = root / ".cache" / "pip" / "http"
    while made < n_files:
        batch = min(per_dir, n_files - made)
        _touch_many(cache / f"{made:08x}"[:2] / f"{made:08x}", [f"{i:032x}" for i in range(batch)])
        made += batch
    _age(root, time.time() - AGE)
    marker.write_text(str(n_files))
    return root


#: How old a generated tree looks: older than a cleanup's recent-write window.
AGE = 86400.0


def _age(root: Path, when: float) -> None:
    """Set every entry's times to ``when`` (folders after what is in them)."""
    for folder, _, files in os.walk(root, topdown=False):
        for name in files:
            os.utime(os.path.join(folder, name), (when, when), follow_symlinks=False)
        os.utime(folder, (when, when))


def count_entries(root: Path) -> int:
    return sum(len(files) + len(dirs) for _, dirs, files in os.walk(root))
