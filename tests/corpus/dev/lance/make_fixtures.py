"""Lance (pylance): a toy table of text reviews with embeddings written as a Lance dataset,
then appended to (a second version), as its quick start does.

    /work/venvs/tools-corpus/bin/pip install pylance pyarrow numpy
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/lance/make_fixtures.py

``lance.write_dataset(table, "data/reviews.lance")`` and ``mode="append"`` write the
dataset folder: ``data/*.lance`` fragments, ``_versions/<n>.manifest`` and
``_transactions/*.txn``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import lance
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(0)

    def table(start: int, n: int) -> pa.Table:
        vectors = rng.normal(size=(n, 64)).astype("float32")
        return pa.table({"id": pa.array(range(start, start + n)),
                         "text": pa.array([f"review number {i}" for i in range(start, start + n)]),
                         "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()),
                                                                     64)})

    lance.write_dataset(table(0, 4000), "data/reviews.lance")
    lance.write_dataset(table(4000, 1000), "data/reviews.lance", mode="append")
    return []


def label(path: str) -> str:
    return "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pylance", tool="Lance",
           kind="dataset format", command="lance.write_dataset(table, 'data/reviews.lance'); "
                                          "lance.write_dataset(more, ..., mode='append')")
