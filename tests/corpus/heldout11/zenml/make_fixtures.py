"""zenml: the ZenML MLOps framework, as its quickstart has a user run a local pipeline:
``zenml init`` in the project, then ``python run.py`` with a three-step ``@pipeline`` (load
the user's ``data/flowers.csv`` and split it, train a scikit-learn ``LogisticRegression``,
evaluate it and ``log_metadata`` the test accuracy), attached to a ZenML ``Model``
(``flower_classifier``, the Model Control Plane), run twice with different ``C`` (the second
run's ``load_data`` step is a cache hit); then ``python promote.py`` puts the most accurate
model version in the ``production`` stage, as the quickstart's promotion step does.
The default local stack: SQLite store, local artifact store, local orchestrator. The global
config is put inside the workspace with ``ZENML_CONFIG_PATH=<ws>/.config/zenml`` (the default
is ``~/.config/zenml``), so the SQLite database and the artifact store (both under
``local_stores/``) land in it; ``ZENML_ANALYTICS_OPT_IN=false`` (no network here).

    python3 -m venv /tmp/h11/zenml/venv
    /tmp/h11/zenml/venv/bin/pip install "zenml[server]" scikit-learn pandas
    /tmp/h11/zenml/venv/bin/python tests/corpus/heldout11/zenml/make_fixtures.py

(zenml 0.98.0, scikit-learn 1.9.1, pandas 3.1.1; no pyarrow, so the pandas materializer
writes CSV.) ``zenml init``, ``python run.py --C 1.0``, ``python run.py --C 0.003``,
``python promote.py``; about a minute.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

RUN = '''"""A ZenML training pipeline: python run.py --C 1.0"""
import argparse
from typing import Annotated, Tuple

import pandas as pd
from sklearn.base import ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from zenml import Model, log_metadata, pipeline, step


@step
def load_data() -> Tuple[Annotated[pd.DataFrame, "train_df"],
                         Annotated[pd.DataFrame, "test_df"]]:
    df = pd.read_csv("data/flowers.csv")
    train, test = train_test_split(df, test_size=0.3, random_state=0, stratify=df["label"])
    return train, test


@step
def train_model(train_df: pd.DataFrame, C: float = 1.0) -> Annotated[ClassifierMixin, "model"]:
    model = LogisticRegression(C=C, max_iter=500)
    model.fit(train_df.drop(columns="label"), train_df["label"])
    return model


@step
def evaluate(model: ClassifierMixin, test_df: pd.DataFrame) -> Annotated[float, "test_accuracy"]:
    acc = float(model.score(test_df.drop(columns="label"), test_df["label"]))
    log_metadata(metadata={"test_accuracy": acc}, infer_model=True)
    print(f"test accuracy {acc:.3f}")
    return acc


@pipeline(model=Model(name="flower_classifier", description="logistic regression on flowers.csv"))
def training_pipeline(C: float = 1.0):
    train_df, test_df = load_data()
    model = train_model(train_df, C=C)
    evaluate(model, test_df)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--C", type=float, default=1.0)
    args = parser.parse_args()
    run = training_pipeline(C=args.C)
    print("run", run.name, run.status)
'''

PROMOTE = '''"""Promote the most accurate flower_classifier version to production: python promote.py"""
from zenml.client import Client
from zenml.enums import ModelStages

client = Client()
versions = client.list_model_versions("flower_classifier", hydrate=True)
acc = {v.name: v.run_metadata["test_accuracy"] for v in versions}
print("accuracy by version", acc)
best = max(versions, key=lambda v: v.run_metadata["test_accuracy"])
best.set_stage(ModelStages.PRODUCTION, force=True)
for stage in (ModelStages.PRODUCTION, ModelStages.LATEST):
    mv = client.get_model_version("flower_classifier", stage)
    print(stage.value, "version", mv.name, "model artifact", mv.get_artifact("model").uri)
'''


def _toy_data() -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 150)
    x = rng.normal(size=(150, 4)) + y[:, None] * np.array([1.5, -1.0, 1.2, 0.6])
    df = pd.DataFrame(x, columns=["sepal_length", "sepal_width", "petal_length",
                                  "petal_width"]).round(3)
    df["label"] = y
    Path("data").mkdir()
    df.to_csv("data/flowers.csv", index=False)


def run(work: Path) -> list[dict[str, object]]:
    _toy_data()
    Path("run.py").write_text(RUN)
    Path("promote.py").write_text(PROMOTE)
    bindir = Path(sys.executable).parent
    env = {**os.environ, "ZENML_CONFIG_PATH": str(work / ".config/zenml"),
           "ZENML_ANALYTICS_OPT_IN": "false",
           "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}

    def sh(*cmd: str) -> str:
        done = subprocess.run(list(cmd), capture_output=True, text=True, env=env,
                              timeout=600)
        sys.stderr.write(done.stdout + done.stderr)
        assert done.returncode == 0, (cmd, done.returncode)
        return done.stdout + done.stderr

    sh(str(bindir / "zenml"), "init")
    runs = {}
    for c in ("1.0", "0.003"):
        out = sh(sys.executable, "run.py", "--C", c)
        runs[c] = re.search(r"^run (\S+) completed$", out, re.M).group(1)
        assert "test accuracy" in out, out
    out = sh(sys.executable, "promote.py")
    root = str(work.resolve()) + "/"
    found = dict(re.findall(r"^(production|latest) version \d+ model artifact (\S+)$", out,
                            re.M))
    versions = dict(re.findall(r"^(production|latest) version (\d+) ", out, re.M))
    assert versions == {"production": "1", "latest": "2"}, out
    best, latest = (found[s].removeprefix(root) for s in ("production", "latest"))
    for uri in (best, latest):
        assert (Path(uri) / "artifact.pkl").is_file(), uri
    accuracy = re.search(r"^accuracy by version (.+)$", out, re.M).group(1)
    return [{"run": f"python run.py --C 1.0; python run.py --C 0.003 ({runs['1.0']}, "
                    f"{runs['0.003']}); python promote.py",
             "best": [f"{best}/artifact.pkl", f"{best}/python_version.txt"],
             "latest": [f"{latest}/artifact.pkl", f"{latest}/python_version.txt"],
             "evidence": "ZenML's Model Control Plane (in the SQLite store): the pipeline's "
                         "Model 'flower_classifier' got version 1 (C=1.0) and version 2 "
                         "(C=0.003); promote.py printed the versions' logged test_accuracy "
                         f"{accuracy} and set version 1 to the production stage; "
                         "client.get_model_version('flower_classifier', ModelStages."
                         "PRODUCTION).get_artifact('model').uri printed " + best + ", and "
                         "ModelStages.LATEST (version 2) gave " + latest + " (each the "
                         "'model' artifact version, written by ZenML's cloudpickle "
                         "materializer as artifact.pkl with python_version.txt)"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if "/train_model/model/" in path:
        return "checkpoint"
    if path.endswith(("/describe.csv", "/sample.csv")):
        return "log"
    if "/load_data/" in path:
        return "augmented"
    if path.endswith("/zenml.db") or "/logs/" in path or "/evaluate/" in path:
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "zenml", tool="zenml",
           kind="MLOps pipelines (local SQLite store, local artifact store, model versions)",
           command="zenml init; python run.py --C 1.0; python run.py --C 0.003 (a @pipeline("
                   "model=Model(name='flower_classifier')) of load_data, train_model, "
                   "evaluate); python promote.py (set the most accurate version to "
                   "production) with ZENML_CONFIG_PATH=.config/zenml")
