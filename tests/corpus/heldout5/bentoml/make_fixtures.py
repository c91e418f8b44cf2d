"""bentoml: BentoML's local model store and a built Bento, as its quickstart and "Model
Store" docs have them, with ``BENTOML_HOME`` (its documented override of ``~/bentoml``) the
project's ``bentoml/`` folder. The user's ``train.py`` fits a scikit-learn random forest on
``data/iris.csv`` and saves it with ``bentoml.sklearn.save_model('iris_clf', ...)``; it is
run twice (10 then 30 trees), so the store holds two versions and ``latest``. Their
``save_decoder.py`` saves a class-name decoder with ``bentoml.picklable_model.save_model``,
and ``bentoml build`` packs ``service.py`` (``bentoml.models.BentoModel('iris_clf:latest')``)
into a Bento.

    python3.11 -m venv /tmp/h5/bentoml/venv
    /tmp/h5/bentoml/venv/bin/pip install bentoml scikit-learn pandas
    /tmp/h5/bentoml/venv/bin/python tests/corpus/heldout5/bentoml/make_fixtures.py

``BENTOML_HOME=<workspace>/bentoml BENTOML_DO_NOT_TRACK=True``: ``python train.py 10``;
``python train.py 30``; ``python save_decoder.py``; ``bentoml build`` (``bentofile.yaml``:
``service: service:IrisClassifier``, ``include: [service.py, iris_labels.py]``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train the iris classifier and save it to the BentoML model store: python train.py N"""
import sys

import bentoml
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

if __name__ == "__main__":
    n_estimators = int(sys.argv[1])
    df = pd.read_csv("data/iris.csv")
    X, y = df.drop(columns="species"), df["species"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0,
                                                        stratify=y)
    clf = RandomForestClassifier(n_estimators=n_estimators, max_depth=4, random_state=0)
    clf.fit(X_train, y_train)
    accuracy = clf.score(X_test, y_test)
    print(f"test accuracy {accuracy:.3f}")
    model = bentoml.sklearn.save_model(
        "iris_clf", clf, signatures={"predict": {"batchable": True}},
        labels={"owner": "ml-team"},
        metadata={"accuracy": accuracy, "n_estimators": n_estimators})
    print(f"saved {model.tag}")
'''

LABELS = '''class LabelDecoder:
    """Turns the classifier's class codes back into species names."""

    def __init__(self, names):
        self.names = list(names)

    def __call__(self, codes):
        return [self.names[int(c)] for c in codes]
'''

SAVE_DECODER = '''import bentoml

import iris_labels

if __name__ == "__main__":
    decoder = iris_labels.LabelDecoder(["setosa", "versicolor", "virginica"])
    model = bentoml.picklable_model.save_model(
        "iris_decoder", decoder, signatures={"__call__": {"batchable": False}},
        external_modules=[iris_labels])
    print(f"saved {model.tag}")
'''

SERVICE = '''import bentoml
import numpy as np


@bentoml.service(resources={"cpu": "1"})
class IrisClassifier:
    model_ref = bentoml.models.BentoModel("iris_clf:latest")
    decoder_ref = bentoml.models.BentoModel("iris_decoder:latest")

    def __init__(self) -> None:
        self.model = bentoml.sklearn.load_model(self.model_ref)
        self.decode = bentoml.picklable_model.load_model(self.decoder_ref)

    @bentoml.api
    def classify(self, features: np.ndarray) -> list[str]:
        return self.decode(self.model.predict(features))
'''

BENTOFILE = '''service: "service:IrisClassifier"
labels:
  owner: ml-team
include:
  - "service.py"
  - "iris_labels.py"
python:
  packages:
    - scikit-learn
    - numpy
'''


def _iris(path: Path) -> None:
    from sklearn.datasets import load_iris

    iris = load_iris()
    path.parent.mkdir(parents=True)
    rows = [",".join(f"{v:.1f}" for v in x) + f",{c}"
            for x, c in zip(iris.data, iris.target, strict=True)]
    path.write_text("sepal_length,sepal_width,petal_length,petal_width,species\n"
                    + "\n".join(rows) + "\n")


def _run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(list(args), capture_output=True, text=True, check=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def _saved(out: str, name: str, store: Path) -> str:
    """The version the script printed, checked against the store's own ``latest``."""
    version = re.findall(rf"^saved {name}:(\w+)$", out, re.M)[-1]
    assert (store / name / "latest").read_text().strip() == version
    return version


def run(work: Path) -> list[dict[str, object]]:
    _iris(Path("data/iris.csv"))
    for name, text in (("train.py", TRAIN), ("iris_labels.py", LABELS),
                       ("save_decoder.py", SAVE_DECODER), ("service.py", SERVICE),
                       ("bentofile.yaml", BENTOFILE)):
        Path(name).write_text(text)
    env = {**os.environ, "BENTOML_HOME": str(work / "bentoml"), "BENTOML_DO_NOT_TRACK": "True"}
    models = work / "bentoml" / "models"
    checkpoints: list[dict[str, object]] = []
    for n in ("10", "30"):
        version = _saved(_run(env, sys.executable, "train.py", n), "iris_clf", models)
        checkpoints.append({
            "run": f"python train.py {n}", "best": None,
            "latest": f"bentoml/models/iris_clf/{version}",
            "evidence": f"save_model returned Model(tag='iris_clf:{version}') (printed by "
                        f"train.py) and bentoml/models/iris_clf/latest then held '{version}'; "
                        f"BentoML has no notion of a best model (the accuracy is the user's "
                        f"metadata)"})
    version = _saved(_run(env, sys.executable, "save_decoder.py"), "iris_decoder", models)
    checkpoints.append({
        "run": "python save_decoder.py", "best": None,
        "latest": f"bentoml/models/iris_decoder/{version}",
        "evidence": f"picklable_model.save_model returned tag 'iris_decoder:{version}' and "
                    f"bentoml/models/iris_decoder/latest holds it; no notion of best"})
    bentoml = str(Path(sys.executable).with_name("bentoml"))
    out = _run(env, bentoml, "build")
    version = re.findall(r'Successfully built Bento\(tag="iris_classifier:(\w+)"\)', out)[-1]
    bentos = work / "bentoml" / "bentos"
    assert (bentos / "iris_classifier" / "latest").read_text().strip() == version
    listed = _run(env, bentoml, "models", "list")
    checkpoints.append({
        "run": "bentoml build", "best": None,
        "latest": f"bentoml/bentos/iris_classifier/{version}",
        "evidence": f"bentoml build printed 'Successfully built Bento(tag=\"iris_classifier:"
                    f"{version}\")' and bentoml/bentos/iris_classifier/latest holds it; the "
                    f"Bento's bento.yaml names the models it serves by tag (stored in the "
                    f"model store, not copied in); no notion of best"})
    assert listed.count("iris_clf:") == 2, listed
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("bentoml/models/", "bentoml/bentos/")):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "bentoml", tool="bentoml",
           kind="model store and serving packages (bentoml.sklearn.save_model, bentoml build)",
           command="BENTOML_HOME=<workspace>/bentoml; python train.py 10; python train.py 30 "
                   "(bentoml.sklearn.save_model('iris_clf', clf, ...)); python save_decoder.py "
                   "(bentoml.picklable_model.save_model('iris_decoder', ...)); bentoml build")
