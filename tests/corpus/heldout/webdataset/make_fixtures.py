"""WebDataset: a toy image-classification dataset written as tar shards with its
``ShardWriter``, then read back through ``WebDataset`` with a shard cache, CPU, seconds.

    /work/venvs/tools-corpus/bin/pip install webdataset numpy
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/webdataset/make_fixtures.py

``ShardWriter("data/shards/train-%06d.tar", maxcount=200)`` writes the shards (each
sample a ``.png`` and a ``.cls`` member): the dataset. ``WebDataset("pipe:cat
data/shards/train-{000000..000002}.tar", cache_dir="wds-cache")`` iterated once keeps a
copy of each shard it streamed in ``cache_dir``, named after the URL: a regenerable copy
of remote shards.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def _png(rng: object) -> bytes:
    import numpy as np
    from PIL import Image

    pixels = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)  # type: ignore[attr-defined]
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import webdataset as wds

    rng = np.random.default_rng(0)
    (work / "data/shards").mkdir(parents=True)
    (work / "wds-cache").mkdir()  # WebDataset wants it made
    with wds.ShardWriter("data/shards/train-%06d.tar", maxcount=200) as sink:
        for i in range(600):
            sink.write({"__key__": f"sample{i:06d}", "png": _png(rng), "cls": i % 10})
    dataset = wds.WebDataset("pipe:cat data/shards/train-{000000..000002}.tar",
                             cache_dir="wds-cache", shardshuffle=False)
    print(sum(1 for _ in dataset), "samples streamed")
    return []


def label(path: str) -> str:
    return "cache" if path.startswith("wds-cache/") else "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "webdataset", tool="WebDataset",
           kind="dataset format, streaming cache",
           command="ShardWriter('data/shards/train-%06d.tar', maxcount=200); WebDataset("
                   "'pipe:cat data/shards/train-{000000..000002}.tar', cache_dir='wds-cache')")
