"""Nevergrad: gradient-free tuning of a gradient-boosting classifier's learning rate and
depth on scikit-learn's breast-cancer table, CPU, with the ``ask``/``tell`` loop, the
``ParametersLogger`` callback and ``optimizer.dump`` as its docs show them; then the user
refits the recommendation and saves it with joblib.

    /work/venvs/tools-b/bin/pip install nevergrad scikit-learn
    /work/venvs/tools-b/bin/python tests/corpus/heldout3/nevergrad/make_fixtures.py

``ng.optimizers.NGOpt(parametrization, budget=30)``; ``ParametersLogger("tuning/log.json")``
registered on ``tell`` appends one JSON record a trial; every 10 trials
``optimizer.dump("tuning/optimizer.pkl")`` pickles the optimizer (``load`` resumes it);
``provide_recommendation()`` gives the best parameters, refit and saved as
``model.joblib``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import joblib
    import nevergrad as ng
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.model_selection import cross_val_score

    X, y = load_breast_cancer(return_X_y=True)

    def model(learning_rate: float, max_depth: int) -> GradientBoostingClassifier:
        return GradientBoostingClassifier(n_estimators=30, learning_rate=learning_rate,
                                          max_depth=max_depth, random_state=0)

    def loss(learning_rate: float, max_depth: int) -> float:
        return 1.0 - float(cross_val_score(model(learning_rate, max_depth), X, y, cv=3).mean())

    space = ng.p.Instrumentation(learning_rate=ng.p.Log(lower=1e-3, upper=1.0),
                                 max_depth=ng.p.Scalar(lower=1, upper=6).set_integer_casting())
    space.random_state.seed(0)
    optimizer = ng.optimizers.NGOpt(parametrization=space, budget=30)
    Path("tuning").mkdir()
    optimizer.register_callback("tell", ng.callbacks.ParametersLogger("tuning/log.json"))
    for trial in range(1, optimizer.budget + 1):
        candidate = optimizer.ask()
        optimizer.tell(candidate, loss(**candidate.kwargs))
        if trial % 10 == 0:
            optimizer.dump("tuning/optimizer.pkl")
    best = optimizer.provide_recommendation().kwargs
    joblib.dump(model(**best).fit(X, y), "model.joblib")
    return [{"run": "tuning", "best": "model.joblib", "latest": "model.joblib",
             "evidence": f"provide_recommendation() gave learning_rate="
                         f"{best['learning_rate']:.4g}, max_depth={best['max_depth']}, the "
                         f"one model the user refit and saved"}]


def label(path: str) -> str:
    return "checkpoint" if path == "model.joblib" else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "nevergrad", tool="Nevergrad",
           kind="gradient-free optimization (tuning)",
           command="NGOpt(Instrumentation(learning_rate=Log, max_depth=Scalar), budget=30) "
                   "ask/tell with ParametersLogger('tuning/log.json'), optimizer.dump every "
                   "10 trials; joblib.dump(refit recommendation, 'model.joblib')")
