"""XGBoost: ``xgb.train`` of a binary classifier on toy tabular data, CPU, up to 200 rounds
with its training checkpoint callback and early stopping that keeps the best model.

    /work/venvs/tools-corpus/bin/pip install xgboost-cpu scikit-learn pandas
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/xgboost/make_fixtures.py

``TrainingCheckPoint(directory="checkpoints", interval=10)`` writes ``model_<N>.ubj`` (its
default name and format) every 10 rounds; ``EarlyStopping(rounds=20, save_best=True)``
stops and returns the booster cut at its ``best_iteration``, which the script saves as
``xgb_model.json``; the evaluation history ``evals_result`` goes to ``eval_history.json``.
The data are the Parquet files it was trained on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import pandas as pd
    import xgboost as xgb
    from sklearn.datasets import make_classification

    x, y = make_classification(6000, 20, n_informative=8, flip_y=0.1, random_state=0)
    frame = pd.DataFrame(x, columns=[f"f{i}" for i in range(20)]).assign(label=y)
    (work / "data").mkdir()
    frame[:4500].to_parquet(work / "data" / "train.parquet")
    frame[4500:].to_parquet(work / "data" / "valid.parquet")
    train = xgb.DMatrix(frame[:4500].drop(columns="label"), frame[:4500].label)
    valid = xgb.DMatrix(frame[4500:].drop(columns="label"), frame[4500:].label)
    (work / "checkpoints").mkdir()  # the callback does not make it
    history: dict = {}
    booster = xgb.train(
        {"objective": "binary:logistic", "eval_metric": "logloss", "eta": 0.05, "max_depth": 6,
         "seed": 0}, train, num_boost_round=200, evals=[(train, "train"), (valid, "valid")],
        evals_result=history, verbose_eval=False,
        callbacks=[xgb.callback.TrainingCheckPoint(directory="checkpoints", interval=10),
                   xgb.callback.EarlyStopping(rounds=20, save_best=True)])
    booster.save_model("xgb_model.json")
    (work / "eval_history.json").write_text(json.dumps(history))
    saved = sorted((work / "checkpoints").iterdir(), key=lambda p: int(p.stem.split("_")[1]))
    return [{"run": "checkpoints", "best": "xgb_model.json",
             "latest": f"checkpoints/{saved[-1].name}",
             "evidence": f"EarlyStopping(save_best=True) returned the booster cut at "
                         f"best_iteration {booster.best_iteration}; TrainingCheckPoint's "
                         f"newest save"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "log" if path == "eval_history.json" else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "xgboost-cpu", tool="XGBoost",
           kind="tabular (gradient boosting)",
           command="xgb.train(..., callbacks=[TrainingCheckPoint(directory='checkpoints', "
                   "interval=10), EarlyStopping(rounds=20, save_best=True)]); "
                   "save_model('xgb_model.json')")
