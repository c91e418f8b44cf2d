"""TileDB: the user's ``ingest.py`` turns the user's raw data into TileDB arrays inside a TileDB
group ``data/project.tdb``: a dense 3-D array ``images`` (a stack of 32x32 grey images from
``data/raw/images.npy``, tiled 8x32x32, zstd-compressed) and a sparse 2-D array ``ratings``
(user x item -> rating from ``data/raw/ratings.csv``), with array metadata; ``relabel.py``
then rewrites a slice of the dense array and appends new ratings (a second fragment each),
and ``consolidate.py`` consolidates and vacuums the sparse array's fragments, as TileDB's
docs describe.

    python3.11 -m venv /tmp/h8/tiledb/venv
    /tmp/h8/tiledb/venv/bin/pip install --only-binary=:all: tiledb
    /tmp/h8/tiledb/venv/bin/python tests/corpus/heldout8/tiledb/make_fixtures.py

``python ingest.py``, ``python relabel.py``, ``python consolidate.py``, then ``python
train.py`` reads both arrays back (a nearest-centroid toy model, saved with NumPy).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

INGEST = '''"""Ingest the raw data into the project's TileDB group: python ingest.py"""
import numpy as np
import tiledb

GROUP = "data/project.tdb"

images = np.load("data/raw/images.npy")
table = np.loadtxt("data/raw/ratings.csv", delimiter=",", skiprows=1)

tiledb.Group.create(GROUP)

dense = tiledb.ArraySchema(
    domain=tiledb.Domain(
        tiledb.Dim("n", domain=(0, images.shape[0] - 1), tile=8, dtype=np.uint32),
        tiledb.Dim("y", domain=(0, 31), tile=32, dtype=np.uint32),
        tiledb.Dim("x", domain=(0, 31), tile=32, dtype=np.uint32)),
    attrs=[tiledb.Attr("pixel", dtype=np.uint8, filters=[tiledb.ZstdFilter(level=5)])],
    sparse=False)
tiledb.Array.create(f"{GROUP}/images", dense)
with tiledb.open(f"{GROUP}/images", "w") as A:
    A[:] = images
    A.meta["source"] = "data/raw/images.npy"
    A.meta["label_every"] = 16

sparse = tiledb.ArraySchema(
    domain=tiledb.Domain(
        tiledb.Dim("user", domain=(0, 999), tile=100, dtype=np.uint32),
        tiledb.Dim("item", domain=(0, 499), tile=100, dtype=np.uint32)),
    attrs=[tiledb.Attr("rating", dtype=np.float32)],
    sparse=True, allows_duplicates=False)
tiledb.Array.create(f"{GROUP}/ratings", sparse)
with tiledb.open(f"{GROUP}/ratings", "w") as A:
    A[table[:, 0].astype(np.uint32), table[:, 1].astype(np.uint32)] = table[:, 2].astype(
        np.float32)

with tiledb.Group(GROUP, "w") as g:
    g.add("images", relative=True)
    g.add("ratings", relative=True)
    g.meta["project"] = "shapes-and-ratings"
print("ingested", images.shape, len(table))
'''

RELABEL = '''"""Fix a batch of images and add the week's new ratings: python relabel.py"""
import numpy as np
import tiledb

GROUP = "data/project.tdb"
rng = np.random.default_rng(1)

with tiledb.open(f"{GROUP}/images", "w") as A:
    A[16:24, :, :] = np.zeros((8, 32, 32), dtype=np.uint8)
with tiledb.open(f"{GROUP}/ratings", "w") as A:
    users = rng.integers(0, 1000, 200).astype(np.uint32)
    items = rng.integers(0, 500, 200).astype(np.uint32)
    keep = np.unique(users.astype(np.int64) * 500 + items, return_index=True)[1]
    A[users[keep], items[keep]] = rng.integers(1, 6, len(keep)).astype(np.float32)
print("updated")
'''

CONSOLIDATE = '''"""Compact the ratings array: python consolidate.py"""
import tiledb

uri = "data/project.tdb/ratings"
print("fragments before", len(tiledb.array_fragments(uri)))
tiledb.consolidate(uri)
tiledb.vacuum(uri)
print("fragments after", len(tiledb.array_fragments(uri)))
'''

TRAIN = '''"""Toy model from the arrays: python train.py"""
import numpy as np
import tiledb

with tiledb.open("data/project.tdb/images") as A:
    images = A[:]["pixel"].astype(np.float32) / 255
with tiledb.open("data/project.tdb/ratings") as A:
    ratings = A[:]
labels = (np.arange(len(images)) // 16) % 2
centroids = np.stack([images[labels == k].mean(0) for k in (0, 1)])
np.savez("models/centroids.npz", centroids=centroids,
         mean_rating=ratings["rating"].mean())
print("saved models/centroids.npz")
'''


def _raw(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:32, 0:32]
    images = []
    for i in range(64):
        cy, cx, r = rng.integers(8, 24), rng.integers(8, 24), rng.integers(3, 8)
        disk = ((yy - cy) ** 2 + (xx - cx) ** 2 < r * r) if (i // 16) % 2 else (
            (abs(yy - cy) < r) & (abs(xx - cx) < r))
        images.append((disk * 200 + rng.integers(0, 40, (32, 32))).astype(np.uint8))
    folder.mkdir(parents=True)
    np.save(folder / "images.npy", np.stack(images))
    pairs = rng.choice(1000 * 500, 1500, replace=False)
    rows = [f"{p // 500},{p % 500},{rng.integers(1, 6)}" for p in pairs]
    (folder / "ratings.csv").write_text("user,item,rating\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _raw(Path("data/raw"))
    Path("models").mkdir()
    scripts = {"ingest.py": INGEST, "relabel.py": RELABEL, "consolidate.py": CONSOLIDATE,
               "train.py": TRAIN}
    for name, text in scripts.items():
        Path(name).write_text(text)
    for name in scripts:
        done = subprocess.run([sys.executable, name], capture_output=True, text=True,
                              check=True)
        sys.stderr.write(done.stdout + done.stderr)
    assert done.stdout.strip() == "saved models/centroids.npz", done.stdout
    return [{"run": "python ingest.py; python relabel.py; python consolidate.py; python train.py",
             "best": None, "latest": "models/centroids.npz",
             "evidence": "TileDB is an array storage engine with no notion of a model "
                         "checkpoint; the user's train.py np.savez'd its one model and printed "
                         "'saved models/centroids.npz'"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "tiledb", tool="tiledb",
           kind="array storage engine (dense and sparse arrays in a group, fragments)",
           command="python ingest.py (tiledb.Group.create('data/project.tdb'), a dense "
                   "images and a sparse ratings array); python relabel.py (a second fragment "
                   "each); python consolidate.py (tiledb.consolidate and vacuum of ratings); "
                   "python train.py")
