"""dehb: the user's ``tune.py`` tunes a scikit-learn ``MLPClassifier`` on the user's
``data/train.csv`` with DEHB (differential evolution with Hyperband, the number of training
epochs as fidelity, 3 to 27), as DEHB's examples set it up (a ConfigSpace, an objective
returning ``fitness``, ``cost`` and ``info``, ``output_path``, ``run(fevals=...)``). The
objective ``joblib.dump``s each evaluated model to ``models/<config hash>_e<epochs>.joblib``
and returns its path in ``info``, which DEHB keeps in its history and incumbent.

    python3.11 -m venv /tmp/h9/dehb/venv
    /tmp/h9/dehb/venv/bin/pip install dehb scikit-learn "pyarrow>=16.1,<20"
    /tmp/h9/dehb/venv/bin/python tests/corpus/heldout9/dehb/make_fixtures.py

``python tune.py``: ``DEHB(..., min_fidelity=3, max_fidelity=27, eta=3, n_workers=1,
output_path="results", seed=0, log_level="INFO").run(fevals=20)``. dehb 0.1.2 pins
``numpy<2``, and pip's newest pyarrow needs NumPy 2 (its history would not be saved), hence
the pyarrow bound.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TUNE = '''"""Tune an MLP classifier on data/train.csv with DEHB (fidelity: training epochs)."""
import hashlib
import json
import os
import time
import warnings

import ConfigSpace as CS
import joblib
import numpy as np
from dehb import DEHB
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

warnings.filterwarnings("ignore", category=ConvergenceWarning)
table = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
X, y = table[:, :-1], table[:, -1].astype(int)
Xtr, ytr, Xva, yva = X[:480], y[:480], X[480:], y[480:]

cs = CS.ConfigurationSpace(seed=0)
cs.add([CS.UniformFloatHyperparameter("learning_rate_init", 1e-4, 1e-1, log=True),
        CS.UniformIntegerHyperparameter("hidden", 8, 64, log=True),
        CS.UniformFloatHyperparameter("alpha", 1e-6, 1e-2, log=True)])


def objective(config, fidelity, **kwargs):
    start = time.time()
    params = dict(config)
    model = MLPClassifier(hidden_layer_sizes=(params["hidden"],), alpha=params["alpha"],
                          learning_rate_init=params["learning_rate_init"],
                          max_iter=int(fidelity), random_state=0).fit(Xtr, ytr)
    acc = model.score(Xva, yva)
    key = hashlib.md5(json.dumps(params, sort_keys=True).encode()).hexdigest()[:10]
    path = f"models/{key}_e{int(fidelity)}.joblib"
    joblib.dump(model, path)
    return {"fitness": 1 - acc, "cost": time.time() - start,
            "info": {"model": path, "fidelity": int(fidelity)}}


if __name__ == "__main__":
    os.makedirs("models", exist_ok=True)
    dehb = DEHB(f=objective, cs=cs, min_fidelity=3, max_fidelity=27, eta=3, n_workers=1,
                output_path="results", seed=0, log_level="INFO")
    traj, runtime, history = dehb.run(fevals=20)
    config, score = dehb.get_incumbents()
    print("incumbent", dict(config), "error", score)
    print("incumbent model", dehb.inc_info["model"])
'''

#: The last evaluation DEHB recorded, from its own saved history.
LAST = """import pandas as pd
history = pd.read_parquet("results/history.parquet.gzip")
print(len(history), history.iloc[-1]["config_id"], history.iloc[-1]["info"]["model"])
"""


def _table(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 10))
    y = ((X[:, :5] ** 2).sum(axis=1) > 5).astype(int)
    path.parent.mkdir(parents=True)
    header = ",".join([f"x{i}" for i in range(10)] + ["label"])
    rows = [",".join(f"{v:.4f}" for v in r) + f",{c}" for r, c in zip(X, y, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _table(Path("data/train.csv"))
    Path("tune.py").write_text(TUNE)
    done = subprocess.run([sys.executable, "tune.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout[-1500:] + done.stderr[-1500:])
    printed = done.stdout.strip().splitlines()[-1]
    assert printed.startswith("incumbent model models/"), printed
    best = printed.split()[-1]
    incumbent = json.loads(Path("results/incumbent.json").read_text())
    assert incumbent["info"]["model"] == best, incumbent
    count, config_id, latest = subprocess.run([sys.executable, "-c", LAST], capture_output=True,
                                              text=True, check=True).stdout.split()
    assert count == "20", count
    return [{
        "run": "python tune.py (results/)",
        "best": best, "latest": latest,
        "evidence": f"results/incumbent.json (DEHB's incumbent, score "
                    f"{incumbent['score']:.4f}) has info.model {best}, as printed from "
                    f"dehb.get_incumbents()/inc_info; latest: the last of the 20 evaluations in "
                    f"results/history.parquet.gzip (config_id {config_id}) has info.model "
                    f"{latest}. DEHB saves no model itself: the objective does, and returns "
                    f"the path in info"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("results/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "dehb", tool="dehb",
           kind="hyperparameter optimization (DEHB output_path results)",
           command="python tune.py (tune.py: DEHB(f=objective, cs=cs, min_fidelity=3, "
                   "max_fidelity=27, eta=3, n_workers=1, output_path='results', seed=0, "
                   "log_level='INFO').run(fevals=20); the objective joblib.dumps each model "
                   "to models/<config hash>_e<epochs>.joblib)")
