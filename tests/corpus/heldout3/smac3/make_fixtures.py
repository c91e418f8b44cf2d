"""SMAC3: Bayesian hyperparameter optimization of an SVM's C and gamma on scikit-learn's
iris (5-fold cross-validation), CPU, with ``HyperparameterOptimizationFacade`` as SMAC's
quickstart runs it; then the user refits the incumbent and saves it with joblib.

    /work/venvs/tools-b/bin/pip install smac scikit-learn
    /work/venvs/tools-b/bin/python tests/corpus/heldout3/smac3/make_fixtures.py

``Scenario(configspace, deterministic=True, n_trials=40)`` (default name and output
directory) makes SMAC write ``smac3_output/<scenario hash>/<seed>/``: ``scenario.json``,
``configspace.json``, ``runhistory.json`` (every trial's config and cost),
``intensifier.json`` (the incumbents and their trajectory) and ``optimization.json``,
rewritten as the search goes, from which a second ``optimize()`` resumes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import joblib
    import numpy as np
    from ConfigSpace import Configuration, ConfigurationSpace, Float
    from sklearn import datasets
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import SVC
    from smac import HyperparameterOptimizationFacade, Scenario

    iris = datasets.load_iris()

    def train(config: Configuration, seed: int = 0) -> float:
        classifier = SVC(C=config["C"], gamma=config["gamma"], random_state=seed)
        return 1.0 - float(np.mean(cross_val_score(classifier, iris.data, iris.target, cv=5)))

    space = ConfigurationSpace(seed=0)
    space.add([Float("C", (0.1, 1000.0), log=True), Float("gamma", (1e-4, 1.0), log=True)])
    scenario = Scenario(space, deterministic=True, n_trials=40, seed=0)
    smac = HyperparameterOptimizationFacade(scenario, train, overwrite=True)
    incumbent = smac.optimize()
    cost = smac.runhistory.get_cost(incumbent)
    model = SVC(C=incumbent["C"], gamma=incumbent["gamma"], random_state=0)
    model.fit(iris.data, iris.target)
    joblib.dump(model, "svc_incumbent.joblib")
    folder = scenario.output_directory.as_posix()
    ids = json.loads((work / folder / "intensifier.json").read_text())["incumbent_ids"]
    return [{"run": folder,
             "best": "svc_incumbent.joblib", "latest": "svc_incumbent.joblib",
             "evidence": f"smac.optimize() returned the incumbent C={incumbent['C']:.4g}, "
                         f"gamma={incumbent['gamma']:.4g} (cost {cost:.4f} in the "
                         f"runhistory; intensifier.json's incumbent_ids {ids}), the one model "
                         f"the user refit and saved"}]


def label(path: str) -> str:
    return "checkpoint" if path.endswith(".joblib") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "smac", tool="SMAC3",
           kind="hyperparameter optimization",
           command="HyperparameterOptimizationFacade(Scenario(space, deterministic=True, "
                   "n_trials=40), train).optimize(); joblib.dump(SVC(**incumbent).fit(...), "
                   "'svc_incumbent.joblib')")
