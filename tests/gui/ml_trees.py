"""Generated ML workspaces for the model-based GUI test: a hypothesis strategy draws a
recipe (runs and their checkpoints, caches, dumps, augmented copies, old logs), ``build``
writes it the way the tools lay it out (see ../shared/ml-layouts.md).

Every file is older than the cleanup's 10-minute guard and sits far from the edges of the
age buckets, so a fresh scan puts it in the same bucket as the app's scan did; folders
carry the time of their newest content, as if written then. Big files are sparse with a
little real data, so on-disk and apparent sizes differ everywhere. No hard links: which of
two links a scan counts depends on the order its workers finish, so two fresh scans could
disagree with each other (hard links are covered in tests/unit/test_filtering_on_disk.py).
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st
from layouts import ELF_CORE, trainer_state

DAY = 86400.0
MB = 1 << 20
#: Ages in days, each well inside one bucket (today, week, month, 3 months, year, older).
AGES = (0.5, 3.0, 12.0, 20.0, 45.0, 120.0, 200.0, 500.0)


@dataclass(frozen=True)
class Recipe:
    hf_runs: tuple[tuple[int, int, float], ...]  # (checkpoints, index of the best, age)
    lightning: tuple[tuple[int, ...], float] | None  # (val_acc per epoch in %, age)
    arrow_caches: tuple[float, ...]  # the age of each cache-*.arrow
    pycache: bool
    debug: tuple[float, ...]  # the age of each dump (core dumps and profiler traces)
    augmented: tuple[float, ...]  # the age of each augmented copy
    dataset_files: int
    old_logs: bool  # a W&B run folder old and big enough to be archived
    seed: int


@st.composite
def recipes(draw: st.DrawFn) -> Recipe:
    ages = st.sampled_from(AGES)
    hf = draw(st.lists(st.integers(2, 5).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n - 1), ages)), max_size=2))
    lightning = draw(st.none() | st.tuples(
        st.lists(st.integers(50, 99), min_size=2, max_size=4, unique=True).map(tuple), ages))
    return Recipe(
        hf_runs=tuple(hf),
        lightning=lightning,
        arrow_caches=tuple(draw(st.lists(ages, max_size=3))),
        pycache=draw(st.booleans()),
        debug=tuple(draw(st.lists(ages, max_size=3))),
        augmented=tuple(draw(st.lists(ages, max_size=3))),
        dataset_files=draw(st.integers(0, 4)),
        old_logs=draw(st.booleans()),
        seed=draw(st.integers(0, 2**16)),
    )


class _Writer:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.now = time.time()
        self.rng = random.Random(seed)

    def file(self, rel: str, age_days: float, size: int = 0, data: bytes | int = b"") -> Path:
        """A file of ``size`` apparent bytes (sparse past its data), ``age_days`` old."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        content = self.rng.randbytes(data) if isinstance(data, int) else data
        with open(path, "wb") as f:
            f.write(content)
            f.truncate(max(size, len(content)))
        self.age(path, age_days)
        return path

    def text(self, rel: str, age_days: float, content: str) -> Path:
        return self.file(rel, age_days, data=content.encode())

    def age(self, path: Path, days: float) -> None:
        stamp = self.now - days * DAY
        os.utime(path, (stamp, stamp), follow_symlinks=False)


