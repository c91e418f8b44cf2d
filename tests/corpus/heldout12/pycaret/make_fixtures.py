"""pycaret: a tabular-data user runs PyCaret's low-code classification workflow on the user's
toy customer-churn table ``data/churn.csv`` (12 numeric/categorical features, a binary
``churn`` label): ``setup(data, target="churn", session_id=123, log_experiment=False,
html=False)``, ``compare_models(include=[...], n_select=1)``, ``tune_model(best,
n_iter=8)``, ``finalize_model(tuned)``, ``plot_model(..., save=True)`` and
``save_model(...)``, as in PyCaret's classification quickstart. No MLflow
(``log_experiment=False``); PyCaret's own ``logs.log`` (``system_log=True``, the default)
is left where it writes it, in the working folder.

    python3.11 -m venv /tmp/h12/pycaret/venv
    /tmp/h12/pycaret/venv/bin/pip install pycaret six
    /tmp/h12/pycaret/venv/bin/python tests/corpus/heldout12/pycaret/make_fixtures.py

Runs: ``python make_data.py`` (``data/churn.csv``); ``python train.py``: the user saves
compare_models' best (``models/compare_best.pkl``), the tuned one
(``models/tuned_model.pkl``) and the finalized pipeline (``models/churn_pipeline.pkl``,
refit on all rows) with ``save_model``, keeps the leaderboards that ``pull()`` returns in
``reports/*.csv``, and ``plot_model(save=True)`` writes its PNGs into the working folder.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MAKE_DATA = '''"""Write the toy table data/churn.csv: python make_data.py"""
from pathlib import Path

import numpy as np

rng = np.random.default_rng(0)
n = 400
plans = np.array(["basic", "plus", "premium"])
regions = np.array(["north", "south", "east", "west"])
tenure = rng.integers(1, 72, n)
monthly = np.round(rng.normal(60, 20, n).clip(10, 150), 2)
calls = rng.poisson(2, n)
plan = plans[rng.integers(0, 3, n)]
region = regions[rng.integers(0, 4, n)]
extra = rng.normal(0, 1, (n, 7))
score = -0.04 * tenure + 0.02 * monthly + 0.5 * calls + (plan == "basic") + extra[:, 0]
churn = (score + rng.normal(0, 1, n) > np.median(score)).astype(int)
Path("data").mkdir(exist_ok=True)
with open("data/churn.csv", "w") as f:
    f.write("tenure,monthly_charges,support_calls,plan,region,"
            + ",".join(f"usage_{i}" for i in range(7)) + ",churn\\n")
    for i in range(n):
        f.write(f"{tenure[i]},{monthly[i]},{calls[i]},{plan[i]},{region[i]},"
                + ",".join(f"{v:.4f}" for v in extra[i]) + f",{churn[i]}\\n")
'''

TRAIN = '''"""PyCaret classification quickstart on data/churn.csv: python train.py"""
from pathlib import Path

import pandas as pd
from pycaret.classification import (compare_models, finalize_model, plot_model, pull,
                                    save_model, setup, tune_model)

data = pd.read_csv("data/churn.csv")
setup(data, target="churn", session_id=123, log_experiment=False, html=False,
      verbose=False, experiment_name="churn")
Path("models").mkdir(exist_ok=True)
Path("reports").mkdir(exist_ok=True)
best = compare_models(include=["lr", "knn", "dt", "rf", "et", "ridge"], n_select=1)
leaderboard = pull()
leaderboard.to_csv("reports/compare_models.csv")
print("compare_models best:", leaderboard.index[0], type(best).__name__)
print("saved", save_model(best, "models/compare_best")[1])
tuned = tune_model(best, n_iter=8, optimize="Accuracy")
pull().to_csv("reports/tune_model.csv")
print("saved", save_model(tuned, "models/tuned_model")[1])
plot_model(tuned, plot="confusion_matrix", save=True)
plot_model(tuned, plot="auc", save=True)
final = finalize_model(tuned)
print("saved", save_model(final, "models/churn_pipeline")[1])
'''


def run(work: Path) -> list[dict[str, object]]:
    Path("make_data.py").write_text(MAKE_DATA)
    Path("train.py").write_text(TRAIN)
    subprocess.run([sys.executable, "make_data.py"], check=True)
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True)
    out = done.stdout + done.stderr
    sys.stderr.write(out[-6000:])
    assert done.returncode == 0, done.returncode
    assert "Transformation Pipeline and Model Successfully Saved" in out
    saved = re.findall(r"^saved (\S+)$", out, re.M)
    assert saved == ["models/compare_best.pkl", "models/tuned_model.pkl",
                     "models/churn_pipeline.pkl"], saved
    top = re.search(r"compare_models best: (\w+) (\w+)", out)
    assert top, out[-2000:]
    assert Path("logs.log").exists()
    return [{"run": "python train.py",
             "best": saved[0],
             "latest": saved[2],
             "evidence": f"compare_models returned its best model ({top.group(2)}, "
                         f"'{top.group(1)}', the top row of the leaderboard pull() returned, "
                         "sorted by Accuracy); save_model returned its file name "
                         f"'{saved[0]}'. The last save_model call returned '{saved[2]}': the "
                         "finalize_model pipeline (tuned model refit on all rows), the newest "
                         "and the one to deploy. PyCaret itself keeps no record of saved "
                         "files (logs.log only logs the save_model call)."}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("reports/") or path == "logs.log" or path.endswith(".png"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pycaret", tool="pycaret",
           kind="low-code AutoML (saved sklearn pipelines .pkl, logs.log)",
           command="python make_data.py; python train.py (setup(data, target='churn', "
                   "session_id=123, log_experiment=False); compare_models(); tune_model(); "
                   "plot_model(save=True); finalize_model(); save_model(...))")
