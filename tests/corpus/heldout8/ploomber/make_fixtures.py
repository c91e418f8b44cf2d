"""Ploomber: the user's ``pipeline.yaml`` (Ploomber's spec API) declares three tasks: two
scripts in percent format run as notebooks by Ploomber (through papermill, each keeping its
executed notebook as the ``nb`` product beside its data products) and one Python function
task; ``ploomber build`` runs them and writes, beside every product, Ploomber's metadata file
(``.<product name>.metadata``: the source code and timestamp of the task that made it),
which it uses to skip tasks whose source did not change.

    python3.11 -m venv /tmp/h8/ploomber/venv
    /tmp/h8/ploomber/venv/bin/pip install --only-binary=:all: ploomber numpy
    /tmp/h8/ploomber/venv/bin/python tests/corpus/heldout8/ploomber/make_fixtures.py

``ploomber build`` (all three tasks run), ``ploomber build`` again (all skipped), then the
training script's learning rate is edited and ``ploomber build`` re-runs only ``train``.
Ploomber's anonymous usage statistics are turned off (``PLOOMBER_STATS_ENABLED=false``) so
nothing is written to the home folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PIPELINE = '''tasks:
  - source: scripts/clean.py
    product:
      nb: products/clean.ipynb
      data: products/clean.csv

  - source: tasks.features
    product: products/features.npz

  - source: scripts/train.py
    product:
      nb: products/train.ipynb
      model: products/model.npz
      metrics: products/metrics.json
'''

CLEAN = '''# %% tags=["parameters"]
upstream = None
product = None

# %%
import numpy as np

table = np.genfromtxt("data/raw/sensors.csv", delimiter=",", names=True)
ok = ~np.isnan(table["temperature"]) & ~np.isnan(table["vibration"])
print(f"kept {ok.sum()} of {len(table)} rows")

# %%
header = ",".join(table.dtype.names)
np.savetxt(product["data"], np.array(table[ok].tolist()), delimiter=",", header=header,
           comments="", fmt="%.4f")
'''

TASKS = '''import numpy as np


def features(upstream, product):
    table = np.loadtxt(upstream["clean"]["data"], delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    X = np.c_[X, X[:, 0] * X[:, 1], np.log1p(np.abs(X[:, 2]))]
    np.savez(str(product), X=(X - X.mean(0)) / X.std(0), y=y)
'''

TRAIN = '''# %% tags=["parameters"]
upstream = ["features"]
product = None
learning_rate = 0.1

# %%
import json

import numpy as np

data = np.load(upstream["features"])
X, y = np.c_[data["X"], np.ones(len(data["X"]))], data["y"]
w = np.zeros(X.shape[1])
for step in range(200):
    p = 1 / (1 + np.exp(-X @ w))
    w -= learning_rate * X.T @ (p - y) / len(y)
accuracy = float(((X @ w > 0) == y).mean())
print("train accuracy", accuracy)

# %%
np.savez(product["model"], w=w)
with open(product["metrics"], "w") as f:
    json.dump({"accuracy": accuracy, "learning_rate": learning_rate}, f)
'''


def _sensors(path: Path) -> None:
    import random

    rng = random.Random(0)
    rows = ["temperature,vibration,current,failure"]
    for _ in range(500):
        t, v, c = rng.gauss(60, 8), rng.gauss(2, 0.7), rng.gauss(10, 3)
        fail = int(0.08 * (t - 60) + 1.2 * (v - 2) + rng.gauss(0, 0.8) > 0.6)
        cells = [f"{t:.2f}", f"{v:.3f}", f"{c:.2f}", str(fail)]
        if rng.random() < 0.04:
            cells[rng.randrange(2)] = ""
        rows.append(",".join(cells))
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(rows) + "\n")


def _ploomber(*args: str) -> str:
    env = {**os.environ, "PLOOMBER_STATS_ENABLED": "false"}
    exe = str(Path(sys.executable).with_name("ploomber"))
    done = subprocess.run([exe, *args], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _sensors(Path("data/raw/sensors.csv"))
    Path("pipeline.yaml").write_text(PIPELINE)
    Path("scripts").mkdir()
    Path("scripts/clean.py").write_text(CLEAN)
    Path("scripts/train.py").write_text(TRAIN)
    Path("tasks.py").write_text(TASKS)
    first = _ploomber("build")
    second = _ploomber("build")
    Path("scripts/train.py").write_text(TRAIN.replace("learning_rate = 0.1",
                                                      "learning_rate = 0.3"))
    third = _ploomber("build")
    for out in (first, second, third):
        print(out, file=sys.stderr)
    ran = {line.split()[0]: line.split()[1] for line in third.splitlines()
           if line.split()[:1] in (["clean"], ["features"], ["train"])}
    assert ran == {"clean": "False", "features": "False", "train": "True"}, third
    return [{"run": "ploomber build (three times: all, all skipped, train after an edit)",
             "best": None, "latest": "products/model.npz",
             "evidence": "Ploomber is a pipeline runner with no notion of a checkpoint; "
                         "pipeline.yaml names products/model.npz as the train task's model "
                         "product, rebuilt by the third build (the build summary lists train "
                         "as Ran)"}]


def label(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if path.startswith("data/"):
        return "dataset"
    if name.endswith(".metadata"):
        return "cache"
    if name in ("clean.csv", "features.npz"):
        return "augmented"
    if name == "model.npz":
        return "checkpoint"
    if path.startswith("products/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "ploomber", tool="ploomber",
           kind="pipeline runner (pipeline.yaml, notebook tasks, product metadata)",
           command="ploomber build; ploomber build; (learning_rate edited in scripts/train.py) "
                   "ploomber build (pipeline.yaml: scripts/clean.py and scripts/train.py as "
                   "notebook tasks with nb products, tasks.features as a function task, all "
                   "products under products/)")
