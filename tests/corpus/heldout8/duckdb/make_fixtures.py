"""DuckDB: the user's ``build_db.py`` builds the project database ``warehouse.duckdb`` from the
user's raw CSV exports (``data/raw/``) with DuckDB's ``read_csv``, runs the feature query of
``sql/features.sql`` into a table, and exports the training table to Parquet with ``COPY ...
TO`` (one file, and a Hive-partitioned folder by month), as a user preparing an ML training
set with DuckDB does; it is run twice (a rebuild after new raw data), the second time adding
a day of events with ``INSERT INTO ... SELECT * FROM read_csv(...)``.

    python3.11 -m venv /tmp/h8/duckdb/venv
    /tmp/h8/duckdb/venv/bin/pip install duckdb
    /tmp/h8/duckdb/venv/bin/python tests/corpus/heldout8/duckdb/make_fixtures.py

``python build_db.py`` then ``python build_db.py data/incoming/events_2024-03-31.csv``; then
``review.py`` (hand labels written into a new ``reviews`` table from a notebook) is killed
(SIGKILL, a kernel that died) before it closes the connection, which leaves DuckDB's
write-ahead log ``warehouse.duckdb.wal`` beside the database.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FEATURES = '''-- one row per user and month: activity features and the churn label
CREATE OR REPLACE TABLE features AS
SELECT e.user_id,
       date_trunc('month', e.ts)::DATE AS month,
       count(*) AS n_events,
       count(DISTINCT e.kind) AS n_kinds,
       sum(e.amount) AS spend,
       avg(e.amount) AS mean_amount,
       any_value(u.plan) AS plan,
       any_value(u.country) AS country,
       any_value(u.churned) AS churned
FROM events e JOIN users u USING (user_id)
GROUP BY ALL;
'''

BUILD = '''"""Build the project database and training export: python build_db.py [NEW.csv]"""
import sys
from pathlib import Path

import duckdb

con = duckdb.connect("warehouse.duckdb")
if len(sys.argv) == 1:
    con.execute("CREATE OR REPLACE TABLE users AS SELECT * FROM read_csv('data/raw/users.csv')")
    con.execute("CREATE OR REPLACE TABLE events AS "
                "SELECT * FROM read_csv('data/raw/events_*.csv', union_by_name = true)")
else:
    con.execute(f"INSERT INTO events SELECT * FROM read_csv('{sys.argv[1]}')")
con.execute(Path("sql/features.sql").read_text())
n = con.execute("SELECT count(*) FROM features").fetchone()[0]
con.execute("COPY features TO 'data/processed/features.parquet' (FORMAT parquet)")
con.execute("COPY features TO 'data/processed/features_by_month' "
            "(FORMAT parquet, PARTITION_BY (month), OVERWRITE_OR_IGNORE)")
con.close()
print(f"features: {n} rows")
'''

REVIEW = '''"""Hand review of suspicious accounts (run cell by cell in a notebook)."""
import time

import duckdb

con = duckdb.connect("warehouse.duckdb")
con.execute("CREATE TABLE IF NOT EXISTS reviews (user_id INTEGER, verdict VARCHAR, note VARCHAR)")
con.execute("INSERT INTO reviews VALUES (17, 'fraud', 'chargebacks'), (42, 'ok', NULL), "
            "(105, 'bot', 'scripted clicks')")
print("reviewed", con.execute("SELECT count(*) FROM reviews").fetchone()[0], flush=True)
time.sleep(600)
'''


def _raw(folder: Path, day: str | None = None) -> None:
    import random

    rng = random.Random(0 if day is None else 1)
    kinds = ["view", "click", "add_to_cart", "purchase", "support"]
    folder.mkdir(parents=True, exist_ok=True)
    if day is None:
        users = ["user_id,plan,country,signup_date,churned"]
        for u in range(200):
            users.append(f"{u},{rng.choice(['free', 'pro', 'team'])},"
                         f"{rng.choice(['DE', 'FR', 'US', 'JP', 'BR'])},"
                         f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},"
                         f"{str(rng.random() < 0.2).lower()}")
        (folder / "users.csv").write_text("\n".join(users) + "\n")
    months = [day] if day else ["2024-01", "2024-02", "2024-03"]
    for month in months:
        rows = ["user_id,ts,kind,amount"]
        for _ in range(150 if day else 700):
            date = day if day else f"{month}-{rng.randint(1, 28):02d}"
            kind = rng.choice(kinds)
            amount = round(rng.uniform(3, 120), 2) if kind == "purchase" else 0.0
            rows.append(f"{rng.randrange(200)},{date} {rng.randint(0, 23):02d}:"
                        f"{rng.randint(0, 59):02d}:00,{kind},{amount}")
        (folder / f"events_{month}.csv").write_text("\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _raw(Path("data/raw"))
    Path("sql").mkdir()
    Path("sql/features.sql").write_text(FEATURES)
    Path("data/processed").mkdir()
    Path("build_db.py").write_text(BUILD)
    done = subprocess.run([sys.executable, "build_db.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    # a new day of raw events arrives, outside the glob of the first build
    _raw(Path("data/incoming"), day="2024-03-31")
    done = subprocess.run([sys.executable, "build_db.py", "data/incoming/events_2024-03-31.csv"],
                          capture_output=True, text=True, check=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.stdout.startswith("features: "), done.stdout
    # a notebook kernel that wrote hand labels into the database is killed before it closes
    Path("review.py").write_text(REVIEW)
    kernel = subprocess.Popen([sys.executable, "review.py"], stdout=subprocess.PIPE, text=True)
    assert kernel.stdout is not None
    assert kernel.stdout.readline().startswith("reviewed"), "review.py"
    kernel.send_signal(signal.SIGKILL)
    kernel.wait()
    assert Path("warehouse.duckdb.wal").is_file()
    return [{"run": "python build_db.py; python build_db.py data/incoming/events_2024-03-31.csv",
             "best": None, "latest": None,
             "evidence": "DuckDB is a database engine: it trains and saves no model, and has no "
                         "notion of a checkpoint (its own CHECKPOINT statement only folds the "
                         "write-ahead log into warehouse.duckdb)"}]


def label(path: str) -> str:
    if path.startswith("data/") or path.endswith((".duckdb", ".duckdb.wal")):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "duckdb", tool="duckdb",
           kind="in-process analytical database (project database file, Parquet export)",
           command="python build_db.py; python build_db.py data/incoming/events_2024-03-31.csv "
                   "(build_db.py: duckdb.connect('warehouse.duckdb'), CREATE TABLE AS read_csv "
                   "of data/raw/*.csv, sql/features.sql, COPY features TO "
                   "data/processed/features.parquet and a PARTITION_BY (month) folder); python "
                   "review.py killed with SIGKILL before closing (leaves warehouse.duckdb.wal)")
