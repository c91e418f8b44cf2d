"""whylogs: the user's ``profile_day.py`` profiles one day of its payment events
(``data/events/<date>.csv``) with ``why.log(df)``, stamps the profile with the day
(``set_dataset_timestamp``) and writes it with whylogs' local writer into ``profiles/``
(``results.writer("local").option(base_dir="profiles").write()``, the documented local
use, default file names); it is run for three days, as a daily job is. ``summarize.py``
then reads every profile back (``why.read``), merges them and writes the merged profile's
summary table to ``reports/profile_summary.csv``.

    python3.11 -m venv /tmp/h6/whylogs/venv
    /tmp/h6/whylogs/venv/bin/pip install --only-binary :all: whylogs "pandas<3" "numpy<2"
    /tmp/h6/whylogs/venv/bin/python tests/corpus/heldout6/whylogs/make_fixtures.py

``python profile_day.py 2024-05-01`` (and 02, 03; 1000 toy events a day), then
``python summarize.py``. ``WHYLOGS_NO_ANALYTICS=True`` keeps whylogs' usage telemetry off.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PROFILE = '''"""Profile a day of payment events: python profile_day.py YYYY-MM-DD"""
import sys
from datetime import datetime, timezone

import pandas as pd
import whylogs as why

day = sys.argv[1]
events = pd.read_csv(f"data/events/{day}.csv")
results = why.log(events)
results.set_dataset_timestamp(datetime.fromisoformat(day).replace(tzinfo=timezone.utc))
status, written = results.writer("local").option(base_dir="profiles").write()
print("profiled", len(events), "events:", status, written)
'''

SUMMARIZE = '''"""Merge the daily profiles: python summarize.py"""
from functools import reduce
from pathlib import Path

import whylogs as why

views = [why.read(str(path)).view() for path in sorted(Path("profiles").glob("*.bin"))]
merged = reduce(lambda a, b: a.merge(b), views)
Path("reports").mkdir(exist_ok=True)
merged.to_pandas().to_csv("reports/profile_summary.csv")
print("merged", len(views), "profiles")
'''


def _events(day: int) -> str:
    import numpy as np

    rng = np.random.default_rng(day)
    rows = 1000
    amount = rng.lognormal(3 + 0.1 * day, 1.0, size=rows)
    country = rng.choice(["DE", "FR", "US", "GB", "NL"], size=rows)
    method = rng.choice(["card", "paypal", "sepa"], size=rows, p=[0.6, 0.3, 0.1])
    latency = rng.gamma(2.0, 40 + 10 * day, size=rows)
    fraud = (rng.random(rows) < 0.02).astype(int)
    lines = ["event_id,amount,country,method,latency_ms,is_fraud"]
    for n, row in enumerate(zip(amount, country, method, latency, fraud, strict=True)):
        missing = rng.random() < 0.01
        lines.append(f"e{day}{n:05d}," + ("" if missing else f"{row[0]:.2f}")
                     + ",{},{},{:.1f},{}".format(*row[1:]))
    return "\n".join(lines) + "\n"


def _run(*args: str) -> str:
    env = {**os.environ, "WHYLOGS_NO_ANALYTICS": "True"}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr[-3000:])
    done.check_returncode()
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    Path("data/events").mkdir(parents=True)
    for day in (1, 2, 3):
        Path(f"data/events/2024-05-{day:02d}.csv").write_text(_events(day))
    Path("profile_day.py").write_text(PROFILE)
    Path("summarize.py").write_text(SUMMARIZE)
    for day in (1, 2, 3):
        _run("profile_day.py", f"2024-05-{day:02d}")
    _run("summarize.py")
    return []  # whylogs profiles data and saves no model: no checkpoint, best or latest


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("profiles/", "reports/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "whylogs", tool="whylogs",
           kind="data logging (statistical profiles written to disk)",
           command="python profile_day.py 2024-05-0<d> for d in 1..3 (why.log(df), "
                   "set_dataset_timestamp, writer('local').option(base_dir='profiles')"
                   ".write()); python summarize.py (why.read each profile, merge, to_pandas "
                   "to reports/profile_summary.csv)")
