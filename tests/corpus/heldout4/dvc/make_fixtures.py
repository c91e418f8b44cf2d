"""DVC (the pipeline and data versioning tool): a Git project whose toy dataset is tracked
with ``dvc add`` and whose ``dvc.yaml`` stage trains a scikit-learn logistic regression,
writing ``model.pkl`` and ``metrics.json``; ``dvc repro``, then two ``dvc exp run`` with a
changed parameter, as DVC's get-started guide does, on CPU.

    /work/venvs/tools-b/bin/pip install dvc scikit-learn pyyaml
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/dvc/make_fixtures.py

``dvc add data/iris.csv`` writes ``data/iris.csv.dvc`` and ``data/.gitignore`` and copies
the file into the content-addressed cache ``.dvc/cache/files/md5/``; ``dvc repro`` runs the
stage and writes ``dvc.lock`` (the hashes of its dependencies and outputs), caching
``model.pkl`` (``metrics.json`` is ``cache: false``). Each ``dvc exp run -S train.C=...``
runs the pipeline in the workspace with the changed ``params.yaml``, caches its outputs and
records the experiment as a Git ref; the workspace keeps the last one's results. The whole
project is captured: ``.git``, ``.dvc/cache``, ``.dvc/tmp``. Analytics and the update
check are off (no network).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Fit a logistic regression on the iris table; DVC runs this as the train stage."""
import json
import pickle

import pandas as pd
import yaml
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

params = yaml.safe_load(open("params.yaml"))["train"]
frame = pd.read_csv("data/iris.csv")
X, y = frame.drop(columns="species"), frame["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
model = LogisticRegression(C=params["C"], max_iter=params["max_iter"]).fit(X_train, y_train)
with open("model.pkl", "wb") as f:
    pickle.dump(model, f)
with open("metrics.json", "w") as f:
    json.dump({"accuracy": model.score(X_test, y_test)}, f, indent=2)
'''

DVC_YAML = """stages:
  train:
    cmd: python train.py
    deps:
    - data/iris.csv
    - train.py
    params:
    - train
    outs:
    - model.pkl
    metrics:
    - metrics.json:
        cache: false
"""


def run(work: Path) -> list[dict[str, object]]:
    from sklearn.datasets import load_iris

    env = {**os.environ, "DVC_NO_ANALYTICS": "1",
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "GIT_AUTHOR_NAME": "ML User", "GIT_AUTHOR_EMAIL": "user@example.com",
           "GIT_COMMITTER_NAME": "ML User", "GIT_COMMITTER_EMAIL": "user@example.com"}

    def sh(*cmd: str) -> str:
        return subprocess.run(cmd, cwd=work, env=env, check=True, capture_output=True,
                              text=True).stdout

    sh("git", "init", "-q", "-b", "main")
    sh("dvc", "init", "-q")
    sh("dvc", "config", "core.check_update", "false")
    sh("git", "commit", "-qm", "Initialize DVC")
    (work / "data").mkdir()
    iris = load_iris(as_frame=True)
    frame = iris.frame.rename(columns={"target": "species"})
    frame.to_csv(work / "data" / "iris.csv", index=False)
    sh("dvc", "add", "data/iris.csv")
    sh("git", "add", "data/iris.csv.dvc", "data/.gitignore")
    sh("git", "commit", "-qm", "Track the iris table with DVC")
    (work / "train.py").write_text(TRAIN)
    (work / "params.yaml").write_text("train:\n  C: 1.0\n  max_iter: 200\n")
    (work / "dvc.yaml").write_text(DVC_YAML)
    sh("dvc", "repro")
    sh("git", "add", ".gitignore", "dvc.yaml", "dvc.lock", "params.yaml", "train.py",
       "metrics.json")
    sh("git", "commit", "-qm", "Train stage")
    ran = []
    for c in ("0.05", "20.0"):
        out = sh("dvc", "exp", "run", "-S", f"train.C={c}")
        ran += [line.strip() for line in out.splitlines() if line.startswith("Ran ")]
    print(sh("dvc", "exp", "show", "--no-pager", "--md"))
    return [{"run": ".", "best": None, "latest": "model.pkl",
             "evidence": f"dvc exp run printed {ran!r} and 'Experiment results have been "
                         f"applied to your workspace.': model.pkl is the last experiment's "
                         f"(train.C=20.0; dvc.lock names its hash); DVC records no best"}]


def label(path: str) -> str:
    if path == "data/iris.csv":
        return "dataset"
    if path == "model.pkl":
        return "checkpoint"
    if path == "metrics.json":
        return "log"
    if path.startswith((".dvc/cache/", ".dvc/tmp/")):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "dvc", tool="DVC",
           kind="pipeline and data versioning",
           command="git init; dvc init; dvc add data/iris.csv; dvc repro (dvc.yaml stage "
                   "train: python train.py -> model.pkl, metrics.json); "
                   "dvc exp run -S train.C=0.05; dvc exp run -S train.C=20.0")
