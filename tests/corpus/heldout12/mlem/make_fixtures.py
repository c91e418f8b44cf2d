"""mlem: Iterative's MLEM (0.4), a tool that saves models and datasets as files plus
``.mlem`` YAML metafiles (type, methods and signature, requirements, artifact hashes) so
they can be loaded, applied, served or built into packages. Used as its getting-started
shows, in a MLEM project made with ``mlem init``:

- ``python train.py``: reads the toy ``data/raw/churn.csv``, builds a feature table and
  ``mlem.api.save``-s it (``data/train_features``), trains two versions of a scikit-learn
  ``RandomForestClassifier`` and ``mlem.api.save``-s each with ``sample_data``
  (``models/rf_v1``, ``models/rf_v2``), prints each one's validation accuracy, the best,
  and writes ``models/versions.json``;
- ``mlem import baseline.pkl models/baseline_logreg --type pickle``: an older pickled
  logistic regression (made by the user's ``old_baseline.py``) brought into the project;
- ``mlem import data/holdout.csv data/holdout --type pandas``;
- ``mlem apply models/<best> data/holdout -m predict -o data/holdout_pred``;
- ``mlem build pip -m models/<best> --target build/churn_model_pip --package_name
  churn_model`` (writes the source of a pip package; nothing is installed or uploaded).

    python3 -m venv /tmp/h12/mlem/venv
    /tmp/h12/mlem/venv/bin/pip install "mlem==0.4.*" scikit-learn pandas
    /tmp/h12/mlem/venv/bin/pip install "isort<6" "numpy<2" "pandas<2.1" "scikit-learn<1.4" "typer<0.10" "click<8.2"
    /tmp/h12/mlem/venv/bin/python tests/corpus/heldout12/mlem/make_fixtures.py

(MLEM 0.4.14 is from 2023 and needs the older isort, typer, numpy, pandas and
scikit-learn of the second line; with them: numpy 1.26.4, pandas 2.0.3, scikit-learn
1.3.2.) Telemetry is off (``MLEM_NO_ANALYTICS=true``, ``ITERATIVE_DO_NOT_TRACK=1``).
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Build features, train two model versions and save them with MLEM."""
import json

import pandas as pd
from mlem.api import save
from sklearn.ensemble import RandomForestClassifier

raw = pd.read_csv("data/raw/churn.csv")
raw["charges_per_month"] = raw["total_charges"] / raw["tenure"].clip(lower=1)
raw["plan_premium"] = (raw["plan"] == "premium").astype(int)
cols = ["tenure", "monthly_charges", "support_calls", "charges_per_month", "plan_premium"]
train, val = raw.iloc[:240], raw.iloc[240:]
features = train[cols + ["churned"]].reset_index(drop=True)
meta = save(features, "data/train_features")
print(f"saved dataset: {meta.loc.path}")
versions = {}
for version, params in (("v1", dict(n_estimators=60, max_depth=3)),
                        ("v2", dict(n_estimators=5, max_depth=None))):
    model = RandomForestClassifier(random_state=0, **params)
    model.fit(train[cols], train["churned"])
    acc = float(model.score(val[cols], val["churned"]))
    meta = save(model, f"models/rf_{version}", sample_data=train[cols])
    versions[version] = {"path": meta.loc.path, "params": params, "val_accuracy": acc}
    print(f"saved model rf_{version}: {meta.loc.path} val_accuracy {acc:.4f}", flush=True)
best = max(versions, key=lambda v: versions[v]["val_accuracy"])
with open("models/versions.json", "w") as f:
    json.dump({"versions": versions, "best": f"rf_{best}", "latest": "rf_v2"}, f, indent=2)
print(f"best: models/rf_{best}")
'''

OLD_BASELINE = '''"""The first baseline, pickled before the project used MLEM."""
import pickle

import pandas as pd
from sklearn.linear_model import LogisticRegression

raw = pd.read_csv("data/raw/churn.csv")
cols = ["tenure", "monthly_charges", "support_calls"]
model = LogisticRegression(max_iter=500).fit(raw[cols], raw["churned"])
with open("baseline.pkl", "wb") as f:
    pickle.dump(model, f)
