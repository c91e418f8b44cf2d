"""implicit: the user's ``train.py`` fits an implicit-feedback recommender (implicit's
``AlternatingLeastSquares`` or ``BayesianPersonalizedRanking``) on its play counts
(``data/plays.csv``), scores it with ``implicit.evaluation.ranking_metrics_at_k`` on a
held-out split, and saves it with the model's own ``save`` (numpy ``.npz``); it is run once
per model, as a user comparing the two would; ``recommend.py`` then loads the ALS model with
``AlternatingLeastSquares.load`` and writes top-10 recommendations.

    python3.11 -m venv /tmp/h6/implicit/venv
    /tmp/h6/implicit/venv/bin/pip install --only-binary :all: implicit
    /tmp/h6/implicit/venv/bin/python tests/corpus/heldout6/implicit/make_fixtures.py

``python train.py als``, ``python train.py bpr``, ``python recommend.py als`` on 300 toy users
and 200 items (factors 16, CPU, single thread).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

COMMON = '''import numpy as np
import scipy.sparse as sp


def load_plays(path="data/plays.csv"):
    users, items, plays = np.loadtxt(path, delimiter=",", skiprows=1, unpack=True)
    return sp.csr_matrix((plays, (users.astype(int), items.astype(int))))
'''

TRAIN = '''"""Fit a recommender: python train.py als|bpr"""
import json
import sys
from pathlib import Path

from implicit.als import AlternatingLeastSquares
from implicit.bpr import BayesianPersonalizedRanking
from implicit.evaluation import ranking_metrics_at_k, train_test_split

from common import load_plays

name = sys.argv[1]
user_items = load_plays()
train, test = train_test_split(user_items, train_percentage=0.8, random_state=0)
if name == "als":
    model = AlternatingLeastSquares(factors=16, iterations=15, regularization=0.05,
                                    random_state=0)
else:
    model = BayesianPersonalizedRanking(factors=16, iterations=60, random_state=0)
model.fit(train, show_progress=False)
metrics = ranking_metrics_at_k(model, train, test, K=10, show_progress=False)
print(name, {k: round(float(v), 4) for k, v in metrics.items()})
Path("results").mkdir(exist_ok=True)
Path(f"results/{name}_metrics.json").write_text(json.dumps(metrics, indent=2))
model.save(f"models/{name}")
print("saved", sorted(str(p) for p in Path("models").glob(f"{name}*")))
'''

RECOMMEND = '''"""Top-10 items per user: python recommend.py als"""
import sys

import numpy as np
from implicit.cpu.als import AlternatingLeastSquares

from common import load_plays

name = sys.argv[1]
model = AlternatingLeastSquares.load(f"models/{name}.npz")
user_items = load_plays()
users = np.arange(user_items.shape[0])
ids, scores = model.recommend(users, user_items[users], N=10)
with open(f"results/recommendations_{name}.csv", "w") as out:
    out.write("user_id,rank,item_id,score\\n")
    for user, row, row_scores in zip(users, ids, scores):
        for rank, (item, score) in enumerate(zip(row, row_scores), start=1):
            out.write(f"{user},{rank},{item},{score:.4f}\\n")
print("wrote", len(users), "users")
'''


def _plays(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    taste = rng.normal(size=(300, 4))
    style = rng.normal(size=(200, 4))
    affinity = taste @ style.T
    rows = []
    for user in range(300):
        p = np.exp(affinity[user]) / np.exp(affinity[user]).sum()
        for item in sorted(set(rng.choice(200, size=25, p=p).tolist())):
            rows.append(f"{user},{item},{int(rng.integers(1, 40))}")
    path.parent.mkdir(parents=True)
    path.write_text("user_id,item_id,plays\n" + "\n".join(rows) + "\n")


def _run(*args: str) -> str:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _plays(Path("data/plays.csv"))
    Path("common.py").write_text(COMMON)
    Path("train.py").write_text(TRAIN)
    Path("recommend.py").write_text(RECOMMEND)
    Path("models").mkdir()
    checkpoints = []
    for name in ("als", "bpr"):
        printed = _run("train.py", name).strip().splitlines()
        path = f"models/{name}.npz"
        assert printed[-1] == f"saved {[path]}", printed[-1]
        checkpoints.append({
            "run": f"python train.py {name}", "best": None, "latest": path,
            "evidence": f"model.save('models/{name}') wrote {path} (numpy.savez adds .npz; "
                        f"the run printed 'saved {[path]}'), the one model the run saved; "
                        f"implicit fits a fixed number of iterations and keeps no best "
                        f"(its metrics, {printed[0]}, are only printed and written to "
                        f"results/{name}_metrics.json)"})
    _run("recommend.py", "als")
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.endswith("_metrics.json"):
        return "log"
    if path.startswith("__pycache__/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "implicit", tool="implicit",
           kind="implicit-feedback recommenders (ALS, BPR; model.save to .npz)",
           command="python train.py als; python train.py bpr (fit on an 80% split of "
                   "data/plays.csv, ranking_metrics_at_k to results/<name>_metrics.json, "
                   "model.save('models/<name>')); python recommend.py als "
                   "(AlternatingLeastSquares.load, top-10 to results/recommendations_als.csv)")
