"""A generated sample ML workspace, so a newcomer sees every feature at once.

It holds every category, runs with checkpoint series whose best and latest are recorded the
way HF Trainer (trainer_state.json) and Lightning (metric names, a ``last.ckpt`` link) record
them, and files of every age. Big files are *sparse*: they report GB-scale apparent sizes
while taking almost no disk, so the app opens the demo in apparent-size view and says so.
Records (JSON, YAML, logs) are real text, so the classifier reads them as it would real ones.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from mlspace.config import cache_dir

DAY = 86400.0
GB = 1 << 30
MB = 1 << 20
MARKER = ".mlspace-demo"


class _Writer:
    """Writes files with a given apparent size and age; content only where it matters."""

    def __init__(self, root: Path, now: float, rng: random.Random) -> None:
        self.root = root
        self.now = now
        self.rng = rng

    def sparse(self, rel: str, size: float, age_days: float, head: bytes = b"") -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.write(head)
            f.truncate(max(int(size), len(head)))
        self.age(path, age_days)
        return path

    def text(self, rel: str, content: str, age_days: float) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        self.age(path, age_days)
        return path

    def age(self, path: Path, days: float) -> None:
        stamp = self.now - days * DAY
        os.utime(path, (stamp, stamp), follow_symlinks=False)

    def jitter(self, scale: float) -> float:
        return self.rng.uniform(0.9, 1.1) * scale


def _trainer_state(step: int, best_step: int, evals: dict[int, float]) -> str:
    history = []
    for s in sorted(evals):
        if s <= step:
            history.append({"loss": round(2.4 - s / 9000, 4), "learning_rate": 3e-4,
                            "epoch": s / 1000, "step": s})
            history.append({"eval_loss": evals[s], "eval_runtime": 41.2,
                            "eval_samples_per_second": 120.4, "epoch": s / 1000, "step": s})
    best = min((s for s in evals if s <= step), key=evals.__getitem__)
    return json.dumps({
        "best_metric": evals[best], "best_global_step": best,
        "best_model_checkpoint": f"outputs/bert-large-lr3e-4/checkpoint-{best}",
        "epoch": step / 1000, "global_step": step, "max_steps": 12000, "logging_steps": 50,
        "eval_steps": 1000, "save_steps": 1000, "train_batch_size": 32, "num_train_epochs": 12,
        "log_history": history, "is_local_process_zero": True, "is_world_process_zero": True,
        "is_hyper_param_search": False, "trial_name": None, "trial_params": None,
        "total_flos": 3.1e18, "num_input_tokens_seen": 0, "stateful_callbacks": {},
    }, indent=2)


def _hf_run(w: _Writer, name: str, steps: range, params_gb: float, age_newest: float,
            evals: dict[int, float]) -> None:
    base = f"outputs/{name}"
    last = steps[-1]
    for step in steps:
        age = age_newest + (last - step) / 1000 * 1.5
        ckpt = f"{base}/checkpoint-{step}"
        w.text(f"{ckpt}/config.json", '{"model_type": "bert", "hidden_size": 1024}\n', age)
        w.sparse(f"{ckpt}/model.safetensors", int(w.jitter(params_gb * GB)), age)
        w.sparse(f"{ckpt}/optimizer.pt", int(w.jitter(2 * params_gb * GB)), age)
        w.sparse(f"{ckpt}/scheduler.pt", 1064, age)
        w.sparse(f"{ckpt}/rng_state.pth", 14_244, age)
        w.sparse(f"{ckpt}/training_args.bin", 5_304, age)
        best = min((s for s in evals if s <= step), key=evals.__getitem__)
        w.text(f"{ckpt}/trainer_state.json", _trainer_state(step, best, evals), age)
    w.sparse(f"{base}/runs/Nov02_09-12-44_gpu01/events.out.tfevents.1793610764.gpu01.4121.0",
             48 * MB, age_newest)


def _lightning_run(w: _Writer, version: int, age_newest: float, accs: list[float]) -> None:
    base = f"lightning_logs/version_{version}"
    w.text(f"{base}/hparams.yaml", "lr: 0.001\nbatch_size: 256\nbackbone: resnet50\n", age_newest)
    rows = ["epoch,step,val_acc"] + [f"{e},{(e + 1) * 390},{a}" for e, a in enumerate(accs)]
    w.text(f"{base}/metrics.csv", "\n".join(rows) + "\n", age_newest)
    w.sparse(f"{base}/events.out.tfevents.1793000000.gpu02.881.0", 12 * MB, age_newest)
    last_name = ""
    for epoch, acc in enumerate(accs):
        name = f"epoch={epoch}-step={(epoch + 1) * 390}-val_acc={acc:.2f}.ckpt"
        age = age_newest + (len(accs) - 1 - epoch) * 0.5
        w.sparse(f"{base}/checkpoints/{name}", int(w.jitter(0.29 * GB)), age)
        last_name = name
    link = w.root / f"{base}/checkpoints/last.ckpt"
    os.symlink(last_name, link)
    w.age(link, age_newest)


def _dataset(w: _Writer) -> None:
    classes = ["n01440764", "n01443537", "n01484850", "n01491361", "n01494475", "n01496331",
               "n01498041", "n01514668", "n01514859", "n01518878", "n01530575", "n01531178"]
    for split, count in (("train", 40), ("val", 12)):
        for cls in classes:
            for i in range(count):
                w.sparse(f"data/imagenet-mini/{split}/{cls}/{cls}_{i:05d}.JPEG",
                         int(w.jitter(110_000 * 40)), 420)
    for i in range(8):
        w.sparse(f"data/laion-subset/shard-{i:06d}.tar", int(w.jitter(3 * GB)), 300)
    w.sparse("data/coco/annotations/instances_train2017.json", 469 * MB, 700)
    w.sparse("data/embeddings/clip_vitl14.npy", 6 * GB, 200)
    for cls in classes[:6]:  # Augmentor writes into <source>/output/<class>/
        for i in range(30):
            w.sparse(
                f"data/imagenet-mini/train/output/{cls}/{cls}_original_{cls}_{i:05d}.JPEG_"
                f"{w.rng.getrandbits(32):08x}-{w.rng.getrandbits(16):04x}-4{w.rng.getrandbits(12):03x}"
                f"-a{w.rng.getrandbits(12):03x}-{w.rng.getrandbits(48):012x}.JPEG",
                int(w.jitter(150_000 * 30)), 95)
    for i in range(4):
        w.sparse(f"data/imagenet-mini/train_aug/batch_{i}.npz", int(w.jitter(2.2 * GB)), 40)


def _logs_debug_caches(w: _Writer) -> None:
    run = "wandb/run-20261102_091244-k3x9q2ab"
    w.sparse(f"{run}/run-k3x9q2ab.wandb", 310 * MB, 2)
    w.text(f"{run}/files/config.yaml", "lr:\n  value: 0.0003\n", 2)
    w.text(f"{run}/files/wandb-summary.json", '{"eval/loss": 1.82}\n', 2)
    w.sparse(f"{run}/files/output.log", 22 * MB, 2)
    for i in range(25):
        w.sparse(f"{run}/files/media/images/predictions_{i * 100}_{i:04x}.png", 900_000, 2)
    old = "wandb/offline-run-20260712_101500-p0o9i8u7"
    w.sparse(f"{old}/run-p0o9i8u7.wandb", 1.2 * GB, 140)
    w.sparse(f"{old}/files/output.log", 80 * MB, 140)
    w.sparse("nohup.out", 640 * MB, 1)
    w.sparse("profiler/gpu01_4121.1793610764123.pt.trace.json", 2.4 * GB, 75)
    w.sparse("profiler/gpu01_4121.1793611764456.pt.trace.json", 2.1 * GB, 75)
    w.sparse("dump_snapshot.pickle", 3.7 * GB, 33)
    core_header = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + (4).to_bytes(2, "little") + b"\0" * 46
    w.sparse("core.81234", 9 * GB, 12, head=core_header)
    w.sparse("torch_compile_debug/run_2026_10_01_10_00_00_000000-pid_4121/torchinductor/"
             "model__0_forward_1.0/output_code.py", 2 * MB, 60)
    hub = ".cache/huggingface/hub/models--bert-large-uncased"
    blob = w.sparse(f"{hub}/blobs/9f2c1d0e7b5a", int(1.34 * GB), 200)
    w.text(f"{hub}/refs/main", "0a1b2c3d4e5f", 200)
    snapshot = w.root / f"{hub}/snapshots/0a1b2c3d4e5f/model.safetensors"
    snapshot.parent.mkdir(parents=True)
    os.symlink(os.path.relpath(blob, snapshot.parent), snapshot)
    for i in range(3):
        w.sparse(f"hf_datasets/wikitext/cache-{w.rng.getrandbits(64):016x}.arrow",
                 int(w.jitter(1.6 * GB)), 30 + i)
    w.text("src/train.py", "from transformers import Trainer\n", 3)
    w.sparse("src/__pycache__/train.cpython-311.pyc", 4096, 3)
    w.text("README.md", "# Demo workspace generated by mlspace\n", 400)


def generate(root: Path, seed: int = 7) -> Path:
    """Create the demo workspace in ``root`` (which must be empty or absent)."""
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; the demo needs an empty folder")
    w = _Writer(root, time.time(), random.Random(seed))
    # eval_loss falls until step 7000, then the run overfits: best 7000, latest 12000
    evals = {s: round(1.82 + 0.06 * abs(s - 7000) / 1000 + (0.1 if s < 7000 else 0), 3)
             for s in range(1000, 12001, 1000)}
    evals[7000] = 1.82
    _hf_run(w, "bert-large-lr3e-4", range(1000, 12001, 1000), 1.34, 1.0, evals)
    _hf_run(w, "bert-base-lr1e-4", range(2000, 10001, 2000), 0.44, 130.0,
            {s: round(2.3 - s / 20000, 3) for s in range(2000, 10001, 2000)})
    _lightning_run(w, 0, 45.0, [0.61, 0.68, 0.71, 0.74, 0.73, 0.72])
    _lightning_run(w, 1, 5.0, [0.66, 0.72, 0.76, 0.78])
    _dataset(w)
    _logs_debug_caches(w)
    (root / MARKER).write_text("generated by mlspace --demo\n")
    _age_folders(root)
    return root


def _age_folders(root: Path) -> None:
    """Give every folder the time of its newest content, as if it had been written then
    (a folder's own time is "now" when the demo is generated)."""
    for folder, dirs, files in os.walk(root, topdown=False):
        times = [os.lstat(os.path.join(folder, n)).st_mtime for n in dirs + files]
        if times and folder != str(root):
            os.utime(folder, (max(times), max(times)))


def fresh_demo() -> Path:
    """A freshly generated demo in one folder of mlspace's cache, replacing the previous
    one. Each ``--demo`` used to leave a new temporary folder behind (about 124 GiB
    apparent, sparse), which other disk tools then reported; one reused folder leaves
    nothing to pile up. Only a folder carrying the demo's marker is ever replaced."""
    folder = demo_home()
    if folder.exists():
        if not is_demo(folder):  # not ours after all: leave it, use a new folder
            return generate(Path(tempfile.mkdtemp(prefix="mlspace-demo-")) / "ml-workspace")
        shutil.rmtree(folder)
    return generate(folder)


def demo_home() -> Path:
    return cache_dir() / "demo" / "ml-workspace"


def is_demo(path: str | os.PathLike[str]) -> bool:
    return (Path(path) / MARKER).exists()
