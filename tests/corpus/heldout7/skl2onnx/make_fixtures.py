"""skl2onnx: the user's ``train.py`` fits a scikit-learn pipeline (a ``ColumnTransformer``
scaling the numeric columns and one-hot encoding the plan, then a ``RandomForestClassifier``)
on its toy ``data/churn.csv`` and pickles it with ``joblib.dump``; ``export_onnx.py`` loads
that pickle and converts it with ``skl2onnx.to_onnx`` (``zipmap=False``, as the docs show
for plain probability arrays) into an ``.onnx`` file beside it, then checks with
onnxruntime that the ONNX model predicts as the pickle does.

    python3.11 -m venv /tmp/h7/skl2onnx/venv
    /tmp/h7/skl2onnx/venv/bin/pip install --only-binary=:all: skl2onnx onnxruntime \\
        scikit-learn pandas
    /tmp/h7/skl2onnx/venv/bin/python tests/corpus/heldout7/skl2onnx/make_fixtures.py

``python train.py`` then ``python export_onnx.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train the churn classifier: python train.py"""
import joblib
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

NUMERIC = ["tenure_months", "monthly_fee", "support_calls"]
df = pd.read_csv("data/churn.csv")
X, y = df[NUMERIC + ["plan"]], df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = Pipeline([
    ("prep", ColumnTransformer([("num", StandardScaler(), NUMERIC),
                                ("cat", OneHotEncoder(handle_unknown="ignore"), ["plan"])])),
    ("rf", RandomForestClassifier(n_estimators=40, max_depth=6, random_state=0)),
])
model.fit(X_train, y_train)
print(f"test accuracy {model.score(X_test, y_test):.3f}")
joblib.dump(model, "models/churn_rf.joblib")
print("saved models/churn_rf.joblib")
'''

EXPORT = '''"""Export the pickled pipeline to ONNX and check it: python export_onnx.py"""
import joblib
import numpy as np
import onnxruntime as ort
import pandas as pd
from skl2onnx import to_onnx
from skl2onnx.common.data_types import FloatTensorType, StringTensorType

model = joblib.load("models/churn_rf.joblib")
inputs = [("tenure_months", FloatTensorType([None, 1])),
          ("monthly_fee", FloatTensorType([None, 1])),
          ("support_calls", FloatTensorType([None, 1])),
          ("plan", StringTensorType([None, 1]))]
onx = to_onnx(model, initial_types=inputs, target_opset=17,
              options={"zipmap": False})
with open("models/churn_rf.onnx", "wb") as f:
    f.write(onx.SerializeToString())
print("saved models/churn_rf.onnx")

df = pd.read_csv("data/churn.csv").head(200)
feeds = {name: df[[name]].to_numpy().astype(np.float32 if name != "plan" else str)
         for name, _ in inputs}
sess = ort.InferenceSession("models/churn_rf.onnx", providers=["CPUExecutionProvider"])
label, proba = sess.run(None, feeds)
expected = model.predict_proba(df[list(feeds)])
print("onnx outputs", [o.name for o in sess.get_outputs()])
print(f"max |proba diff| {np.abs(proba - expected).max():.2e}")
print(f"label agreement {(label == model.predict(df[list(feeds)])).mean():.3f}")
'''


def _data(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 1500
    tenure = rng.integers(1, 72, n)
    plan = rng.choice(["basic", "standard", "premium"], n, p=[0.5, 0.3, 0.2])
    fee = np.select([plan == "basic", plan == "standard"], [20.0, 45.0], 80.0)
    fee = fee + rng.normal(0, 5, n)
    calls = rng.poisson(1.5, n)
    logit = -1.0 - 0.05 * tenure + 0.6 * calls + 0.02 * (fee - 40)
    churned = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    path.parent.mkdir(parents=True)
    rows = [f"c{i:05d},{t},{f:.2f},{c},{p},{y}"
            for i, (t, f, c, p, y) in enumerate(zip(tenure, fee, calls, plan, churned,
                                                    strict=True))]
    path.write_text("customer_id,tenure_months,monthly_fee,support_calls,plan,churned\n"
                    + "\n".join(rows) + "\n")


def _python(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data/churn.csv"))
    Path("train.py").write_text(TRAIN)
    Path("export_onnx.py").write_text(EXPORT)
    Path("models").mkdir()
    assert "saved models/churn_rf.joblib" in _python("train.py")
    out = _python("export_onnx.py")
    assert "saved models/churn_rf.onnx" in out and "label agreement 1.000" in out, out
    model = ["models/churn_rf.joblib", "models/churn_rf.onnx"]
    return [{"run": "python train.py; python export_onnx.py", "best": None, "latest": model,
             "evidence": "train.py printed 'saved models/churn_rf.joblib' (joblib.dump of the "
                         "fitted pipeline) and export_onnx.py 'saved models/churn_rf.onnx' "
                         "(skl2onnx.to_onnx of that pickle, checked with onnxruntime: label "
                         "agreement 1.000): one model in two formats; neither scikit-learn's "
                         "fit nor skl2onnx keeps a notion of best"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "skl2onnx", tool="skl2onnx",
           kind="scikit-learn to ONNX conversion (skl2onnx.to_onnx, onnxruntime check)",
           command="python train.py (joblib.dump to models/churn_rf.joblib); python "
                   "export_onnx.py (to_onnx(..., options={'zipmap': False}) to "
                   "models/churn_rf.onnx, checked with onnxruntime)")
