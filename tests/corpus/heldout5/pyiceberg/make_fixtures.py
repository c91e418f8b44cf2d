"""pyiceberg: a local Apache Iceberg warehouse as PyIceberg's "Getting started" has it, a
``SqlCatalog`` on SQLite (``warehouse/pyiceberg_catalog.db``) with the warehouse on the local
file system (``file://<project>/warehouse``), into which the user's ``load.py`` appends one
month of their raw sensor readings per run (``data/readings_2024-01.csv``, then ``-02``):
the table is created by the first run, each run is one ``append`` (one snapshot), and
``report.py`` scans it with a filter (reads only).

    python3.11 -m venv /tmp/h5/pyiceberg/venv
    /tmp/h5/pyiceberg/venv/bin/pip install "pyiceberg[sql-sqlite,pyarrow]"
    /tmp/h5/pyiceberg/venv/bin/python tests/corpus/heldout5/pyiceberg/make_fixtures.py

``python load.py data/readings_2024-01.csv``; ``python load.py data/readings_2024-02.csv``
(``catalog.create_namespace_if_not_exists('sensors')``,
``create_table_if_not_exists('sensors.readings', schema=...)``, ``table.append(arrow)``);
``python report.py`` (``table.scan(row_filter="temp_c > 25").to_arrow()`` and the snapshot
history).
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

CATALOG = '''"""The project's Iceberg catalog: SQLite catalog, warehouse on local disk."""
from pathlib import Path

from pyiceberg.catalog.sql import SqlCatalog

WAREHOUSE = Path(__file__).resolve().parent / "warehouse"


def load_catalog():
    WAREHOUSE.mkdir(exist_ok=True)
    return SqlCatalog("local", uri=f"sqlite:///{WAREHOUSE}/pyiceberg_catalog.db",
                      warehouse=f"file://{WAREHOUSE}")
'''

LOAD = '''"""Append one month of readings to sensors.readings: python load.py CSV"""
import sys

import pyarrow as pa
import pyarrow.csv as pv

from catalog import load_catalog

SCHEMA = pa.schema([
    pa.field("ts", pa.timestamp("us"), nullable=False),
    pa.field("station", pa.string(), nullable=False),
    pa.field("temp_c", pa.float64()),
    pa.field("humidity", pa.float64()),
])

if __name__ == "__main__":
    rows = pv.read_csv(sys.argv[1], convert_options=pv.ConvertOptions(column_types=SCHEMA))
    rows = rows.cast(SCHEMA)
    catalog = load_catalog()
    catalog.create_namespace_if_not_exists("sensors")
    table = catalog.create_table_if_not_exists("sensors.readings", schema=SCHEMA)
    table.append(rows)
    print(f"appended {rows.num_rows} rows; snapshot {table.current_snapshot().snapshot_id}")
    print("metadata", table.metadata_location)
'''

REPORT = '''"""Hot readings and the table history."""
from catalog import load_catalog

if __name__ == "__main__":
    table = load_catalog().load_table("sensors.readings")
    hot = table.scan(row_filter="temp_c > 25", selected_fields=("ts", "station", "temp_c"))
    print(hot.to_arrow().num_rows, "readings above 25 C")
    for entry in table.history():
        print(entry.snapshot_id, entry.timestamp_ms)
'''


def _readings(path: Path, month: int) -> None:
    rng = random.Random(month)
    stations = ["north", "south", "roof", "lab"]
    lines = ["ts,station,temp_c,humidity"]
    for day in range(1, 29):
        for hour in range(0, 24, 3):
            for s, station in enumerate(stations):
                temp = 18 + 4 * s + 6 * math.sin(hour / 24 * 2 * math.pi) + rng.gauss(0, 1.5)
                hum = min(max(55 - temp + rng.gauss(0, 5), 5.0), 100.0)
                lines.append(f"2024-{month:02d}-{day:02d}T{hour:02d}:00:00,{station},"
                             f"{temp:.2f},{hum:.1f}")
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    for month in (1, 2):
        _readings(Path(f"data/readings_2024-{month:02d}.csv"), month)
    for name, text in (("catalog.py", CATALOG), ("load.py", LOAD), ("report.py", REPORT)):
        Path(name).write_text(text)
    for month in (1, 2):
        assert "appended 896 rows" in _run("load.py", f"data/readings_2024-{month:02d}.csv")
    _run("report.py")
    return []


def label(path: str) -> str:
    if path.startswith(("data/", "warehouse/")):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pyiceberg", tool="pyiceberg",
           kind="table format, local warehouse (SqlCatalog on SQLite, Iceberg table appends)",
           command="python load.py data/readings_2024-01.csv; python load.py "
                   "data/readings_2024-02.csv (SqlCatalog('local', uri='sqlite:///<project>/"
                   "warehouse/pyiceberg_catalog.db', warehouse='file://<project>/warehouse'), "
                   "create_table_if_not_exists('sensors.readings'), table.append); "
                   "python report.py")
