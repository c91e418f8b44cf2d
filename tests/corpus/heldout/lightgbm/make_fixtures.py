"""LightGBM: ``lgb.train`` of a binary classifier on toy tabular data, CPU, early stopping
on a validation set, and the model saved the way its Python quick start saves it.

    /work/venvs/tools-corpus/bin/pip install lightgbm scikit-learn pandas
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/lightgbm/make_fixtures.py

``bst.save_model("model.txt", num_iteration=bst.best_iteration)`` writes LightGBM's text
model format (``tree`` / ``version=v4`` header); ``record_evaluation`` gives the metric
history, saved as ``eval_results.json``; ``bst.save_model("model_all.txt",
num_iteration=-1)`` keeps every round trained (``keep_training_booster=True``). The data
are the CSV files it was trained on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import lightgbm as lgb
    import pandas as pd
    from sklearn.datasets import make_classification

    x, y = make_classification(6000, 20, n_informative=8, flip_y=0.1, random_state=0)
    frame = pd.DataFrame(x, columns=[f"f{i}" for i in range(20)]).assign(label=y)
    (work / "data").mkdir()
    frame[:4500].to_csv(work / "data" / "train.csv", index=False)
    frame[4500:].to_csv(work / "data" / "valid.csv", index=False)
    train = lgb.Dataset(frame[:4500].drop(columns="label"), frame[:4500].label)
    valid = lgb.Dataset(frame[4500:].drop(columns="label"), frame[4500:].label, reference=train)
    history: dict = {}
    bst = lgb.train({"objective": "binary", "metric": "binary_logloss", "learning_rate": 0.3,
                     "verbose": -1, "seed": 0}, train, num_boost_round=300, valid_sets=[valid],
                    callbacks=[lgb.early_stopping(20), lgb.record_evaluation(history)],
                    keep_training_booster=True)
    bst.save_model("model.txt", num_iteration=bst.best_iteration)
    bst.save_model("model_all.txt", num_iteration=-1)
    (work / "eval_results.json").write_text(json.dumps(history))
    return [{"run": ".", "best": "model.txt", "latest": "model_all.txt",
             "evidence": f"early_stopping: best_iteration {bst.best_iteration} of "
                         f"{bst.current_iteration()}; model.txt saved with "
                         f"num_iteration=best_iteration, model_all.txt with every round"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "log" if path == "eval_results.json" else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "lightgbm", tool="LightGBM",
           kind="tabular (gradient boosting)",
           command="lgb.train(..., callbacks=[early_stopping(20), record_evaluation(h)]); "
                   "save_model('model.txt', num_iteration=best_iteration)")
