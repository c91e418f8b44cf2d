"""ArrayRecord: a small image-classification dataset written as sharded ArrayRecord files
(the random-access record format Grain and TFDS read), as its Python writer writes them.

    /work/venvs/tools/bin/pip install array-record numpy
    /work/venvs/tools/bin/python tests/corpus/heldout2/array_record/make_fixtures.py

``ArrayRecordWriter("data/train.array_record-0000N-of-00004", "group_size:1")`` per shard,
each record a serialized 32x32 RGB image and its label; a small ``data/features.json``
describes the records, as a dataset builder writes it beside its shards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SHARDS = 4


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    from array_record.python.array_record_module import ArrayRecordWriter

    rng = np.random.default_rng(0)
    (work / "data").mkdir()
    for shard in range(SHARDS):
        writer = ArrayRecordWriter(
            f"data/train.array_record-{shard:05d}-of-{SHARDS:05d}", "group_size:1")
        for _ in range(250):
            image = rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
            writer.write(bytes([int(rng.integers(10))]) + image.tobytes())
        writer.close()
    (work / "data" / "features.json").write_text(json.dumps(
        {"image": {"shape": [32, 32, 3], "dtype": "uint8"}, "label": {"num_classes": 10},
         "splits": {"train": {"shards": SHARDS, "examples": 250 * SHARDS}}}, indent=1))
    return []


def label(path: str) -> str:
    return "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "array-record", tool="ArrayRecord",
           kind="dataset format",
           command="ArrayRecordWriter('data/train.array_record-0000N-of-00004', "
                   "'group_size:1').write(label + image bytes) x 250 per shard")
