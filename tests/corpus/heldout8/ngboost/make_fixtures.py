"""NGBoost: the user's ``train.py`` fits an ``NGBRegressor`` (natural gradient boosting for
probabilistic prediction) on the user's ``data/concrete.csv`` with a validation split and
``early_stopping_rounds``, prints NGBoost's own early-stopping record (``best_val_loss_itr``,
``evals_result``), writes that record to ``reports/``, and pickles the fitted model (NGBoost's
documented way to save a model); it is run twice, with the Normal and the LogNormal
predictive distribution, its stdout kept as the run's log as a user redirecting it would.

    python3.11 -m venv /tmp/h8/ngboost/venv
    /tmp/h8/ngboost/venv/bin/pip install ngboost
    /tmp/h8/ngboost/venv/bin/python tests/corpus/heldout8/ngboost/make_fixtures.py

``python train.py normal > logs/train_normal.log`` then ``python train.py lognormal >
logs/train_lognormal.log``: each fits up to 500 boosting iterations of depth-3 trees
(learning rate 0.05) and stops 20 iterations after the best validation NLL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Fit a probabilistic strength model: python train.py normal|lognormal"""
import json
import pickle
import sys

import numpy as np
from ngboost import NGBRegressor
from ngboost.distns import LogNormal, Normal
from ngboost.scores import LogScore
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

DISTS = {"normal": Normal, "lognormal": LogNormal}

if __name__ == "__main__":
    name = sys.argv[1]
    table = np.loadtxt("data/concrete.csv", delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
    X_tr, X_val, y_tr, y_val = train_test_split(X_train, y_train, test_size=0.2,
                                                random_state=0)
    ngb = NGBRegressor(Dist=DISTS[name], Score=LogScore, n_estimators=500,
                       learning_rate=0.05, verbose_eval=50, random_state=0,
                       Base=DecisionTreeRegressor(criterion="friedman_mse", max_depth=3))
    ngb.fit(X_tr, y_tr, X_val=X_val, Y_val=y_val, early_stopping_rounds=20)
    best = ngb.best_val_loss_itr
    dist = ngb.pred_dist(X_test, max_iter=best)
    nll = -dist.logpdf(y_test).mean()
    print(f"best_val_loss_itr={best} iterations_fitted={len(ngb.base_models)} "
          f"test NLL at best={nll:.4f}")
    with open(f"reports/evals_{name}.json", "w") as f:
        json.dump({"best_val_loss_itr": best, "n_fitted": len(ngb.base_models),
                   "test_nll": float(nll), "evals_result": ngb.evals_result}, f, indent=1)
    path = f"models/ngb_{name}.pkl"
    with open(path, "wb") as f:
        pickle.dump(ngb, f)
    print("saved", path)
'''


def _concrete(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 600
    cement = rng.uniform(100, 540, n)
    slag = rng.uniform(0, 360, n) * (rng.random(n) < 0.6)
    ash = rng.uniform(0, 200, n) * (rng.random(n) < 0.5)
    water = rng.uniform(120, 250, n)
    plastic = rng.uniform(0, 30, n) * (rng.random(n) < 0.6)
    coarse = rng.uniform(800, 1150, n)
    fine = rng.uniform(590, 990, n)
    age = rng.choice([3, 7, 14, 28, 56, 90, 180, 365], n)
    binder = cement + 0.6 * slag + 0.4 * ash
    mean = 8 + 40 * binder / (binder + water) ** 1.1 * np.log1p(age) + 0.3 * plastic
    strength = np.clip(mean * rng.lognormal(0, 0.15, n), 2.0, None)
    cols = [cement, slag, ash, water, plastic, coarse, fine, age, strength]
    path.parent.mkdir(parents=True)
    header = "cement,slag,fly_ash,water,superplasticizer,coarse_agg,fine_agg,age_days,strength"
    rows = [",".join(f"{v:.2f}" for v in row) for row in zip(*cols, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _concrete(Path("data/concrete.csv"))
    Path("train.py").write_text(TRAIN)
    for folder in ("models", "reports", "logs"):
        Path(folder).mkdir()
    checkpoints = []
    for name in ("normal", "lognormal"):
        log = Path(f"logs/train_{name}.log")
        with log.open("w") as out:
            subprocess.run([sys.executable, "train.py", name], stdout=out, check=True)
        printed = log.read_text()
        sys.stderr.write(printed)
        path = f"models/ngb_{name}.pkl"
        assert printed.strip().splitlines()[-1] == f"saved {path}", printed
        evals = json.loads(Path(f"reports/evals_{name}.json").read_text())
        stopped = "== Early stopping achieved." in printed
        assert stopped, printed
        checkpoints.append({
            "run": f"python train.py {name} > logs/train_{name}.log", "best": None,
            "latest": path,
            "evidence": f"NGBoost printed '== Early stopping achieved.' and '== Best "
                        f"iteration / VAL{evals['best_val_loss_itr']}': its best is an "
                        f"iteration (best_val_loss_itr) inside the one fitted model, which "
                        f"keeps all {evals['n_fitted']} iterations and is pickled once to "
                        f"{path} (the script printed 'saved {path}'); NGBoost saves no "
                        f"checkpoint file of its own, so there is no best file"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("reports/", "logs/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "ngboost", tool="ngboost",
           kind="probabilistic gradient boosting (NGBRegressor, early stopping, pickle)",
           command="python train.py normal > logs/train_normal.log; python train.py lognormal "
                   "> logs/train_lognormal.log (train.py: NGBRegressor.fit with X_val, Y_val, "
                   "early_stopping_rounds=20; json.dump of best_val_loss_itr and evals_result "
                   "to reports/evals_<dist>.json; pickle.dump to models/ngb_<dist>.pkl)")
