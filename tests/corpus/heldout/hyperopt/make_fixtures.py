"""Hyperopt: a TPE search over a scikit-learn model's hyperparameters, 12 trials, CPU, with
the trials file hyperopt writes itself and a model saved per trial by the objective.

    /work/venvs/tools-corpus/bin/pip install hyperopt scikit-learn joblib
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/hyperopt/make_fixtures.py

``fmin(..., trials_save_file="hyperopt_trials.pkl")`` pickles its ``Trials`` after every
trial (what a later fmin resumes from). The objective saves each trial's fitted model as
``models/trial_<tid>.joblib`` (joblib, as scikit-learn's docs persist models) and returns
the validation loss. The best is ``trials.best_trial``; the latest trial is the last one
fmin ran.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import joblib
    import numpy as np
    from hyperopt import STATUS_OK, Trials, fmin, hp, tpe
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    x, y = make_classification(2000, 20, n_informative=8, random_state=0)
    trials = Trials()
    (work / "models").mkdir()

    def objective(params: dict) -> dict:
        model = RandomForestClassifier(n_estimators=int(params["n_estimators"]),
                                       max_depth=int(params["max_depth"]), random_state=0)
        model.fit(x[:1500], y[:1500])
        tid = len(trials.trials) - 1
        joblib.dump(model, f"models/trial_{tid}.joblib")
        return {"loss": 1 - model.score(x[1500:], y[1500:]), "status": STATUS_OK}

    space = {"n_estimators": hp.quniform("n_estimators", 10, 60, 10),
             "max_depth": hp.quniform("max_depth", 2, 10, 1)}
    fmin(objective, space, algo=tpe.suggest, max_evals=12, trials=trials,
         rstate=np.random.default_rng(0), trials_save_file="hyperopt_trials.pkl")
    best = trials.best_trial["tid"]
    last = trials.trials[-1]["tid"]
    return [{"run": "models", "best": f"models/trial_{best}.joblib",
             "latest": f"models/trial_{last}.joblib",
             "evidence": f"trials.best_trial tid {best} (loss "
                         f"{trials.best_trial['result']['loss']:.4f}); the last trial run"}]


def label(path: str) -> str:
    # The trials pickle is the search's record, what fmin resumes from (log).
    return "checkpoint" if path.startswith("models/") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "hyperopt", tool="Hyperopt",
           kind="tuning", command="fmin(objective, space, tpe.suggest, max_evals=12, "
                                  "trials_save_file='hyperopt_trials.pkl')")
