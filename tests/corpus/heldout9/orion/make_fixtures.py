"""orion: ``orion hunt`` (Oríon's command line, as its tutorial runs it) tunes the learning
rate of the user's ``train.py`` (a NumPy logistic regression on the user's
``data/points.csv``, which reports its validation error with
``orion.client.report_objective`` and saves its weights to the path it is given), with a
``orion_config.yaml`` in the project that keeps Oríon's storage in a local pickled database
(``pickleddb``, ``orion_db.pkl``) and ``--working-dir trials`` so each trial gets a folder,
passed to the script as ``{trial.working_dir}``.

    python3.11 -m venv /tmp/h9/orion/venv
    /tmp/h9/orion/venv/bin/pip install orion typing_extensions
    /tmp/h9/orion/venv/bin/python tests/corpus/heldout9/orion/make_fixtures.py

``orion hunt -c orion_config.yaml -n logreg_lr --exp-max-trials 6 --working-dir trials
python train.py --lr~'loguniform(1e-3, 1.0)' --checkpoint '{trial.working_dir}/model.npz'``,
with the venv's ``bin`` first on ``PATH`` (an activated venv: Oríon runs ``python`` from
it). orion 0.2.7 imports ``typing_extensions`` without declaring it, hence the extra install.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

CONFIG = """storage:
  database:
    type: pickleddb
    host: orion_db.pkl
"""

TRAIN = '''"""Logistic regression on data/points.csv; the validation error is reported to Orion."""
import argparse

import numpy as np
from orion.client import report_objective

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--checkpoint", default="model.npz")
args = parser.parse_args()

table = np.loadtxt("data/points.csv", delimiter=",", skiprows=1)
X, y = table[:, :-1], table[:, -1]
Xtr, ytr, Xva, yva = X[:320], y[:320], X[320:], y[320:]
w = np.zeros(X.shape[1])
for epoch in range(args.epochs):
    p = 1 / (1 + np.exp(-Xtr @ w))
    w -= args.lr * Xtr.T @ (p - ytr) / len(ytr)
error = float(np.mean(((Xva @ w) > 0) != yva))
np.savez(args.checkpoint, w=w, lr=args.lr)
print(f"lr {args.lr:.5f} validation error {error:.4f}, saved {args.checkpoint}")
report_objective(error)
'''

HUNT = ["orion", "hunt", "-c", "orion_config.yaml", "-n", "logreg_lr", "--exp-max-trials", "6",
        "--working-dir", "trials", "python", "train.py", "--lr~loguniform(1e-3, 1.0)",
        "--checkpoint", "{trial.working_dir}/model.npz"]

#: What Oríon's own client says of the experiment: its best trial, and the last one done.
PICK = """import json
from orion.client import get_experiment
exp = get_experiment("logreg_lr", storage={"type": "legacy", "database": {
    "type": "pickleddb", "host": "orion_db.pkl"}})
done = exp.fetch_trials_by_status("completed")
last = max(done, key=lambda t: t.end_time)
best = exp.get_trial(uid=exp.stats.best_trials_id)
print(json.dumps({"best": best.working_dir, "value": exp.stats.best_evaluation,
                  "latest": last.working_dir, "end": str(last.end_time), "n": len(done)}))
"""


def _points(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 8))
    y = (X @ rng.normal(size=8) + rng.normal(0, 0.5, size=400) > 0).astype(int)
    path.parent.mkdir(parents=True)
    header = ",".join([f"x{i}" for i in range(8)] + ["label"])
    rows = [",".join(f"{v:.4f}" for v in r) + f",{c}" for r, c in zip(X, y, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _points(Path("data/points.csv"))
    Path("orion_config.yaml").write_text(CONFIG)
    Path("train.py").write_text(TRAIN)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(HUNT, env=env, capture_output=True, text=True, check=True)
    sys.stderr.write(done.stdout[-1500:])
    best_id = re.search(r"best trial:\n  id: ([0-9a-f]{32})\n  evaluation: ([0-9.]+)",
                        done.stdout)
    assert best_id, done.stdout
    info = json.loads(subprocess.run([sys.executable, "-c", PICK], env=env, capture_output=True,
                                     text=True, check=True).stdout)
    assert info["n"] == 6 and info["best"] == f"trials/{best_id.group(1)}", (info, best_id)
    return [{
        "run": "orion hunt -n logreg_lr (orion_db.pkl, trials/)",
        "best": f"{info['best']}/model.npz", "latest": f"{info['latest']}/model.npz",
        "evidence": f"orion hunt printed 'best trial: id: {best_id.group(1)} evaluation: "
                    f"{best_id.group(2)}', as get_experiment('logreg_lr').stats.best_trials_id "
                    f"says from orion_db.pkl; latest: the completed trial with the last end_time "
                    f"({info['end']}) in the database, {info['latest']}. The model.npz in each "
                    f"trial's working dir is the user's script saving there; Orion saves no "
                    f"model itself"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith(".npz"):
        return "checkpoint"
    if path.endswith((".lock", ".conf")):
        return "cache"
    if path.startswith("trials/") or path == "orion_db.pkl":
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "orion", tool="orion",
           kind="hyperparameter optimization (orion hunt, pickleddb storage)",
           command="orion hunt -c orion_config.yaml -n logreg_lr --exp-max-trials 6 "
                   "--working-dir trials python train.py --lr~'loguniform(1e-3, 1.0)' "
                   "--checkpoint '{trial.working_dir}/model.npz' (orion_config.yaml: storage "
                   "database pickleddb, host orion_db.pkl)")
