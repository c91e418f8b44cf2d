"""FLAML: AutoML on a small tabular classification task, CPU, with its search log, and the
fitted AutoML object pickled as FLAML's docs save it.

    /work/venvs/tools/bin/pip install "flaml[automl]" scikit-learn
    /work/venvs/tools/bin/python tests/corpus/heldout2/flaml/make_fixtures.py

The user writes the table to ``data/train.csv``; ``AutoML().fit(X, y, task="classification",
time_budget=8, estimator_list=["lgbm", "xgboost", "rf"], log_file_name="flaml.log",
seed=0)`` writes its search log (one JSON record a trial); ``pickle.dump(automl, ...)`` into
``automl.pkl`` (the docs' "save and load" recipe) keeps the best model it found.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    from flaml import AutoML
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=2000, n_features=12, n_informative=4,
                               flip_y=0.1, random_state=0)
    (work / "data").mkdir()
    table = np.column_stack([X, y])
    np.savetxt(work / "data" / "train.csv", table, delimiter=",", fmt="%.6g",
               header=",".join([f"f{i}" for i in range(12)] + ["label"]), comments="")
    automl = AutoML()
    automl.fit(X, y, task="classification", time_budget=8, seed=0,
               estimator_list=["lgbm", "xgboost", "rf"], log_file_name="flaml.log",
               verbose=0)
    with open("automl.pkl", "wb") as f:
        pickle.dump(automl, f, pickle.HIGHEST_PROTOCOL)
    return [{"run": ".", "best": "automl.pkl", "latest": "automl.pkl",
             "evidence": f"AutoML.best_estimator {automl.best_estimator!r} (best loss "
                         f"{automl.best_loss:.4f}), held by the one pickled AutoML"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "checkpoint" if path == "automl.pkl" else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "flaml", tool="FLAML",
           kind="AutoML (tabular)",
           command="AutoML().fit(X, y, task='classification', time_budget=8, "
                   "estimator_list=['lgbm','xgboost','rf'], log_file_name='flaml.log'); "
                   "pickle.dump(automl, 'automl.pkl')")
