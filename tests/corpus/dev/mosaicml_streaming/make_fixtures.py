"""MosaicML Streaming: a toy image-classification dataset written as MDS shards, then read
back through ``StreamingDataset`` from its "remote" (a folder standing for the bucket) into
a local cache, CPU, seconds.

    /work/venvs/tools-corpus/bin/pip install mosaicml-streaming numpy
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/mosaicml_streaming/make_fixtures.py

``MDSWriter(out="data/mds/train", columns={"image": "bytes", "label": "int"},
compression="zstd", size_limit=1 << 20)`` writes ``index.json`` and
``shard.<NNNNN>.mds.zstd`` files: the dataset. ``StreamingDataset(remote="data/mds/train",
local="local/train")`` (its docs name the variables remote and local) iterated once copies
``index.json`` and each shard into the local folder, decompressed (``shard.<NNNNN>.mds``): a
regenerable copy of the remote, the cache the issue's "local caches of streaming dataset
shards" means."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def _without_torchvision() -> None:
    """streaming's package imports its vision datasets, which import torchvision; PyPI's
    torchvision does not load beside this machine's torch 2.13 wheel. Neither MDSWriter nor
    StreamingDataset uses it, so a stand-in module lets the package import."""
    import importlib.machinery
    import types

    names = ("torchvision", "torchvision.datasets", "torchvision.transforms",
             "torchvision.transforms.functional")
    for name in names:
        module = types.ModuleType(name)
        module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        module.__path__ = []  # type: ignore[attr-defined]
        sys.modules.setdefault(name, module)
    stand_ins = {"VisionDataset": object, "CIFAR10": object, "to_tensor": None}
    for name in names[1:]:
        for attr, value in stand_ins.items():
            setattr(sys.modules[name], attr, value)


def run(work: Path) -> list[dict[str, object]]:
    _without_torchvision()
    import numpy as np
    from streaming import MDSWriter, StreamingDataset

    rng = np.random.default_rng(0)
    with MDSWriter(out="data/mds/train", columns={"image": "bytes", "label": "int"},
                   compression="zstd", size_limit=1 << 20) as writer:
        for i in range(1200):
            writer.write({"image": rng.integers(0, 256, 32 * 32 * 3, dtype=np.uint8).tobytes(),
                          "label": int(i % 10)})
    dataset = StreamingDataset(remote=str(work / "data/mds/train"),
                               local=str(work / "local/train"), shuffle=False,
                               batch_size=32)
    print(sum(1 for _ in dataset), "samples streamed")
    return []


def label(path: str) -> str:
    return "cache" if path.startswith("local/") else "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "mosaicml-streaming",
           tool="MosaicML Streaming", kind="dataset format, streaming cache",
           command="MDSWriter(out='data/mds/train', compression='zstd'); StreamingDataset("
                   "remote='data/mds/train', local='local/train') iterated once")
