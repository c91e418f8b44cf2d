"""tfrecord: a PyTorch user without TensorFlow packs the user's small image set
(``data/raw/digits/*.pgm`` and ``labels.csv``, toy 16x16 glyphs here) into TFRecord shards
with the ``tfrecord`` package (``TFRecordWriter``, TensorFlow's ``<split>-<i>-of-<n>``
shard names), writes their index files with the package's documented tool
(``python -m tfrecord.tools.tfrecord2idx <dir>``: a ``.tfindex`` beside each ``.tfrecord``),
and reads them back in ``train.py`` with ``MultiTFRecordDataset`` (which needs the index
files) in a torch ``DataLoader`` for a tiny logistic-regression fit.

    python3.11 -m venv /tmp/h9/tfrecord/venv
    /tmp/h9/tfrecord/venv/bin/pip install tfrecord numpy torch==2.13.0 protobuf==3.20.3
    /tmp/h9/tfrecord/venv/bin/python tests/corpus/heldout10/tfrecord/make_fixtures.py

(tfrecord 1.14.4 imports torch at import time, and its generated ``example_pb2.py`` needs
protobuf 3.20 or older.) ``python write_shards.py`` (4 train shards, 1 validation shard),
``python -m tfrecord.tools.tfrecord2idx data/tfrecords``, ``python train.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

WRITE = '''"""Pack data/raw/digits into TFRecord shards: python write_shards.py"""
import csv
from pathlib import Path

import tfrecord

rows = list(csv.DictReader(open("data/raw/digits/labels.csv")))
out = Path("data/tfrecords")
out.mkdir(parents=True, exist_ok=True)
splits = {"train": rows[:200], "validation": rows[200:]}
for split, items in splits.items():
    n = 4 if split == "train" else 1
    for i in range(n):
        path = out / f"{split}-{i:05d}-of-{n:05d}.tfrecord"
        writer = tfrecord.TFRecordWriter(str(path))
        for row in items[i::n]:
            image = Path("data/raw/digits", row["file"]).read_bytes().split(b"\\n", 3)[3]
            writer.write({"image": (image, "byte"), "label": (int(row["label"]), "int"),
                          "name": (row["file"].encode(), "byte")})
        writer.close()
        print("wrote", path, len(items[i::n]), "examples")
'''

TRAIN = '''"""Fit a softmax classifier on the TFRecord shards: python train.py"""
import numpy as np
import torch
from tfrecord.torch.dataset import MultiTFRecordDataset



def decode(example):
    example["image"] = np.frombuffer(example["image"], dtype=np.uint8).copy()
    return example


shards = {f"train-{i:05d}-of-00004": 0.25 for i in range(4)}
dataset = MultiTFRecordDataset("data/tfrecords/{}.tfrecord", "data/tfrecords/{}.tfindex",
                               shards, description={"image": "byte", "label": "int"},
                               shuffle_queue_size=64, transform=decode, infinite=False)
model = torch.nn.Linear(256, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    seen = 0
    for batch in torch.utils.data.DataLoader(dataset, batch_size=32):
        x = batch["image"].float() / 255
        y = batch["label"].view(-1).long()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen += len(y)
    print(f"epoch {epoch}: {seen} examples, loss {loss.item():.3f}")
'''


def _digits(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    folder.mkdir(parents=True)
    lines = ["file,label"]
    for n in range(240):
        digit = int(rng.integers(0, 10))
        image = np.zeros((16, 16))
        image[3:13, 4 + digit % 5:6 + digit % 5] = 1
        image[2 + digit // 2: 4 + digit // 2, 3:13] = 1
        image = np.clip(image * 220 + rng.normal(20, 15, (16, 16)), 0, 255).astype(np.uint8)
        name = f"{n:04d}.pgm"
        (folder / name).write_bytes(b"P5\n16 16\n255\n" + image.tobytes())
        lines.append(f"{name},{digit}")
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _digits(Path("data/raw/digits"))
    Path("write_shards.py").write_text(WRITE)
    Path("train.py").write_text(TRAIN)
    assert _run("write_shards.py").count("wrote") == 5
    _run("-m", "tfrecord.tools.tfrecord2idx", "data/tfrecords")
    assert len(list(Path("data/tfrecords").glob("*.tfindex"))) == 5
    assert "epoch 2: 200 examples" in _run("train.py")
    return [{"run": "python train.py", "best": None, "latest": None,
             "evidence": "tfrecord only writes and reads data shards; train.py saves no "
                         "model, and the tool has no notion of a checkpoint"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "tfrecord", tool="tfrecord",
           kind="TFRecord shards without TensorFlow (tfrecord package, with index files)",
           command="python write_shards.py (tfrecord.TFRecordWriter -> data/tfrecords/"
                   "{train-0000i-of-00004,validation-00000-of-00001}.tfrecord); python -m "
                   "tfrecord.tools.tfrecord2idx data/tfrecords (a .tfindex per shard); python "
                   "train.py (MultiTFRecordDataset with the index files, 3 epochs)")
