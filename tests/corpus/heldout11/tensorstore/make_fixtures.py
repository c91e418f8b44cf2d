"""tensorstore: a connectomics / bioimaging user keeps a toy EM volume and the features
computed from it in chunked array stores with Google's TensorStore (its ``n5``, ``zarr``
(v2) and ``zarr3`` drivers over the local ``file`` kvstore). The user's raw data is the
microscope export ``data/raw/em_volume.npy`` (a 32x64x64 uint8 toy volume here).

    python3.11 -m venv /tmp/h11/tensorstore/venv
    /tmp/h11/tensorstore/venv/bin/pip install tensorstore numpy
    /tmp/h11/tensorstore/venv/bin/python tests/corpus/heldout11/tensorstore/make_fixtures.py

``python ingest.py`` (the volume into N5, ``data/em.n5/raw/s0``, gzip, 16x32x32 blocks, then
a mean-downsampled pyramid ``s1``, ``s2`` written from ``ts.downsample`` views),
``python features.py`` (4 feature channels of s0 into a sharded Zarr v3 array
``features/em_feats.zarr``: shards of the whole volume, inner chunks 1x16x32x32, zstd),
``python embed.py`` (64-d embeddings of the 8x8x8 patches, a toy random-projection encoder,
into a Zarr v2 array ``features/patch_emb.zarr`` (blosc-lz4, chunks of 64 rows), and an
L2-normalised copy computed from it, ``features/patch_emb_l2.zarr``), ``python search.py``
(nearest neighbours of a patch by cosine similarity, read from the normalised copy).
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

INGEST = '''"""Convert the raw EM export to a multiscale N5 volume: python ingest.py"""
import numpy as np
import tensorstore as ts

volume = np.load("data/raw/em_volume.npy")
level = ts.open({"driver": "n5",
                 "kvstore": {"driver": "file", "path": "data/em.n5/raw/s0"},
                 "metadata": {"dimensions": list(volume.shape), "blockSize": [16, 32, 32],
                              "dataType": "uint8", "compression": {"type": "gzip"}}},
                create=True, delete_existing=True).result()
level.write(volume).result()
print("wrote data/em.n5/raw/s0", level.shape)
for s in (1, 2):
    down = ts.downsample(level, [2, 2, 2], "mean")
    level = ts.open({"driver": "n5",
                     "kvstore": {"driver": "file", "path": f"data/em.n5/raw/s{s}"},
                     "metadata": {"dimensions": list(down.shape), "blockSize": [16, 32, 32],
                                  "dataType": "uint8", "compression": {"type": "gzip"}}},
                    create=True, delete_existing=True).result()
    level.write(down).result()
    print(f"wrote data/em.n5/raw/s{s}", level.shape)
'''

FEATURES = '''"""Per-voxel feature maps of the volume, into a sharded Zarr v3 array: python features.py"""
import numpy as np
import tensorstore as ts

raw = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": "data/em.n5/raw/s0"}},
              open=True).result()
x = raw.read().result().astype(np.float32) / 255
smooth = x.copy()
for axis in range(3):
    smooth = (np.roll(smooth, 1, axis) + smooth + np.roll(smooth, -1, axis)) / 3
gz, gy, gx = np.gradient(smooth)
feats = np.stack([smooth, np.abs(gz), np.abs(gy), np.abs(gx)])
store = ts.open({"driver": "zarr3",
                 "kvstore": {"driver": "file", "path": "features/em_feats.zarr"},
                 "metadata": {
                     "shape": list(feats.shape), "data_type": "float32",
                     "dimension_names": ["c", "z", "y", "x"],
                     "chunk_grid": {"name": "regular",
                                    "configuration": {"chunk_shape": list(feats.shape)}},
                     "codecs": [{"name": "sharding_indexed", "configuration": {
                         "chunk_shape": [1, 16, 32, 32],
                         "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                    {"name": "zstd", "configuration": {"level": 3}}]}}]}},
                create=True, delete_existing=True).result()
store.write(feats).result()
print("wrote features/em_feats.zarr", store.shape, store.dtype)
'''

EMBED = '''"""Patch embeddings (Zarr v2) and their L2-normalised copy: python embed.py"""
import numpy as np
import tensorstore as ts

raw = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": "data/em.n5/raw/s0"}},
              open=True).result()
x = raw.read().result().astype(np.float32) / 255
z, y, w = (n // 8 for n in x.shape)
patches = x.reshape(z, 8, y, 8, w, 8).transpose(0, 2, 4, 1, 3, 5).reshape(z * y * w, 512)
encoder = np.random.default_rng(0).normal(0, 512 ** -0.5, (512, 64)).astype(np.float32)
emb = np.tanh((patches - patches.mean(0)) @ encoder)


def zarr2(path, shape):
    return ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": path},
                    "metadata": {"compressor": {"id": "blosc", "cname": "lz4", "clevel": 5,
                                                "shuffle": 1}}},
                   dtype=ts.float32, shape=shape,
                   chunk_layout=ts.ChunkLayout(chunk_shape=[64, shape[1]]),
                   create=True, delete_existing=True).result()


store = zarr2("features/patch_emb.zarr", emb.shape)
store.write(emb).result()
print("wrote features/patch_emb.zarr", store.shape)
source = ts.open({"driver": "zarr", "kvstore": {"driver": "file",
                                                "path": "features/patch_emb.zarr"}}).result()
emb = source.read().result()
normed = emb / np.linalg.norm(emb, axis=1, keepdims=True)
copy = zarr2("features/patch_emb_l2.zarr", normed.shape)
copy.write(normed).result()
print("wrote features/patch_emb_l2.zarr", copy.shape)
'''

SEARCH = '''"""Nearest patches to patch 0 by cosine similarity: python search.py"""
import numpy as np
import tensorstore as ts

emb = ts.open({"driver": "zarr", "kvstore": {"driver": "file",
                                             "path": "features/patch_emb_l2.zarr"}}).result()
vectors = emb.read().result()
scores = vectors @ vectors[0]
print("neighbours of patch 0:", np.argsort(-scores)[1:6].tolist())
'''


def _volume(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    zz, yy, xx = np.mgrid[0:32, 0:64, 0:64]
    volume = np.full((32, 64, 64), 40.0)
    for _ in range(12):
        cz, cy, cx = rng.uniform(0, 32), rng.uniform(0, 64), rng.uniform(0, 64)
        r = rng.uniform(4, 10)
        inside = (zz - cz) ** 2 + (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        volume[inside] = rng.uniform(120, 220)
    volume += rng.normal(0, 12, volume.shape)
    path.parent.mkdir(parents=True)
    np.save(path, np.clip(volume, 0, 255).astype(np.uint8))


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _volume(Path("data/raw/em_volume.npy"))
    for name, text in [("ingest.py", INGEST), ("features.py", FEATURES),
                       ("embed.py", EMBED), ("search.py", SEARCH)]:
        Path(name).write_text(text)
    out = _run("ingest.py")
    assert "raw/s2 (8, 16, 16)" in out, out
    assert "(4, 32, 64, 64) dtype(\"float32\")" in _run("features.py")
    out = _run("embed.py")
    assert "patch_emb.zarr (256, 64)" in out and "patch_emb_l2.zarr (256, 64)" in out, out
    assert "neighbours of patch 0" in _run("search.py")
    return []


def label(path: str) -> str:
    if path.startswith(("data/em.n5/raw/s1/", "data/em.n5/raw/s2/",
                        "features/patch_emb_l2.zarr/")):
        return "augmented"
    if path.startswith(("data/", "features/")):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "tensorstore", tool="tensorstore",
           kind="chunked array stores written with TensorStore (n5, zarr v2, zarr3 sharded)",
           command="python ingest.py (n5 data/em.n5/raw/s0 and ts.downsample pyramid s1, "
                   "s2); python features.py (zarr3 sharded features/em_feats.zarr); python "
                   "embed.py (zarr v2 features/patch_emb.zarr and its L2-normalised copy "
                   "features/patch_emb_l2.zarr); python search.py (reads the copy)")