'''


def _toy_data() -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    n = 320
    tenure = rng.integers(1, 72, size=n)
    monthly = rng.uniform(20, 120, size=n).round(2)
    calls = rng.poisson(1.5, size=n)
    plan = rng.choice(["basic", "standard", "premium"], size=n)
    logit = -1.0 - 0.04 * tenure + 0.02 * monthly + 0.5 * calls + rng.normal(0, 1, size=n)
    churned = (logit > 0).astype(int)
    Path("data/raw").mkdir(parents=True)
    lines = ["customer_id,tenure,monthly_charges,total_charges,support_calls,plan,churned"]
    for i in range(n):
        lines.append(f"C{i:04d},{tenure[i]},{monthly[i]},{monthly[i] * tenure[i]:.2f},"
                     f"{calls[i]},{plan[i]},{churned[i]}")
    Path("data/raw/churn.csv").write_text("\n".join(lines) + "\n")
    hold = ["tenure,monthly_charges,support_calls,charges_per_month,plan_premium"]
    for _ in range(25):
        t, m = int(rng.integers(1, 72)), float(rng.uniform(20, 120))
        hold.append(f"{t},{m:.2f},{int(rng.poisson(1.5))},{m:.2f},{int(rng.random() < .3)}")
    Path("data/holdout.csv").write_text("\n".join(hold) + "\n")


def _sh(env: dict[str, str], *cmd: str) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, (cmd, done.returncode, done.stderr[-3000:])
    return done.stdout + done.stderr


def run(work: Path) -> list[dict[str, object]]:
    _toy_data()
    Path("train.py").write_text(TRAIN)
    Path("old_baseline.py").write_text(OLD_BASELINE)
    bindir = Path(sys.executable).parent
    env = {**os.environ, "MLEM_NO_ANALYTICS": "true", "ITERATIVE_DO_NOT_TRACK": "1",
           "DO_NOT_TRACK": "1", "CUDA_VISIBLE_DEVICES": ""}
    py, mlem = str(bindir / "python"), str(bindir / "mlem")
    out = _sh(env, mlem, "init")
    assert Path(".mlem.yaml").exists(), out
    out = _sh(env, py, "train.py")
    saved = re.findall(r"^saved model (\S+): (\S+) val_accuracy", out, re.M)
    assert [s[1] for s in saved] == ["models/rf_v1.mlem", "models/rf_v2.mlem"], saved
    best = re.search(r"^best: (\S+)$", out, re.M).group(1)
    versions = json.loads(Path("models/versions.json").read_text())
    latest = saved[-1][1][: -len(".mlem")]
    _sh(env, py, "old_baseline.py")
    out = _sh(env, mlem, "import", "baseline.pkl", "models/baseline_logreg", "--type", "pickle")
    assert "Saving model to models/baseline_logreg.mlem" in out, out
    out = _sh(env, mlem, "import", "data/holdout.csv", "data/holdout", "--type", "pandas")
    assert "Saving data to data/holdout.mlem" in out, out
    out = _sh(env, mlem, "apply", best, "data/holdout", "-m", "predict",
              "-o", "data/holdout_pred")
    assert "Saving data to data/holdout_pred.mlem" in out, out
    out = _sh(env, mlem, "build", "pip", "-m", best, "--target", "build/churn_model_pip",
              "--package_name", "churn_model")
    assert "Written `churn_model` package data to `build/churn_model_pip`" in out, out
    return [
        {"run": "python train.py (mlem.api.save of rf_v1, rf_v2)",
         "best": [best, best + ".mlem"], "latest": [latest, latest + ".mlem"],
         "evidence": "MLEM has no notion of best or latest; a model is its artifact plus "
                     "its .mlem metafile. The user's train.py prints 'saved model rf_vN: "
                     "<MlemModel.loc.path>' for each mlem.api.save (the last is "
                     f"{latest}.mlem) and 'best: {best}' (higher validation accuracy, "
                     f"{versions['versions'][best.split('_')[-1]]['val_accuracy']:.4f}), and "
                     "records both in models/versions.json"},
        {"run": "mlem import baseline.pkl models/baseline_logreg --type pickle",
         "best": None,
         "latest": ["models/baseline_logreg", "models/baseline_logreg.mlem"],
         "evidence": "mlem import printed 'Saving model to models/baseline_logreg.mlem' (its "
                     "artifact models/baseline_logreg is named in the metafile); one model, "
                     "no notion of a best"},
    ]


def label(path: str) -> str:
    if path.endswith(".py") or path == ".mlem.yaml":
        return "other"
    if path.startswith("build/"):
        return "other" if path.endswith(("MANIFEST.in", "requirements.txt")) else "checkpoint"
    if path.startswith("models/") or path == "baseline.pkl":
        return "log" if path.endswith("versions.json") else "checkpoint"
    if path.startswith("data/holdout_pred"):
        return "log"
    if path.startswith("data/"):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "mlem", tool="mlem",
           kind="model/data metadata and packaging (.mlem metafiles next to artifacts)",
           command="mlem init; python train.py (mlem.api.save); mlem import baseline.pkl "
                   "models/baseline_logreg --type pickle; mlem import data/holdout.csv "
                   "data/holdout --type pandas; mlem apply models/<best> data/holdout -m "
                   "predict -o data/holdout_pred; mlem build pip -m models/<best> --target "
                   "build/churn_model_pip --package_name churn_model")
