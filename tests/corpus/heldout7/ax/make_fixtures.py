"""Ax (ax-platform): the user's ``tune.py`` tunes a NumPy ridge regression on its toy data
with Ax's ``Client`` (the Ax 1.x API: ``configure_experiment``, ``configure_optimization``,
``get_next_trials``, ``complete_trial``) and its default generation strategy (the centre
of the space, 4 Sobol trials, then BoTorch), and saves the experiment with
``client.save_to_json_file()`` (Ax's documented snapshot, default name
``ax_client_snapshot.json``); the objective saves each trial's fitted model itself.

    python3.11 -m venv /tmp/h7/ax/venv
    /tmp/h7/ax/venv/bin/pip install torch==2.13.0 ax-platform
    /tmp/h7/ax/venv/bin/python tests/corpus/heldout7/ax/make_fixtures.py

``python tune.py``: 8 trials over ``log_alpha`` in [-4, 2] and ``degree`` in 1..4 (a
polynomial feature expansion), minimizing the validation MSE of a ridge fitted on
``data/train.csv`` and scored on ``data/valid.csv``. Each trial ``np.savez``es its weights
to ``models/trial_<index>.npz``; at the end the script prints
``client.get_best_parameterization()`` and saves the snapshot.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TUNE = '''"""Tune the ridge regression's regularisation and degree with Ax: python tune.py"""
import json

import numpy as np
from ax import ChoiceParameterConfig, Client, RangeParameterConfig


def load(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1]


def expand(x, degree):
    return np.hstack([np.ones((len(x), 1))] + [x ** d for d in range(1, degree + 1)])


def train_and_score(trial, log_alpha, degree):
    x_train, y_train = load("data/train.csv")
    x_valid, y_valid = load("data/valid.csv")
    a, b = expand(x_train, degree), expand(x_valid, degree)
    w = np.linalg.solve(a.T @ a + 10 ** log_alpha * np.eye(a.shape[1]), a.T @ y_train)
    mse = float(np.mean((b @ w - y_valid) ** 2))
    np.savez(f"models/trial_{trial}.npz", w=w, degree=degree, log_alpha=log_alpha)
    return mse


client = Client(random_seed=0)
client.configure_experiment(
    name="ridge_tuning",
    parameters=[
        RangeParameterConfig(name="log_alpha", parameter_type="float", bounds=(-4.0, 2.0)),
        ChoiceParameterConfig(name="degree", parameter_type="int", values=[1, 2, 3, 4],
                              is_ordered=True),
    ],
)
client.configure_optimization(objective="-val_mse")
for _ in range(8):
    for index, params in client.get_next_trials(max_trials=1).items():
        mse = train_and_score(index, params["log_alpha"], params["degree"])
        client.complete_trial(trial_index=index, raw_data={"val_mse": mse})
        print(f"trial {index}: {params} val_mse={mse:.4f}")
best, prediction, index, arm = client.get_best_parameterization(use_model_predictions=False)
print("BEST " + json.dumps({"params": best, "trial_index": index, "arm": arm}))
client.save_to_json_file()
'''


def _data(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    folder.mkdir()
    for name, n in (("train", 200), ("valid", 80)):
        x = rng.uniform(-2, 2, size=(n, 3))
        y = 1.5 * x[:, 0] - 0.8 * x[:, 1] ** 2 + 0.3 * x[:, 2] ** 3 + rng.normal(0, 0.3, n)
        rows = [",".join(f"{v:.5f}" for v in (*r, t)) for r, t in zip(x, y, strict=True)]
        (folder / f"{name}.csv").write_text("x1,x2,x3,y\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data"))
    Path("tune.py").write_text(TUNE)
    Path("models").mkdir()
    done = subprocess.run([sys.executable, "tune.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr[-3000:])
    best = json.loads(next(line for line in done.stdout.splitlines()
                           if line.startswith("BEST "))[5:])
    snapshot = json.loads(Path("ax_client_snapshot.json").read_text())
    trials = snapshot["experiment"]["trials"]
    last = max(int(i) for i in trials)
    assert last == 7, trials.keys()
    for index in range(8):
        assert Path(f"models/trial_{index}.npz").is_file()
    index = best["trial_index"]
    return [{
        "run": "python tune.py", "best": f"models/trial_{index}.npz",
        "latest": f"models/trial_{last}.npz",
        "evidence": f"client.get_best_parameterization(use_model_predictions=False) (printed "
                    f"by tune.py) returned trial_index {index}, arm {best['arm']}, params "
                    f"{best['params']}; the user's objective saved trial <index> as "
                    f"models/trial_<index>.npz; latest is the last trial of the snapshot's "
                    f"experiment.trials, {last}. Ax itself saves no model"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path == "ax_client_snapshot.json":
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "ax-platform", tool="ax",
           kind="Bayesian optimization (Ax Client, JSON snapshot)",
           command="python tune.py (tune.py: ax.Client, 8 trials of a NumPy ridge, each "
                   "saving models/trial_<index>.npz, client.save_to_json_file() to "
                   "ax_client_snapshot.json)")
