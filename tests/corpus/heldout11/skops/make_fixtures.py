"""skops: a scikit-learn user persists successive versions of a penguin-species classifier
with ``skops.io.dump`` (the safe, non-pickle format), converts the first, pickled, model
with skops' ``convert`` command, and writes a model card (``skops.card.Card``: metrics,
confusion-matrix plot, hyperparameters, model diagram) into the model's repository folder
for publishing, beside a copy of the chosen model file.

    python3.11 -m venv /tmp/h11/skops/venv
    /tmp/h11/skops/venv/bin/pip install skops scikit-learn pandas matplotlib huggingface_hub
    /tmp/h11/skops/venv/bin/python tests/corpus/heldout11/skops/make_fixtures.py

skops 0.16 no longer has ``skops.hub_utils`` (``init``/``push`` were removed after their
deprecation; the docs now point to ``huggingface_hub`` for the upload) and installs no
``skops`` console script, so the command is run as ``python -c "from skops.cli.entrypoint
import main_cli; main_cli()" convert ...``. Runs: ``python make_data.py``; ``python
legacy.py`` (a pickled KNN, ``models/penguin-clf-v0.pkl``); ``skops convert
models/penguin-clf-v0.pkl -o models/penguin-clf-v0.skops -v``; ``python train.py v1``, ``v2``,
``v3`` (``models/penguin-clf-<v>.skops``, ``reports/<v>-metrics.json``); ``python
publish.py`` (the version with the best test accuracy in ``reports/``, copied into
``penguin-classifier/`` with its ``README.md`` model card, ``card.save(...,
copy_files=True)`` copying the plot in).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MAKE_DATA = '''"""Write the toy table data/penguins.csv: python make_data.py"""
from pathlib import Path

import numpy as np

rng = np.random.default_rng(0)
species = {"Adelie": (38.8, 18.3, 190, 3700), "Chinstrap": (48.8, 18.4, 196, 3733),
           "Gentoo": (47.5, 15.0, 217, 5076)}
islands = ["Biscoe", "Dream", "Torgersen"]
rows = []
for name, (bill, depth, flipper, mass) in species.items():
    for _ in range(100):
        rows.append(f"{name},{rng.choice(islands)},{bill + rng.normal(0, 5):.1f},"
                    f"{depth + rng.normal(0, 1.6):.1f},{flipper + rng.normal(0, 11):.0f},"
                    f"{mass + rng.normal(0, 450):.0f},{rng.choice(['male', 'female'])}")
rng.shuffle(rows)
Path("data").mkdir(exist_ok=True)
Path("data/penguins.csv").write_text(
    "species,island,bill_length_mm,bill_depth_mm,flipper_length_mm,body_mass_g,sex\\n"
    + "\\n".join(rows) + "\\n")
'''

LEGACY = '''"""The first model, pickled before the switch to skops: python legacy.py"""
import pickle
from pathlib import Path

import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

df = pd.read_csv("data/penguins.csv")
X = df[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]]
Path("models").mkdir(exist_ok=True)
with open("models/penguin-clf-v0.pkl", "wb") as f:
    pickle.dump(KNeighborsClassifier(5).fit(X, df["species"]), f)
print("pickled models/penguin-clf-v0.pkl")
'''

TRAIN = '''"""Train one version of the penguin classifier and persist it with skops:
python train.py v1|v2|v3"""
import json
import sys
from pathlib import Path

import pandas as pd
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

version = sys.argv[1]
df = pd.read_csv("data/penguins.csv")
X, y = df.drop(columns="species"), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                    stratify=y)
numeric = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
prep = ColumnTransformer([("num", StandardScaler(), numeric),
                          ("cat", OneHotEncoder(handle_unknown="ignore"), ["island", "sex"])])
estimator = {"v1": LogisticRegression(C=0.01, max_iter=500),
             "v2": RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0),
             "v3": HistGradientBoostingClassifier(max_iter=20, max_depth=2, random_state=0)}
model = Pipeline([("prep", prep), ("clf", estimator[version])]).fit(X_train, y_train)
pred = model.predict(X_test)
scores = {"accuracy": accuracy_score(y_test, pred),
          "f1_macro": f1_score(y_test, pred, average="macro")}
Path("models").mkdir(exist_ok=True)
path = f"models/penguin-clf-{version}.skops"
sio.dump(model, path)
print("saved", path, scores)
print("untrusted types", sio.get_untrusted_types(file=path))
Path("reports").mkdir(exist_ok=True)
Path(f"reports/{version}-metrics.json").write_text(json.dumps(scores, indent=2))
'''

PUBLISH = '''"""Write the model card of the best version into the repo folder: python publish.py"""
import json
import shutil
from pathlib import Path

import matplotlib
import pandas as pd
import skops.io as sio
from sklearn.metrics import ConfusionMatrixDisplay, accuracy_score, f1_score
from sklearn.model_selection import train_test_split
from skops.card import Card

matplotlib.use("Agg")
scores = {p.name.split("-")[0]: json.loads(p.read_text())
          for p in sorted(Path("reports").glob("v*-metrics.json"))}
best = max(scores, key=lambda v: scores[v]["accuracy"])
path = Path(f"models/penguin-clf-{best}.skops")
model = sio.load(path, trusted=sio.get_untrusted_types(file=path))
df = pd.read_csv("data/penguins.csv")
X, y = df.drop(columns="species"), df["species"]
_, X_test, _, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
pred = model.predict(X_test)

repo = Path("penguin-classifier")
repo.mkdir(exist_ok=True)
shutil.copy(path, repo / path.name)
card = Card(model, model_format="skops")
card.add(**{"Model description": f"Penguin species from body measurements ({best}).",
            "Model description/Intended uses & limitations": "Toy data; a demo only."})
card.add_metrics(accuracy=accuracy_score(y_test, pred),
                 f1_macro=f1_score(y_test, pred, average="macro"))
display = ConfusionMatrixDisplay.from_predictions(y_test, pred)
display.figure_.savefig(f"reports/{best}-confusion_matrix.png", dpi=60)
card.add_plot(**{"Model description/Evaluation Results/Confusion matrix":
                 f"reports/{best}-confusion_matrix.png"})
card.save(repo / "README.md", copy_files=True)
print("published", best, "->", repo, sorted(p.name for p in repo.iterdir()))
'''

CONVERT = "from skops.cli.entrypoint import main_cli; main_cli()"


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, (args, done.returncode)
    return done.stdout + done.stderr


def run(work: Path) -> list[dict[str, object]]:
    import skops.io as sio

    for name, text in [("make_data.py", MAKE_DATA), ("legacy.py", LEGACY),
                       ("train.py", TRAIN), ("publish.py", PUBLISH)]:
        Path(name).write_text(text)
    _run("make_data.py")
    _run("legacy.py")
    out = _run("-c", CONVERT, "convert", "models/penguin-clf-v0.pkl", "-o",
               "models/penguin-clf-v0.skops", "-v")
    assert "these types must be specified as 'trusted'" in out, out
    for v in ("v1", "v2", "v3"):
        out = _run("train.py", v)
        assert f"saved models/penguin-clf-{v}.skops" in out, out
    out = _run("publish.py")
    best = re.search(r"published (v\d) -> penguin-classifier", out).group(1)
    scores = {v: json.loads(Path(f"reports/{v}-metrics.json").read_text())["accuracy"]
              for v in ("v1", "v2", "v3")}
    assert scores[best] == max(scores.values()), (best, scores)
    for p in sorted(Path(".").rglob("*.skops")):
        sio.load(p, trusted=sio.get_untrusted_types(file=p))  # each one restores
    assert Path(f"penguin-classifier/penguin-clf-{best}.skops").read_bytes() == Path(
        f"models/penguin-clf-{best}.skops").read_bytes()
    assert "## Evaluation Results" in Path("penguin-classifier/README.md").read_text()
    return [{"run": "skops convert; python train.py v1|v2|v3; python publish.py",
             "best": None, "latest": None,
             "evidence": "skops is a persistence format and a model-card writer: skops.io.dump "
                         "and the convert command only write the file they are given, and "
                         "Card.save writes README.md; neither keeps any record of versions, "
                         "of which model is newest or best. The choice of "
                         f"{best} (accuracy {scores[best]:.3f}, of {scores}) for "
                         "penguin-classifier/ was made by the user's publish.py from the "
                         "user's own reports/*-metrics.json, not by skops."}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith((".skops", ".pkl")):
        return "checkpoint"
    if path.startswith("reports/") or path.endswith(".png"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "skops", tool="skops",
           kind="scikit-learn model persistence (.skops files) and model cards",
           command="python make_data.py; python legacy.py; skops convert "
                   "models/penguin-clf-v0.pkl -o models/penguin-clf-v0.skops -v; python "
                   "train.py v1; python train.py v2; python train.py v3 (skops.io.dump("
                   "pipeline, 'models/penguin-clf-<v>.skops')); python publish.py "
                   "(skops.io.load of the best; skops.card.Card(model).add_metrics(...)"
                   ".add_plot(...).save('penguin-classifier/README.md', copy_files=True))")