def build(root: Path, recipe: Recipe) -> Path:
    w = _Writer(root, recipe.seed)
    for n, (count, best, age) in enumerate(recipe.hf_runs):
        _hf_run(w, f"outputs/run-{n}", count, best, age)
    if recipe.lightning is not None:
        _lightning_run(w, *recipe.lightning)
    for i, age in enumerate(recipe.arrow_caches):
        w.file(f"hf_datasets/wikitext/cache-{w.rng.getrandbits(64):016x}.arrow", age,
               20 * MB, 8192 + i)
    if recipe.pycache:
        w.text("src/train.py", 3.0, "from transformers import Trainer\n")
        w.file("src/__pycache__/train.cpython-311.pyc", 3.0, data=4096)
    for i, age in enumerate(recipe.debug):
        if i % 2:
            w.file(f"profiler/gpu01_{i}.1793610764123.pt.trace.json", age, 200 * MB, 1000)
        else:
            w.file(f"core.{81234 + i}", age, 500 * MB, ELF_CORE)
    cls = "n01440764"
    for i in range(recipe.dataset_files):
        w.file(f"data/imagenet-mini/train/{cls}/{cls}_{i:05d}.JPEG", 420.0, 110_000, 2000)
    for i, age in enumerate(recipe.augmented):
        w.file(f"data/imagenet-mini/train/output/{cls}/{cls}_original_{cls}_{i:05d}.JPEG_"
               f"{w.rng.getrandbits(32):08x}-{w.rng.getrandbits(16):04x}-4"
               f"{w.rng.getrandbits(12):03x}-a{w.rng.getrandbits(12):03x}-"
               f"{w.rng.getrandbits(48):012x}.JPEG", age, 150_000, 3000)
    if recipe.old_logs:
        run = "wandb/offline-run-20250712_101500-p0o9i8u7"
        w.file(f"{run}/run-p0o9i8u7.wandb", 150.0, data=600_000)
        w.file(f"{run}/files/output.log", 150.0, data=700_000)
        w.text(f"{run}/files/config.yaml", 150.0, "lr:\n  value: 0.0003\n")
    w.text("README.md", 400.0, "# generated for a test\n")
    _age_folders(root)
    return root


def _hf_run(w: _Writer, base: str, count: int, best: int, age: float) -> None:
    steps = [500 * (k + 1) for k in range(count)]
    evals = [(s, round(1.5 + 0.1 * abs(k - best), 3)) for k, s in enumerate(steps)]
    for k, step in enumerate(steps):
        older = age + 0.02 * (count - 1 - k)  # same bucket: the newest is ``age`` days old
        folder = f"{base}/checkpoint-{step}"
        so_far = [e for e in evals if e[0] <= step]
        best_step, best_value = min(so_far, key=lambda e: e[1])
        w.text(f"{folder}/config.json", older, '{"model_type": "bert"}\n')
        w.file(f"{folder}/model.safetensors", older, 50 * MB, 3000)
        w.file(f"{folder}/optimizer.pt", older, 100 * MB, 5000)
        w.file(f"{folder}/scheduler.pt", older, data=1064)
        w.file(f"{folder}/rng_state.pth", older, data=14_244)
        state = trainer_state(step, f"{base}/checkpoint-{best_step}", best_value, so_far)
        w.text(f"{folder}/trainer_state.json", older, json.dumps(state))
    w.file(f"{base}/runs/Nov02_09-12-44_gpu01/events.out.tfevents.1793610764.gpu01.4121.0",
           age, MB, 2000)


def _lightning_run(w: _Writer, accs: tuple[int, ...], age: float) -> None:
    base = "lightning_logs/version_0"
    w.text(f"{base}/hparams.yaml", age, "lr: 0.001\nbatch_size: 256\n")
    rows = ["epoch,step,val_acc"] + [f"{e},{(e + 1) * 390},{a / 100}" for e, a in
                                     enumerate(accs)]
    w.text(f"{base}/metrics.csv", age, "\n".join(rows) + "\n")
    w.file(f"{base}/events.out.tfevents.1793000000.gpu02.881.0", age, 12 * MB, 1500)
    name = ""
    for epoch, acc in enumerate(accs):
        name = f"epoch={epoch}-step={(epoch + 1) * 390}-val_acc={acc / 100:.2f}.ckpt"
        w.file(f"{base}/checkpoints/{name}", age + 0.02 * (len(accs) - 1 - epoch), 30 * MB,
               4000 + epoch)
    link = w.root / f"{base}/checkpoints/last.ckpt"
    os.symlink(name, link)
    w.age(link, age)


def _age_folders(root: Path) -> None:
    """Give every folder the time of its newest content (the root too)."""
    for folder, dirs, files in os.walk(root, topdown=False):
        times = [os.lstat(os.path.join(folder, n)).st_mtime for n in dirs + files]
        if times:
            os.utime(folder, (max(times), max(times)))
