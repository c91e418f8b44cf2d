"""scikit-optimize: Bayesian optimisation (``gp_minimize``) of a small model's
hyperparameters, with the resumable checkpoint its docs show and the final result dumped.

    /work/venvs/tools/bin/pip install scikit-optimize scikit-learn
    /work/venvs/tools/bin/python tests/corpus/heldout2/scikit_optimize/make_fixtures.py

``gp_minimize(objective, space, n_calls=15, callback=[CheckpointSaver(
"tuning/checkpoint.pkl", store_objective=False)])`` rewrites the checkpoint after every
call (an OptimizeResult a later run resumes from with ``x0``/``y0``);
``skopt.dump(result, "tuning/result.pkl")`` writes the final one. The objective saves each
trial's fitted model with joblib as ``tuning/models/call_<n>.joblib``; the best is
the call at ``result.x``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


class Objective:
    """The cross-validated score of a GradientBoostingClassifier (negated), each fitted
    model saved as it goes. Module level: CheckpointSaver pickles the callable."""

    def __init__(self, folder: Path) -> None:
        from sklearn.datasets import make_classification

        self.folder = folder
        self.X, self.y = make_classification(n_samples=600, n_features=10, n_informative=4,
                                             flip_y=0.1, random_state=0)
        self.calls: list[list[object]] = []

    def __call__(self, params: list[object]) -> float:
        import joblib
        from sklearn.ensemble import GradientBoostingClassifier
        from sklearn.model_selection import cross_val_score

        model = GradientBoostingClassifier(n_estimators=int(params[0]),
                                           learning_rate=float(params[1]), random_state=0)
        score = cross_val_score(model, self.X, self.y, cv=3).mean()
        model.fit(self.X, self.y)
        joblib.dump(model, self.folder / f"call_{len(self.calls)}.joblib")
        self.calls.append(list(params))
        return -score


def run(work: Path) -> list[dict[str, object]]:
    import skopt
    from skopt.callbacks import CheckpointSaver

    (work / "tuning" / "models").mkdir(parents=True)
    objective = Objective(Path("tuning/models"))
    space = [skopt.space.Integer(10, 80, name="n_estimators"),
             skopt.space.Real(0.01, 0.5, prior="log-uniform", name="learning_rate")]
    result = skopt.gp_minimize(objective, space, n_calls=15, random_state=0,
                               callback=[CheckpointSaver("tuning/checkpoint.pkl",
                                                         store_objective=False)])
    skopt.dump(result, "tuning/result.pkl", store_objective=False)
    calls = objective.calls
    best = calls.index(list(result.x))
    return [{"run": "tuning/models", "best": f"tuning/models/call_{best}.joblib",
             "latest": f"tuning/models/call_{len(calls) - 1}.joblib",
             "evidence": f"result.x {result.x} (fun {result.fun:.4f}) is call {best}; "
                         f"the last of {len(calls)} calls"}]


def label(path: str) -> str:
    return "checkpoint" if path.startswith("tuning/models/") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "scikit-optimize",
           tool="scikit-optimize", kind="tuning",
           command="gp_minimize(objective, space, n_calls=15, "
                   "callback=[CheckpointSaver('tuning/checkpoint.pkl')]); "
                   "skopt.dump(result, 'tuning/result.pkl')")
