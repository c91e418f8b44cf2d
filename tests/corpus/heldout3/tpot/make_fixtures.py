"""TPOT: genetic-programming AutoML of a scikit-learn pipeline on a small synthetic
classification table, CPU, a few generations of the light search space, with TPOT's
periodic checkpoint folder; then the user pickles the fitted pipeline.

    /work/venvs/tools-b/bin/pip install tpot "setuptools<81" scikit-learn
    /work/venvs/tools-b/bin/python tests/corpus/heldout3/tpot/make_fixtures.py

(TPOT's dependency stopit imports ``pkg_resources``, which setuptools 81 and later no
longer ship.) The user writes the table to ``data/train.csv``;
``TPOTClassifier(search_space="linear-light", generations=3, population_size=8, cv=3,
n_jobs=1, periodic_checkpoint_folder="tpot_checkpoint", random_state=0).fit(X, y)`` keeps
its evaluated population in ``tpot_checkpoint/population.pkl`` (a later ``fit`` resumes
from it); ``pickle.dump(est.fitted_pipeline_, ...)`` saves the best pipeline it refit.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import tpot
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=600, n_features=10, n_informative=4,
                               random_state=0)
    (work / "data").mkdir()
    np.savetxt(work / "data" / "train.csv", np.column_stack([X, y]), delimiter=",",
               fmt="%.6g", header=",".join([f"f{i}" for i in range(10)] + ["label"]),
               comments="")
    est = tpot.TPOTClassifier(search_space="linear-light", generations=3, population_size=8,
                              cv=3, n_jobs=1, max_time_mins=5, max_eval_time_mins=1,
                              periodic_checkpoint_folder="tpot_checkpoint", random_state=0,
                              verbose=2)
    est.fit(X, y)
    with open("tpot_pipeline.pkl", "wb") as f:
        pickle.dump(est.fitted_pipeline_, f)
    steps = [type(step).__name__ for _, step in est.fitted_pipeline_.steps]
    return [{"run": "tpot_checkpoint", "best": "tpot_pipeline.pkl",
             "latest": "tpot_pipeline.pkl",
             "evidence": f"est.fitted_pipeline_ ({' > '.join(steps)}), the best pipeline "
                         f"TPOT refit on all data, the one the user saved"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "checkpoint" if path == "tpot_pipeline.pkl" else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "tpot", tool="TPOT",
           kind="AutoML (genetic programming)",
           command="TPOTClassifier(search_space='linear-light', generations=3, "
                   "population_size=8, cv=3, periodic_checkpoint_folder='tpot_checkpoint')"
                   ".fit(X, y); pickle.dump(est.fitted_pipeline_, 'tpot_pipeline.pkl')")
