"""Delta Lake (the ``deltalake`` Python package, delta-rs): a feature table for training,
partitioned by split, written with ``write_deltalake`` as its docs show it: created, appended
to twice, overwritten once, appended again, then a checkpoint of its log and a compaction
(``optimize.compact``); the user reads an earlier version back by time travel.

    /work/venvs/tools-b/bin/pip install deltalake pyarrow pandas
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/deltalake/make_fixtures.py

The table ``data/features/`` holds Parquet part files under ``split=train/`` and
``split=valid/`` and the transaction log ``_delta_log/``: one ``<version>.json`` commit a
write (version 0 to 5 here, the compaction the last), ``<version>.checkpoint.parquet`` and
``_last_checkpoint`` from ``create_checkpoint``. The overwrite and the compaction only mark
the older part files removed in the log (time travel still reads them) until a ``vacuum``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

if TYPE_CHECKING:
    import pandas as pd

TABLE = "data/features"


def batch(seed: int, rows: int) -> pd.DataFrame:
    """One write's rows: random features and labels, four in five in the train split."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"user_id": rng.integers(0, 10_000, rows),
                          "clicks_7d": rng.poisson(3.0, rows).astype("int64"),
                          "spend_30d": rng.gamma(2.0, 15.0, rows).round(2),
                          "label": rng.integers(0, 2, rows).astype("int8")})
    frame["split"] = np.where(rng.random(rows) < 0.8, "train", "valid")
    return frame


def run(work: Path) -> list[dict[str, object]]:
    from deltalake import DeltaTable, write_deltalake

    write_deltalake(TABLE, batch(0, 400), partition_by=["split"])
    write_deltalake(TABLE, batch(1, 200), mode="append")
    write_deltalake(TABLE, batch(2, 200), mode="append")
    write_deltalake(TABLE, batch(3, 500), mode="overwrite")
    write_deltalake(TABLE, batch(4, 300), mode="append")
    table = DeltaTable(TABLE)
    table.create_checkpoint()
    table.optimize.compact()
    first = DeltaTable(TABLE, version=0).to_pandas()
    print(f"version {DeltaTable(TABLE).version()}, {len(DeltaTable(TABLE).to_pandas())} rows; "
          f"version 0 had {len(first)} rows")
    return []


def label(path: str) -> str:
    return "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "deltalake", tool="Delta Lake",
           kind="dataset format (table)",
           command="write_deltalake('data/features', df, partition_by=['split']); "
                   "mode='append' twice; mode='overwrite'; mode='append'; "
                   "DeltaTable(...).create_checkpoint(); .optimize.compact()")
