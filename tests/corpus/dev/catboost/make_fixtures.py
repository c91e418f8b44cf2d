"""CatBoost: a CatBoostClassifier on a toy tabular dataset, CPU, 300 iterations with an
evaluation set, a training snapshot and the best model kept, as its docs' "snapshot" and
"use_best_model" examples set it.

    /work/venvs/tools-corpus/bin/pip install catboost pandas scikit-learn
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/catboost/make_fixtures.py

fit() writes its train_dir ``catboost_info/`` (the default): ``learn_error.tsv``,
``test_error.tsv``, ``time_left.tsv``, ``catboost_training.json``, TensorBoard event files
under ``learn/`` and ``test/``, and its scratch ``tmp/``; ``save_snapshot=True`` writes the
snapshot a later fit() resumes from, ``catboost_info/training.cbsnapshot`` (snapshot_file
is relative to train_dir). ``save_model`` writes ``model.cbm``: with ``use_best_model`` it
is cut at ``get_best_iteration()``. The data are the CSV files the model was fitted on.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import pandas as pd
    from catboost import CatBoostClassifier
    from sklearn.datasets import make_classification

    x, y = make_classification(4000, 12, n_informative=6, random_state=0)
    frame = pd.DataFrame(x, columns=[f"f{i}" for i in range(12)]).assign(label=y)
    (work / "data").mkdir()
    frame[:3000].to_csv(work / "data" / "train.csv", index=False)
    frame[3000:].to_csv(work / "data" / "valid.csv", index=False)
    model = CatBoostClassifier(iterations=300, depth=6, learning_rate=0.2, random_seed=0,
                               save_snapshot=True, snapshot_file="training.cbsnapshot",
                               snapshot_interval=1, use_best_model=True, verbose=50)
    model.fit(frame[:3000].drop(columns="label"), frame[:3000].label,
              eval_set=(frame[3000:].drop(columns="label"), frame[3000:].label))
    model.save_model("model.cbm")
    return [{"run": "catboost_info", "best": "model.cbm",
             "latest": "catboost_info/training.cbsnapshot",
             "evidence": f"use_best_model: model.cbm is cut at get_best_iteration() = "
                         f"{model.get_best_iteration()}; the snapshot is the state after the "
                         f"last of 300 iterations"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith((".cbm", ".cbsnapshot")):
        return "checkpoint"
    if path.startswith("catboost_info/tmp/"):
        return "cache"  # CatBoost's scratch space while it trains
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "catboost", tool="CatBoost",
           kind="tabular (gradient boosting)",
           command="CatBoostClassifier(iterations=300, save_snapshot=True, snapshot_file="
                   "'training.cbsnapshot', use_best_model=True).fit(..., eval_set=...); "
                   "save_model('model.cbm')")
