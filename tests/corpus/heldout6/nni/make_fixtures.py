"""NNI (Neural Network Intelligence): a hyperparameter tuning experiment on the local
training service, as NNI's quickstart runs one from Python (``nni.experiment.Experiment``),
with ``HOME`` set to the scratch workspace so that NNI's default ``~/nni-experiments`` is
inside it. The TPE tuner (seed 12345, as in NNI's docs) tries 3 trials
(``max_trial_number = 3``, one at a time) of the user's ``trial.py``.

    python3.11 -m venv /tmp/h6/nni/venv
    /tmp/h6/nni/venv/bin/pip install nni numpy
    /tmp/h6/nni/venv/bin/python tests/corpus/heldout6/nni/make_fixtures.py

``HOME=<workspace> python tune.py``: ``tune.py`` builds the experiment (search space ``lr``
loguniform, ``hidden`` choice; TPE, ``optimize_mode`` maximize), ``run``s it, prints NNI's
``export_data()`` (each trial's parameters and final result) and stops it. ``trial.py`` reads
its parameters with ``nni.get_next_parameter()``, trains a tiny NumPy MLP on the user's
``data/rings.npz``, reports the validation accuracy each epoch
(``nni.report_intermediate_result``) and at the end (``nni.report_final_result``), and saves
its weights to ``model.npz`` in the trial's output folder (``NNI_OUTPUT_DIR``, where NNI's
docs tell a trial to put its outputs).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRIAL = '''"""One NNI trial: train a small MLP on data/rings.npz with the tuner's lr and hidden."""
import os

import nni
import numpy as np

params = {"lr": 0.1, "hidden": 16}
params.update(nni.get_next_parameter())
data = np.load("data/rings.npz")
X, y = data["X"], data["y"]
Xtr, ytr, Xva, yva = X[:480], y[:480], X[480:], y[480:]
rng = np.random.default_rng(0)
W1 = rng.normal(0, 1.0, (2, params["hidden"]))
b1 = np.zeros(params["hidden"])
W2 = rng.normal(0, 0.5, (params["hidden"], 1))
b2 = np.zeros(1)
accuracy = 0.0
for epoch in range(1, 41):
    h = np.tanh(Xtr @ W1 + b1)
    p = 1 / (1 + np.exp(-(h @ W2 + b2)))[:, 0]
    g = (p - ytr)[:, None] / len(ytr)
    dh = (g @ W2.T) * (1 - h ** 2)
    W2 -= params["lr"] * h.T @ g
    b2 -= params["lr"] * g.sum(0)
    W1 -= params["lr"] * Xtr.T @ dh
    b1 -= params["lr"] * dh.sum(0)
    accuracy = float((((np.tanh(Xva @ W1 + b1) @ W2 + b2)[:, 0] > 0) == yva).mean())
    if epoch % 5 == 0:
        nni.report_intermediate_result(accuracy)
path = os.path.join(os.environ.get("NNI_OUTPUT_DIR", "."), "model.npz")
np.savez(path, W1=W1, b1=b1, W2=W2, b2=b2)
print("saved", path, "val_acc", accuracy)
nni.report_final_result(accuracy)
'''

TUNE = '''"""Tune trial.py's lr and hidden with NNI's TPE tuner (3 trials, local machine)."""
import json

from nni.experiment import Experiment

search_space = {
    "lr": {"_type": "loguniform", "_value": [0.05, 5.0]},
    "hidden": {"_type": "choice", "_value": [4, 16, 32]},
}

experiment = Experiment("local")
experiment.config.experiment_name = "rings_mlp"
experiment.config.trial_command = "python trial.py"
experiment.config.trial_code_directory = "."
experiment.config.search_space = search_space
experiment.config.tuner.name = "TPE"
experiment.config.tuner.class_args = {"optimize_mode": "maximize", "seed": 12345}
experiment.config.max_trial_number = 3
experiment.config.trial_concurrency = 1
experiment.run(8747)
trials = [{"trial": t.trialJobId, "parameter": t.parameter, "value": t.value}
          for t in experiment.export_data()]
print("EXPORT", json.dumps({"experiment": experiment.id, "trials": trials}))
experiment.stop()
'''


def _rings(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=600)
    radius = np.where(labels == 1, 2.0, 1.0) + rng.normal(0, 0.25, size=600)
    angle = rng.uniform(0, 2 * np.pi, size=600)
    points = np.stack([radius * np.cos(angle), radius * np.sin(angle)], 1)
    path.parent.mkdir(parents=True)
    np.savez(path, X=points, y=labels.astype(float))


def run(work: Path) -> list[dict[str, object]]:
    _rings(Path("data/rings.npz"))
    Path("trial.py").write_text(TRIAL)
    Path("tune.py").write_text(TUNE)
    env = {**os.environ, "HOME": str(work),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "tune.py"], capture_output=True, text=True,
                          check=True, env=env, timeout=600)
    sys.stderr.write(done.stdout + done.stderr)
    line = next(x for x in done.stdout.splitlines() if x.startswith("EXPORT "))
    exported = json.loads(line.removeprefix("EXPORT "))
    exp = exported["experiment"]
    trials = {t["trial"]: float(t["value"]) for t in exported["trials"]}
    assert len(trials) == 3, trials
    db = sqlite3.connect(f"nni-experiments/{exp}/db/nni.sqlite")
    finals = {trial: float(json.loads(json.loads(data)))
              for trial, data in db.execute(
                  "SELECT trialJobId, data FROM MetricData WHERE type = 'FINAL'")}
    ended = db.execute("SELECT trialJobId, timestamp FROM TrialJobEvent "
                       "WHERE event = 'SUCCEEDED' ORDER BY timestamp").fetchall()
    db.close()
    assert finals == trials, (finals, trials)
    top = max(trials.values())
    bests = [t for t, v in trials.items() if v == top]
    assert len(bests) == 1, trials
    last = ended[-1][0]
    folder = f"nni-experiments/{exp}/environments/local-env/trials"
    for trial in trials:
        assert Path(f"{folder}/{trial}/model.npz").is_file(), trial
    values = ", ".join(f"{t} {v:.4f}" for t, v in trials.items())
    return [{
        "run": f"nni-experiments/{exp}", "best": f"{folder}/{bests[0]}/model.npz",
        "latest": f"{folder}/{last}/model.npz",
        "evidence": f"experiment.export_data() (printed by tune.py) and the MetricData table "
                    f"of db/nni.sqlite give the final results {values}; with optimize_mode "
                    f"maximize the best trial is {bests[0]}. Latest: {last}, the last "
                    f"SUCCEEDED event in db/nni.sqlite's TrialJobEvent table. NNI itself saves "
                    f"no model: each trial's model.npz is the user's trial.py writing into "
                    f"the trial's NNI_OUTPUT_DIR (the path it printed, in trial.log)"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith("/model.npz"):
        return "checkpoint"
    if path == "nni-experiments/.experiment":
        return "cache"
    if path.startswith("nni-experiments/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "nni", tool="nni",
           kind="hyperparameter tuning (NNI experiment, local training service)",
           command="HOME=<workspace> python tune.py (tune.py: nni.experiment.Experiment("
                   "'local'), TPE maximize seed 12345, max_trial_number 3, trial_concurrency 1, "
                   "trial_command 'python trial.py'; run(8747), export_data(), stop())")
