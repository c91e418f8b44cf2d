"""bayesian-optimization (bayes_opt): the user's ``tune.py`` tunes an SVM's ``C`` and
``gamma`` with ``BayesianOptimization``, logs every probe with the documented
``JSONLogger`` subscribed to ``Events.OPTIMIZATION_STEP``, and saves the fitted model of each
trial itself (``models/trial_<n>.joblib``), as a user who wants to keep the best model has
to: the optimizer keeps only parameters and targets.

    python3.11 -m venv /tmp/h5/bayesian-optimization/venv
    /tmp/h5/bayesian-optimization/venv/bin/pip install bayesian-optimization==2.0.4 \
        scikit-learn numpy
    /tmp/h5/bayesian-optimization/venv/bin/python \
        tests/corpus/heldout5/bayesian-optimization/make_fixtures.py

2.0.4 is the last release with ``JSONLogger`` (3.x replaced it by ``save_state``).
``python tune.py``: 4 random points then 8 guided ones (12 trials) on the user's
``data/moons_train.csv`` / ``data/moons_valid.csv``; the target is the negative validation
log loss; ``optimizer.max`` is printed at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TUNE = '''"""Tune an RBF SVM on the moons data: python tune.py"""
import json
from pathlib import Path

import joblib
import numpy as np
from bayes_opt import BayesianOptimization
from bayes_opt.event import Events
from bayes_opt.logger import JSONLogger
from sklearn.metrics import log_loss
from sklearn.svm import SVC


def load(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(int)


X_train, y_train = load("data/moons_train.csv")
X_valid, y_valid = load("data/moons_valid.csv")
Path("models").mkdir(exist_ok=True)
trial = 0


def objective(log_C, log_gamma):
    global trial
    model = SVC(C=10 ** log_C, gamma=10 ** log_gamma, probability=True, random_state=0)
    model.fit(X_train, y_train)
    joblib.dump(model, f"models/trial_{trial:03d}.joblib")
    trial += 1
    return -log_loss(y_valid, model.predict_proba(X_valid))


optimizer = BayesianOptimization(
    f=objective, pbounds={"log_C": (-2, 3), "log_gamma": (-3, 1)}, random_state=7, verbose=2)
logger = JSONLogger(path="./logs.log")
optimizer.subscribe(Events.OPTIMIZATION_STEP, logger)
optimizer.maximize(init_points=4, n_iter=8)
print("MAX", json.dumps(optimizer.max))
'''


def _moons(n: int, seed: int) -> tuple[list[list[float]], list[int]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n)
    angle = rng.uniform(0, np.pi, size=n)
    x = np.where(labels == 0, np.cos(angle), 1 - np.cos(angle))
    y = np.where(labels == 0, np.sin(angle), 0.5 - np.sin(angle))
    points = np.stack([x, y], 1) + rng.normal(0, 0.25, size=(n, 2))
    return points.tolist(), labels.tolist()


def _write(path: Path, n: int, seed: int) -> None:
    points, labels = _moons(n, seed)
    rows = [f"{a:.5f},{b:.5f},{c}" for (a, b), c in zip(points, labels, strict=True)]
    path.write_text("x1,x2,label\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    Path("data").mkdir()
    _write(Path("data/moons_train.csv"), 300, 0)
    _write(Path("data/moons_valid.csv"), 150, 1)
    Path("tune.py").write_text(TUNE)
    done = subprocess.run([sys.executable, "tune.py"], capture_output=True, text=True,
                          check=False)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    best = json.loads(done.stdout.strip().splitlines()[-1].removeprefix("MAX "))
    steps = [json.loads(line) for line in Path("logs.log").read_text().splitlines()]
    assert len(steps) == 12 == len(list(Path("models").iterdir()))
    targets = [step["target"] for step in steps]
    index = targets.index(max(targets))
    assert steps[index]["target"] == best["target"] and targets.count(best["target"]) == 1
    assert steps[index]["params"] == best["params"]
    return [{
        "run": "python tune.py", "best": f"models/trial_{index:03d}.joblib",
        "latest": f"models/trial_{len(steps) - 1:03d}.joblib",
        "evidence": f"optimizer.max (printed by tune.py) is target {best['target']:.5f} at "
                    f"params {best['params']}, line {index + 1} of the JSONLogger's logs.log "
                    f"(one line per probe, in order), i.e. trial {index} of the user's "
                    f"objective, which saved models/trial_{index:03d}.joblib; latest is the "
                    f"last probe, line {len(steps)}: trial {len(steps) - 1}. bayes_opt itself "
                    f"saves no model: the per-trial files are the user's"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path == "logs.log":
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "bayesian-optimization",
           tool="bayesian-optimization",
           kind="Bayesian hyperparameter optimization (bayes_opt.BayesianOptimization, "
                "JSONLogger)",
           command="python tune.py (tune.py: BayesianOptimization over SVC log_C, log_gamma; "
                   "JSONLogger(path='./logs.log') on Events.OPTIMIZATION_STEP; maximize("
                   "init_points=4, n_iter=8); the objective joblib.dumps each trial's model "
                   "to models/trial_<n>.joblib)")
