"""hummingbird: a user speeds up tree-model inference with Microsoft's Hummingbird, which
compiles fitted traditional ML models into tensor computations. Two versions of a
classifier on the user's toy table ``data/transactions.csv`` (10 numeric features, binary
label): v1 a scikit-learn ``GradientBoostingClassifier``, v2 a LightGBM ``LGBMClassifier``,
each persisted with ``joblib.dump`` as the original, then ``hummingbird.ml.convert(model,
"pytorch")`` (v2 also ``convert(model, "torch.jit", X_sample)``, TorchScript) and
``digest = hb_model.save(path)`` as in Hummingbird's README, then
``hummingbird.ml.load(path, digest=digest)`` (0.4.12 refuses to load without the digest) to
check the predictions match.

    python3.11 -m venv /tmp/h12/hummingbird/venv
    /tmp/h12/hummingbird/venv/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl
    /tmp/h12/hummingbird/venv/bin/pip install hummingbird-ml lightgbm pandas
    /tmp/h12/hummingbird/venv/bin/python tests/corpus/heldout12/hummingbird/make_fixtures.py

Runs: ``python make_data.py``; ``python convert.py v1``; ``python convert.py v2``, each
with its stdout kept by ``| tee -a logs/convert.log``.
"""

# ruff: noqa: E501 - the install lines quoted as they were run

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MAKE_DATA = '''"""Write the toy table data/transactions.csv: python make_data.py"""
from pathlib import Path

import numpy as np

rng = np.random.default_rng(0)
n = 1000
x = rng.normal(0, 1, (n, 10))
y = ((x[:, 0] * x[:, 1] + np.sin(x[:, 2]) + 0.5 * x[:, 3] + rng.normal(0, 0.5, n)) > 0)
Path("data").mkdir(exist_ok=True)
with open("data/transactions.csv", "w") as f:
    f.write(",".join(f"f{i}" for i in range(10)) + ",label\\n")
    for row, lab in zip(x, y.astype(int)):
        f.write(",".join(f"{v:.4f}" for v in row) + f",{lab}\\n")
'''

CONVERT = '''"""Fit one model version, keep it with joblib, convert it with Hummingbird and save:
python convert.py v1|v2"""
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from hummingbird.ml import convert, load
from lightgbm import LGBMClassifier
from sklearn.ensemble import GradientBoostingClassifier

version = sys.argv[1]
df = pd.read_csv("data/transactions.csv")
X = df.drop(columns="label").to_numpy(np.float32)
y = df["label"].to_numpy()
if version == "v1":
    name, model = "gbdt", GradientBoostingClassifier(n_estimators=60, max_depth=3)
else:
    name, model = "lgbm", LGBMClassifier(n_estimators=80, num_leaves=15, verbose=-1)
model.fit(X[:800], y[:800])
print(version, name, "test accuracy", model.score(X[800:], y[800:]))
Path("models").mkdir(exist_ok=True)
joblib.dump(model, f"models/{name}-{version}.joblib")
print("saved", f"models/{name}-{version}.joblib")

backends = ["pytorch"] if version == "v1" else ["pytorch", "torch.jit"]
for backend in backends:
    tag = "torchscript" if backend == "torch.jit" else "torch"
    if backend == "torch.jit":
        hb_model = convert(model, backend, X[:10])
    else:
        hb_model = convert(model, backend)
    path = f"models/{name}-{version}-hb-{tag}"
    digest = hb_model.save(path)
    print("saved", path + ".zip")
    loaded = load(path, digest=digest)
    assert np.array_equal(loaded.predict(X[800:]), model.predict(X[800:]))
    print("reloaded", path, "predictions match")
'''


def run(work: Path) -> list[dict[str, object]]:
    Path("make_data.py").write_text(MAKE_DATA)
    Path("convert.py").write_text(CONVERT)
    subprocess.run([sys.executable, "make_data.py"], check=True)
    Path("logs").mkdir()
    out = ""
    for version in ("v1", "v2"):
        done = subprocess.run([sys.executable, "convert.py", version], capture_output=True,
                              text=True)
        sys.stderr.write(done.stdout + done.stderr[-3000:])
        assert done.returncode == 0, done.returncode
        out += done.stdout
        with open("logs/convert.log", "a") as f:  # `| tee -a logs/convert.log`
            f.write(done.stdout)
    saved = re.findall(r"^saved (\S+)$", out, re.M)
    assert saved == ["models/gbdt-v1.joblib", "models/gbdt-v1-hb-torch.zip",
                     "models/lgbm-v2.joblib", "models/lgbm-v2-hb-torch.zip",
                     "models/lgbm-v2-hb-torchscript.zip"], saved
    assert len(re.findall(r"Model saved with digest: [0-9a-f]{40}", out)) == 3, out
    assert out.count("predictions match") == 3
    assert not [p for p in Path("models").iterdir() if p.is_dir()], "load left its unzip dir"
    return []


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "hummingbird-ml", tool="hummingbird",
           kind="tree-model-to-tensor compiler (hb_model.save() zips beside joblib originals)",
           command="python make_data.py; python convert.py v1; python convert.py v2 "
                   "(joblib.dump(model); hummingbird.ml.convert(model, 'pytorch' | "
                   "'torch.jit', X); hb_model.save(path); hummingbird.ml.load(path, digest)) "
                   "| tee -a logs/convert.log")
