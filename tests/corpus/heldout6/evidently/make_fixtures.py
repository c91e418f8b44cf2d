"""Evidently: the user's ``monitor.py`` checks each weekly batch of its churn model's
production data (``data/batches/week_<n>.csv``) against the training reference
(``data/reference.csv``) with an Evidently ``Report`` (``DataDriftPreset`` and
``DataSummaryPreset``), adds every run to a local Evidently workspace
(``Workspace.create("workspace")``, a project "Churn monitoring", the documented
self-hosted setup that ``evidently ui --workspace workspace`` serves), and saves the week's
report as HTML and JSON under ``reports/``; it is run once per week, as a scheduled job is.

    python3.11 -m venv /tmp/h6/evidently/venv
    /tmp/h6/evidently/venv/bin/pip install --only-binary :all: evidently "pandas<3"
    /tmp/h6/evidently/venv/bin/python tests/corpus/heldout6/evidently/make_fixtures.py

``python monitor.py 1``, ``python monitor.py 2``, ``python monitor.py 3`` (2000 reference
rows, 500 rows a week, the drift growing week by week). ``DO_NOT_TRACK=1`` keeps Evidently's
usage telemetry off (it writes nothing into the project either way).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MONITOR = '''"""Check a week of production data for drift: python monitor.py WEEK"""
import sys
from pathlib import Path

import pandas as pd
from evidently import DataDefinition, Dataset, Report
from evidently.presets import DataDriftPreset, DataSummaryPreset
from evidently.ui.workspace import Workspace

week = int(sys.argv[1])
schema = DataDefinition(numerical_columns=["tenure_months", "monthly_charges", "support_calls",
                                           "prediction"],
                        categorical_columns=["plan", "churned"])
reference = Dataset.from_pandas(pd.read_csv("data/reference.csv"), data_definition=schema)
current = Dataset.from_pandas(pd.read_csv(f"data/batches/week_{week:02d}.csv"),
                              data_definition=schema)

workspace = Workspace.create("workspace")
projects = workspace.search_project("Churn monitoring")
project = projects[0] if projects else workspace.create_project("Churn monitoring")

report = Report([DataDriftPreset(), DataSummaryPreset()])
snapshot = report.run(current_data=current, reference_data=reference)
ref = workspace.add_run(project.id, snapshot, include_data=False, name=f"week {week:02d}")
print("added run", ref.id, "to project", project.id)

Path("reports").mkdir(exist_ok=True)
snapshot.save_html(f"reports/drift_week_{week:02d}.html")
snapshot.save_json(f"reports/drift_week_{week:02d}.json")
'''


def _frame(rng: object, rows: int, shift: float) -> str:
    import numpy as np

    assert isinstance(rng, np.random.Generator)
    tenure = rng.integers(1, 72, size=rows) - int(12 * shift)
    charges = rng.normal(65 + 15 * shift, 20, size=rows).clip(10, None)
    calls = rng.poisson(1.5 + 2 * shift, size=rows)
    mix = [0.5 - 0.2 * shift, 0.3, 0.2 + 0.2 * shift]
    plan = rng.choice(["basic", "plus", "pro"], size=rows, p=mix)
    logit = -1.5 - 0.03 * tenure + 0.02 * (charges - 65) + 0.4 * calls
    churned = rng.random(rows) < 1 / (1 + np.exp(-logit))
    prediction = 1 / (1 + np.exp(-(logit + rng.normal(0, 0.5, size=rows))))
    lines = ["tenure_months,monthly_charges,support_calls,plan,churned,prediction"]
    for row in zip(tenure.clip(0, None), charges, calls, plan, churned.astype(int), prediction,
                   strict=True):
        lines.append("{},{:.2f},{},{},{},{:.4f}".format(*row))
    return "\n".join(lines) + "\n"


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np

    rng = np.random.default_rng(0)
    Path("data/batches").mkdir(parents=True)
    Path("data/reference.csv").write_text(_frame(rng, 2000, 0.0))
    for week, shift in ((1, 0.05), (2, 0.4), (3, 0.9)):
        Path(f"data/batches/week_{week:02d}.csv").write_text(_frame(rng, 500, shift))
    Path("monitor.py").write_text(MONITOR)
    env = {**os.environ, "DO_NOT_TRACK": "1"}
    for week in (1, 2, 3):
        done = subprocess.run([sys.executable, "monitor.py", str(week)], capture_output=True,
                              text=True, env=env)
        sys.stderr.write(done.stdout + done.stderr[-3000:])
        done.check_returncode()
    return []  # Evidently trains and saves no model: no checkpoint, best or latest


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("workspace/", "reports/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "evidently", tool="evidently",
           kind="ML monitoring (data drift reports, local workspace of snapshots)",
           command="python monitor.py 1; python monitor.py 2; python monitor.py 3 "
                   "(Report([DataDriftPreset(), DataSummaryPreset()]).run on "
                   "data/batches/week_<n>.csv against data/reference.csv, "
                   "Workspace.create('workspace').add_run, save_html/save_json to reports/)")
