"""InterpretML: the user's ``train.py`` fits an Explainable Boosting Machine
(``interpret.glassbox.ExplainableBoostingClassifier``) on the user's ``data/loans.csv``,
pickles it, exports it with ``ebm.to_json`` (interpret's documented model export), and saves
its global explanation and a local explanation of the first test rows as HTML with
``interpret.preserve(..., file_name=...)``.

    python3.11 -m venv /tmp/h8/interpret/venv
    /tmp/h8/interpret/venv/bin/pip install interpret
    /tmp/h8/interpret/venv/bin/python tests/corpus/heldout8/interpret/make_fixtures.py

``python train.py``: ``ExplainableBoostingClassifier(interactions=3, random_state=1)``,
fitted on 240 of 300 rows.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Fit and explain a loan-default EBM: python train.py"""
import pickle

import pandas as pd
from interpret import preserve
from interpret.glassbox import ExplainableBoostingClassifier

table = pd.read_csv("data/loans.csv")
X, y = table.drop(columns=["loan_id", "default"]), table["default"]
X_train, X_test, y_train, y_test = X[:240], X[240:], y[:240], y[240:]

ebm = ExplainableBoostingClassifier(interactions=3, random_state=1)
ebm.fit(X_train, y_train)
print("test accuracy", ebm.score(X_test, y_test))

with open("models/ebm.pkl", "wb") as f:
    pickle.dump(ebm, f)
print("saved models/ebm.pkl")
ebm.to_json("models/ebm.json")
print("saved models/ebm.json")

preserve(ebm.explain_global(name="EBM"), file_name="explanations/ebm_global.html")
local = ebm.explain_local(X_test[:5], y_test[:5], name="EBM local")
preserve(local, selector_key=0, file_name="explanations/ebm_local_0.html")
print("explanations written")
'''


def _loans(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 300
    income = rng.normal(55, 18, size=n).clip(12, 160)
    debt_ratio = rng.beta(2, 5, size=n)
    age = rng.integers(21, 70, size=n)
    purpose = rng.choice(["car", "home", "education", "business"], size=n)
    logit = -1.5 + 4.0 * debt_ratio - 0.03 * (income - 55) + (purpose == "business") * 0.8
    default = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    path.parent.mkdir(parents=True)
    rows = [f"L{i:04d},{a:.1f},{d:.3f},{g},{p},{c}"
            for i, (a, d, g, p, c) in enumerate(zip(income, debt_ratio, age, purpose, default,
                                                    strict=True))]
    path.write_text("loan_id,income_k,debt_ratio,age,purpose,default\n" + "\n".join(rows)
                    + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _loans(Path("data/loans.csv"))
    Path("train.py").write_text(TRAIN)
    Path("models").mkdir()
    Path("explanations").mkdir()
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    assert "saved models/ebm.pkl" in done.stdout.splitlines()
    for path in ("models/ebm.json", "explanations/ebm_global.html",
                 "explanations/ebm_local_0.html"):
        assert Path(path).exists(), path
    return [{
        "run": "python train.py", "best": None, "latest": "models/ebm.pkl",
        "evidence": "train.py pickled the fitted ExplainableBoostingClassifier to "
                    "models/ebm.pkl (printed 'saved models/ebm.pkl'), the one model of the "
                    "run, also exported as models/ebm.json by ebm.to_json; interpret keeps no "
                    "checkpoints and no notion of best (its early stopping is inside fit)"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("explanations/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "interpret", tool="interpret",
           kind="glassbox models and explanations (Explainable Boosting Machine)",
           command="python train.py (train.py: ExplainableBoostingClassifier(interactions=3, "
                   "random_state=1).fit; pickle.dump to models/ebm.pkl; "
                   "ebm.to_json('models/ebm.json'); interpret.preserve(explain_global(), "
                   "file_name='explanations/ebm_global.html') and of explain_local on 5 test "
                   "rows, selector_key=0, to explanations/ebm_local_0.html)")
