"""LitData (Lightning's litdata): a toy dataset optimized into its chunk format, then read
through ``StreamingDataset`` from a "remote" (a ``local:`` folder standing for a bucket)
into a local cache, CPU, seconds.

    /work/venvs/tools-corpus/bin/pip install litdata numpy
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/litdata/make_fixtures.py

``optimize(fn, inputs, output_dir="data/optimized", chunk_bytes="256KB")`` writes
``chunk-<worker>-<n>.bin`` files and ``index.json``: the dataset.
``StreamingDataset("local:" + <that folder>, cache_dir="chunks")`` iterated once copies the
index and each chunk it reads into ``cache_dir`` (its default is ``~/.lightning/chunks``;
the folder is named here after it, in the project): a regenerable copy of the remote.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def sample(index: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(index)
    return {"index": index, "image": rng.integers(0, 256, (32, 32, 3), dtype=np.uint8),
            "label": index % 10}


def run(work: Path) -> list[dict[str, object]]:
    from litdata import StreamingDataset, optimize

    optimize(fn=sample, inputs=list(range(600)), output_dir=str(work / "data/optimized"),
             chunk_bytes="256KB", num_workers=1)
    dataset = StreamingDataset(f"local:{work / 'data/optimized'}", cache_dir=str(work / "chunks"))
    print(sum(1 for _ in dataset), "samples streamed")
    return []


def label(path: str) -> str:
    return "cache" if path.startswith("chunks/") else "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "litdata", tool="LitData",
           kind="dataset format, streaming cache",
           command="optimize(fn, range(600), output_dir='data/optimized', chunk_bytes='256KB');"
                   " StreamingDataset('local:data/optimized', cache_dir='chunks') iterated once")
