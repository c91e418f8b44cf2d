"""polars: the Rust-backed DataFrame library, as a data scientist uses it for the feature
pipeline of a small churn model (with pyarrow for one dataset write and scikit-learn for
the model):

- ``python pipeline.py``: ``pl.read_csv`` of the toy raw event log
  ``data/raw/events.csv``; cleans and types it and writes it as a hive-partitioned Parquet
  dataset with ``DataFrame.write_parquet(..., partition_by=["country", "month"])``
  (``data/processed/events/country=<c>/month=<m>/*.parquet``); builds one row of features
  per user and writes it as an Arrow IPC / Feather v2 file (``write_ipc``,
  ``data/features/user_features.arrow``, lz4) and, split into train/valid, as a pyarrow
  hive dataset (``pyarrow.parquet.write_to_dataset(..., partition_cols=["split"])``,
  ``data/features/splits/split=<s>/<uuid>-0.parquet``); and a lazy query
  (``pl.scan_parquet(..., hive_partitioning=True)`` -> group_by -> ``sink_parquet``) of
  daily revenue per country into ``data/aggregates/daily_country_revenue.parquet``.
- ``python train.py``: reads the split features back with ``pl.scan_parquet``, trains a
  scikit-learn ``SGDClassifier`` (logistic loss) for 10 epochs with ``partial_fit``,
  saving a joblib checkpoint per epoch into ``models/`` and ``models/best.joblib`` on a
  new best validation log-loss, and writes the per-epoch metrics with polars
  (``reports/metrics.csv``, ``reports/metrics.json``).

    python3 -m venv /tmp/h12/polars/venv
    /tmp/h12/polars/venv/bin/pip install polars pyarrow numpy scikit-learn
    /tmp/h12/polars/venv/bin/python tests/corpus/heldout12/polars/make_fixtures.py

(polars 2.1.0, pyarrow 26.0.1, scikit-learn 1.9.1.) Toy data is made locally.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PIPELINE = '''"""Feature pipeline: raw events CSV -> partitioned Parquet, features, aggregates."""
import os

import polars as pl
import pyarrow.parquet as pq

raw = pl.read_csv("data/raw/events.csv", try_parse_dates=True)
events = (
    raw.drop_nulls(["user_id", "amount"])
    .with_columns(pl.col("ts").dt.date().alias("day"),
                  pl.col("ts").dt.strftime("%Y-%m").alias("month"),
                  pl.col("amount").cast(pl.Float32))
)
events.write_parquet("data/processed/events", partition_by=["country", "month"], mkdir=True)
print(f"wrote {events.height} events to data/processed/events/ (hive: country, month)")

features = (
    events.group_by("user_id")
    .agg(pl.len().alias("n_events"),
         pl.col("amount").sum().alias("total_amount"),
         pl.col("amount").mean().alias("mean_amount"),
         (pl.col("event") == "support").sum().alias("n_support"),
         pl.col("day").n_unique().alias("active_days"),
         pl.col("churned").first())
    .sort("user_id")
    .with_columns(pl.when(pl.col("user_id").hash(seed=0) % 5 == 0)
                  .then(pl.lit("valid")).otherwise(pl.lit("train")).alias("split"))
)
os.makedirs("data/features", exist_ok=True)
features.write_ipc("data/features/user_features.arrow", compression="lz4")
pq.write_to_dataset(features.to_arrow(), "data/features/splits", partition_cols=["split"])
print(f"wrote {features.height} user feature rows")

(
    pl.scan_parquet("data/processed/events/**/*.parquet", hive_partitioning=True)
    .group_by("country", "day")
    .agg(pl.col("amount").sum().alias("revenue"), pl.len().alias("events"))
    .sort("country", "day")
    .sink_parquet("data/aggregates/daily_country_revenue.parquet", mkdir=True)
)
print("sank data/aggregates/daily_country_revenue.parquet")
'''

TRAIN = '''"""Train a churn classifier on the polars features, checkpoint every epoch."""
import os

import joblib
import numpy as np
import polars as pl
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import log_loss
from sklearn.preprocessing import StandardScaler

cols = ["n_events", "total_amount", "mean_amount", "n_support", "active_days"]
feats = pl.scan_parquet("data/features/splits/**/*.parquet", hive_partitioning=True)
train = feats.filter(pl.col("split") == "train").collect()
valid = feats.filter(pl.col("split") == "valid").collect()
scaler = StandardScaler().fit(train.select(cols).to_numpy())
x, y = scaler.transform(train.select(cols).to_numpy()), train["churned"].to_numpy()
vx, vy = scaler.transform(valid.select(cols).to_numpy()), valid["churned"].to_numpy()
os.makedirs("models", exist_ok=True)
os.makedirs("reports", exist_ok=True)
clf = SGDClassifier(loss="log_loss", learning_rate="constant", eta0=0.3, random_state=0)
rng = np.random.default_rng(0)
rows, best = [], float("inf")
for epoch in range(1, 11):
    for idx in np.array_split(rng.permutation(len(x)), 4):
        clf.partial_fit(x[idx], y[idx], classes=[0, 1])
    loss = float(log_loss(vy, clf.predict_proba(vx), labels=[0, 1]))
    path = f"models/churn_sgd_epoch{epoch:02d}.joblib"
    joblib.dump({"model": clf, "scaler": scaler, "epoch": epoch, "val_logloss": loss}, path)
    print(f"epoch {epoch} val_logloss {loss:.4f} saved {path}", flush=True)
    if loss < best:
        best = loss
        joblib.dump({"model": clf, "scaler": scaler, "epoch": epoch, "val_logloss": loss},
                    "models/best.joblib")
        print(f"new best val_logloss {loss:.4f} at epoch {epoch}: models/best.joblib",
              flush=True)
    rows.append({"epoch": epoch, "val_logloss": loss, "checkpoint": path})
metrics = pl.DataFrame(rows)
metrics.write_csv("reports/metrics.csv")
metrics.write_json("reports/metrics.json")
'''


def _toy_data() -> None:
    from datetime import datetime, timedelta

    import numpy as np

    rng = np.random.default_rng(7)
    start = datetime(2026, 1, 1)
    Path("data/raw").mkdir(parents=True)
    lines = ["event_id,user_id,ts,country,event,amount,churned"]
    churn = {u: int(rng.random() < 0.35) for u in range(150)}
    for i in range(1500):
        u = int(rng.integers(0, 150))
        day = int(rng.integers(0, 90 if not churn[u] else 45))
        when = start + timedelta(days=day, hours=int(rng.integers(0, 24)))
        ts = when.isoformat()
        country = ["DE", "FR", "US"][u % 3]
        event = rng.choice(["view", "purchase", "support"], p=[.6, .3, .1])
        amount = f"{rng.gamma(2, 15):.2f}" if event == "purchase" else "0"
        if rng.random() < 0.01:
            amount = ""
        lines.append(f"{i},{u},{ts},{country},{event},{amount},{churn[u]}")
    Path("data/raw/events.csv").write_text("\n".join(lines) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _toy_data()
    Path("pipeline.py").write_text(PIPELINE)
    Path("train.py").write_text(TRAIN)
    done = subprocess.run([sys.executable, "pipeline.py"], capture_output=True, text=True,
                          timeout=600)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "sank data/aggregates/daily_country_revenue.parquet" in done.stdout, done.stdout
    assert list(Path("data/processed/events").glob("country=*/month=*/*.parquet"))
    assert list(Path("data/features/splits").glob("split=valid/*.parquet"))
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True,
                          timeout=600)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.stderr[-3000:]
    saved = re.findall(r"saved (\S+\.joblib)$", done.stdout, re.M)
    bests = re.findall(r"new best val_logloss \S+ at epoch (\d+): (\S+)$", done.stdout, re.M)
    assert len(saved) == 10 and saved[-1] == "models/churn_sgd_epoch10.joblib", saved
    metrics = json.loads(Path("reports/metrics.json").read_text())
    assert metrics[-1]["checkpoint"] == saved[-1], metrics
    best_epoch = int(bests[-1][0])
    return [{"run": "python train.py", "best": bests[-1][1], "latest": saved[-1],
             "evidence": "polars has no notion of a checkpoint; the user's train.py prints "
                         f"'saved ...' per epoch (last: {saved[-1]}, also the last row of "
                         "reports/metrics.json) and 'new best val_logloss ... at epoch "
                         f"{best_epoch}: {bests[-1][1]}' (its last new best)"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("reports/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "polars", tool="polars",
           kind="DataFrame library (hive-partitioned Parquet, Arrow IPC, sink_parquet)",
           command="python pipeline.py (read_csv, write_parquet(partition_by=[country, "
                   "month]), write_ipc, pyarrow write_to_dataset(partition_cols=[split]), "
                   "scan_parquet...sink_parquet); python train.py")
