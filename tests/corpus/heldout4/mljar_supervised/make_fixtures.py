"""mljar-supervised: ``AutoML(mode="Explain")`` on a small CSV (eight columns of
scikit-learn's breast-cancer table), CPU, three algorithms, as its quickstart runs it, with
the default results folder.

    /work/venvs/tools-b/bin/pip install mljar-supervised
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/mljar_supervised/make_fixtures.py

The user writes the table to ``data/breast_cancer.csv``; ``AutoML().fit(X, y)`` with no
``results_path`` makes ``AutoML_1/``: ``params.json`` (the settings, the saved models, the
best one and those ``predict`` loads), ``data_info.json``, ``leaderboard.csv``,
``progress.json``, ``README.md`` and plots, the train/validation split's indices
(``split_*_indices.npy``), and one folder a model (``framework.json``, the learner
``learner_fold_0.<algo>``, its importance, SHAP plots and training log, the validation
predictions, ``README.md``, evaluation plots, ``status.txt``); the ensemble's folder has
``ensemble.json``. Explain mode (a 75/25 split, one model per algorithm, explanations at
level 2) is the mode its docs start with.
``AutoML(results_path="AutoML_1").predict`` reloads it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

RESULTS = "AutoML_1"
MODEL_FILE = re.compile(r"(framework|ensemble)\.json|learner_fold_\d+\.[a-z_]+(\.json)?")


def run(work: Path) -> list[dict[str, object]]:
    import pandas as pd
    from sklearn.datasets import load_breast_cancer
    from supervised.automl import AutoML

    table = load_breast_cancer(as_frame=True).frame
    (work / "data").mkdir()
    table[[*table.columns[:8], "target"]].to_csv(work / "data" / "breast_cancer.csv",
                                                 index=False)
    frame = pd.read_csv("data/breast_cancer.csv")
    X, y = frame.drop(columns="target"), frame["target"]
    automl = AutoML(mode="Explain", algorithms=["Baseline", "Linear", "Xgboost"],
                    total_time_limit=120, n_jobs=1, random_state=0)
    automl.fit(X, y)
    best = automl._best_model.get_name()
    params = json.loads((work / RESULTS / "params.json").read_text())
    board = pd.read_csv(work / RESULTS / "leaderboard.csv").set_index("name")
    files = [f"{RESULTS}/params.json", f"{RESULTS}/data_info.json"]
    for model in params["load_on_predict"]:
        files += sorted(f"{RESULTS}/{model}/{p.name}" for p in (work / RESULTS / model).iterdir()
                        if MODEL_FILE.fullmatch(p.name))
    return [{"run": RESULTS, "best": files, "latest": files,
             "evidence": f"AutoML printed 'AutoML best model: {best}' (logloss "
                         f"{board.loc[best, 'metric_value']:.4f} in leaderboard.csv); "
                         f"params.json's best_model {params['best_model']!r} and load_on_predict "
                         f"{params['load_on_predict']}; one fit, so best and latest are the "
                         f"files predict loads"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    name = path.rsplit("/", 1)[-1]
    if path in (f"{RESULTS}/params.json", f"{RESULTS}/data_info.json") \
            or (path.count("/") == 2 and MODEL_FILE.fullmatch(name)):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "mljar-supervised",
           tool="mljar-supervised", kind="AutoML (tabular)",
           command="AutoML(mode='Explain', algorithms=['Baseline', 'Linear', 'Xgboost'], "
                   "total_time_limit=120, n_jobs=1, random_state=0).fit(X, y) on "
                   "data/breast_cancer.csv")
