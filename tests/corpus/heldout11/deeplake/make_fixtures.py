"""deeplake: a vision user keeps the user's labelled image set as a local Deep Lake
dataset (Deep Lake 4, Activeloop's versioned columnar "database for AI"; local storage, no
Activeloop account) and trains from it. The user's raw data is toy 32x32 PNG shapes in
``data/raw/shapes/batch1/<class>/`` and a later delivery in ``data/raw/shapes/batch2/``.

    python3.11 -m venv /tmp/h11/deeplake/venv
    /tmp/h11/deeplake/venv/bin/pip install deeplake numpy pillow
    /tmp/h11/deeplake/venv/bin/pip install torch==2.13.0 (the CPU build)
    /tmp/h11/deeplake/venv/bin/python tests/corpus/heldout11/deeplake/make_fixtures.py

``python ingest.py`` (``deeplake.create("data/deeplake/shapes")``, columns ``images``
(``types.Image``, png), ``labels`` (``types.ClassLabel`` with class names), ``filename``
and ``split`` (``types.Text``); append batch1, ``ds.commit("import batch1")``,
``ds.tag("v1.0")``), ``python append.py batch2`` (append, commit, tag ``v1.1``),
``python relabel.py`` (fix three labels in place, commit), ``python train.py`` (opens the
dataset read-only at the head of main, queries the train and val rows with TQL,
``view.pytorch(transform=...)`` in a torch ``DataLoader``, a tiny CNN for 8 epochs; saves
``checkpoints/last.pt`` every epoch and ``checkpoints/best.pt`` on a new best val
accuracy, and a metrics CSV in ``logs/``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

CLASSES = ["circle", "square", "triangle"]

INGEST = '''"""Import data/raw/shapes/batch1 into a local Deep Lake dataset: python ingest.py"""
from pathlib import Path

import deeplake
import numpy as np
from PIL import Image

CLASSES = ["circle", "square", "triangle"]

ds = deeplake.create("data/deeplake/shapes")
ds.add_column("images", deeplake.types.Image(dtype="uint8", sample_compression="png"))
ds.add_column("labels", deeplake.types.ClassLabel("int32"))
ds["labels"].metadata["class_names"] = CLASSES
ds.add_column("filename", deeplake.types.Text())
ds.add_column("split", deeplake.types.Text())
ds.metadata["description"] = "toy 32x32 shapes, 3 classes"

files = sorted(Path("data/raw/shapes/batch1").glob("*/*.png"))
rng = np.random.default_rng(1)
ds.append({"images": [np.asarray(Image.open(f).convert("RGB")) for f in files],
           "labels": np.array([CLASSES.index(f.parent.name) for f in files], dtype="int32"),
           "filename": [str(f) for f in files],
           "split": ["val" if rng.random() < 0.25 else "train" for f in files]})
ds.commit("import batch1")
ds.tag("v1.0", "first import")
print("created", len(ds), "rows; version", ds.version)
'''

APPEND = '''"""Append a new delivery to the dataset: python append.py <batch>"""
import sys
from pathlib import Path

import deeplake
import numpy as np
from PIL import Image

CLASSES = ["circle", "square", "triangle"]
batch = sys.argv[1]

ds = deeplake.open("data/deeplake/shapes")
files = sorted(Path("data/raw/shapes", batch).glob("*/*.png"))
rng = np.random.default_rng(2)
ds.append({"images": [np.asarray(Image.open(f).convert("RGB")) for f in files],
           "labels": np.array([CLASSES.index(f.parent.name) for f in files], dtype="int32"),
           "filename": [str(f) for f in files],
           "split": ["val" if rng.random() < 0.25 else "train" for f in files]})
ds.commit(f"add {batch}")
ds.tag("v1.1", f"with {batch}")
print("appended", len(files), "rows; now", len(ds), "; version", ds.version)
'''

RELABEL = '''"""Fix three wrong labels found in review: python relabel.py"""
import deeplake

ds = deeplake.open("data/deeplake/shapes")
for row, label in [(3, 1), (17, 2), (40, 0)]:
    ds["labels"][row] = label
ds.commit("fix labels of rows 3, 17, 40")
for version in ds.history:
    print("history", version.id, version.message)
print("tags", [ds.tags[name].version for name in ds.tags.names()])
'''

TRAIN = '''"""Train a small CNN from the Deep Lake dataset: python train.py"""
import csv
from pathlib import Path

import deeplake
import numpy as np
import torch
from torch.utils.data import DataLoader

torch.manual_seed(0)
ds = deeplake.open_read_only("data/deeplake/shapes")
print("training on version", ds.version, "rows", len(ds))
train = ds.query("""SELECT * WHERE "split" = 'train'""")
val = ds.query("""SELECT * WHERE "split" = 'val'""")


def to_tensors(row):
    image = torch.from_numpy(np.asarray(row["images"], dtype=np.float32) / 255).permute(2, 0, 1)
    return image, int(row["labels"])


train_loader = DataLoader(train.pytorch(transform=to_tensors), batch_size=16, shuffle=True)
val_loader = DataLoader(val.pytorch(transform=to_tensors), batch_size=64)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, padding=1),
                            torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                            torch.nn.Linear(16 * 8 * 8, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
Path("checkpoints").mkdir(exist_ok=True)
Path("logs").mkdir(exist_ok=True)
best = -1.0
with open("logs/train_metrics.csv", "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["epoch", "train_loss", "val_acc"])
    for epoch in range(8):
        model.train()
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            right = sum(int((model(x).argmax(1) == y).sum()) for x, y in val_loader)
        acc = right / len(val)
        log.writerow([epoch, f"{loss.item():.4f}", f"{acc:.4f}"])
        state = {"epoch": epoch, "model": model.state_dict(),
                 "optimizer": optimizer.state_dict(), "val_acc": acc,
                 "dataset_version": ds.version}
        torch.save(state, "checkpoints/last.pt")
        print(f"epoch {epoch}: loss {loss.item():.3f} val_acc {acc:.3f} -> checkpoints/last.pt")
        if acc > best:
            best = acc
            torch.save(state, "checkpoints/best.pt")
            print(f"epoch {epoch}: new best val_acc {acc:.3f} -> checkpoints/best.pt")
'''


def _shapes(folder: Path, n: int, seed: int) -> None:
    import numpy as np
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(seed)
    for i in range(n):
        name = CLASSES[i % 3]
        image = Image.new("RGB", (32, 32), tuple(int(v) for v in rng.integers(0, 80, 3)))
        draw = ImageDraw.Draw(image)
        x, y = (int(v) for v in rng.integers(10, 22, 2))
        r = int(rng.integers(5, 9))
        color = tuple(int(v) for v in rng.integers(150, 256, 3))
        if name == "circle":
            draw.ellipse([x - r, y - r, x + r, y + r], fill=color)
        elif name == "square":
            draw.rectangle([x - r, y - r, x + r, y + r], fill=color)
        else:
            draw.polygon([(x, y - r), (x - r, y + r), (x + r, y + r)], fill=color)
        out = folder / name / f"{seed}_{i:03d}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        image.save(out)


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    import torch

    _shapes(Path("data/raw/shapes/batch1"), 90, 1)
    _shapes(Path("data/raw/shapes/batch2"), 45, 2)
    for name, text in [("ingest.py", INGEST), ("append.py", APPEND),
                       ("relabel.py", RELABEL), ("train.py", TRAIN)]:
        Path(name).write_text(text)
    assert "created 90 rows" in _run("ingest.py")
    assert "now 135" in _run("append.py", "batch2")
    out = _run("relabel.py")
    assert out.count("history") == 4, out
    out = _run("train.py")
    lines = out.splitlines()
    assert sum("-> checkpoints/last.pt" in line for line in lines) == 8, out
    bests = [line for line in lines if "new best" in line]
    best_epoch = int(bests[-1].split()[1].rstrip(":"))
    saved = {p: torch.load(p, weights_only=False) for p in
             ("checkpoints/best.pt", "checkpoints/last.pt")}
    assert saved["checkpoints/best.pt"]["epoch"] == best_epoch
    assert saved["checkpoints/last.pt"]["epoch"] == 7
    return [{"run": "python train.py", "best": "checkpoints/best.pt",
             "latest": "checkpoints/last.pt",
             "evidence": "Deep Lake stores and versions data and has no notion of a model "
                         "checkpoint; the user's train.py printed "
                         f"'{bests[-1]}' (its last new best; the file holds epoch "
                         f"{best_epoch}) and 'epoch 7: ... -> checkpoints/last.pt' after the "
                         "final epoch, overwriting last.pt every epoch"}]


def label(path: str) -> str:
    if path.startswith("data/deeplake/") and path.endswith(".lock"):
        return "cache"
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "deeplake", tool="deeplake",
           kind="versioned local Deep Lake 4 dataset (images + labels), read by a torch loop",
           command="python ingest.py (deeplake.create('data/deeplake/shapes'), commit "
                   "'import batch1', tag v1.0); python append.py batch2 (commit, tag v1.1); "
                   "python relabel.py (commit); python train.py (ds.query(...).pytorch() in a "
                   "DataLoader, 8 epochs, checkpoints/last.pt and best.pt, "
                   "logs/train_metrics.csv)")
