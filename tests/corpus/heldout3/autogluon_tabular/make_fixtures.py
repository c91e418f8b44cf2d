"""AutoGluon tabular: ``TabularPredictor.fit`` on a small CSV, CPU, a short time limit and
three light model types (random forest, extra trees, AutoGluon's PyTorch MLP), as its
quickstart runs it, with the default output folder.

    /work/venvs/tools-b/bin/pip install torch==2.13.0 autogluon.tabular
    /work/venvs/tools-b/bin/python tests/corpus/heldout3/autogluon_tabular/make_fixtures.py

The user writes the table to ``data/train.csv``; ``TabularPredictor(label="label")`` with no
``path`` saves into ``AutogluonModels/ag-<timestamp>/``: ``predictor.pkl``,
``learner.pkl``, ``models/trainer.pkl``, one folder a model under ``models/`` (the
weighted ensemble of the others included), ``utils/`` with the split training data and the
base models' validation predictions it keeps, ``metadata.json`` and ``version.txt``.
``predictor.model_best`` names the best model, which ``predict`` uses; the predictor folder
as a whole is what ``TabularPredictor.load`` reads.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import pandas as pd
    from autogluon.tabular import TabularDataset, TabularPredictor

    rng = np.random.default_rng(0)
    n = 1500
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "hours": rng.integers(10, 70, n),
                          "education": rng.choice(["hs", "college", "masters", "phd"], n),
                          "score": rng.normal(0, 1, n).round(4)})
    frame["label"] = np.where(frame.age * 0.5 + frame.hours * 0.8 + rng.normal(0, 8, n) > 55,
                              "high", "low")
    (work / "data").mkdir()
    frame.to_csv(work / "data" / "train.csv", index=False)
    train = TabularDataset("data/train.csv")
    predictor = TabularPredictor(label="label").fit(
        train, time_limit=120, hyperparameters={"RF": {"n_estimators": 50},
                                                "XT": {"n_estimators": 50},
                                                "NN_TORCH": {"num_epochs": 5}})
    folder = Path(predictor.path).resolve().relative_to(work).as_posix()
    best = predictor.model_best
    board = predictor.leaderboard(silent=True).set_index("model")
    score = float(board.loc[best, "score_val"])
    parts = [f"{folder}/{name}" for name in ("predictor.pkl", "learner.pkl",
                                             "models/trainer.pkl")]
    base = predictor.info()["model_info"][best]["stacker_info"]["base_model_names"]
    models = [f"{folder}/models/{name}/model.pkl" for name in (best, *base)]
    return [{"run": folder, "best": parts + models, "latest": parts + models,
             "evidence": f"predictor.model_best is {best!r} (score_val {score:.4f} in the "
                         f"leaderboard), an ensemble over {sorted(base)}; one fit, so best and "
                         f"latest are that predictor"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "cache" if "/utils/" in path and "/models/" not in path else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "autogluon.tabular",
           tool="AutoGluon (tabular)", kind="AutoML (tabular)",
           command="TabularPredictor(label='label').fit(TabularDataset('data/train.csv'), "
                   "time_limit=120, hyperparameters={'RF':..., 'XT':..., 'NN_TORCH':...})")
