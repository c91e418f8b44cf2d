"""hpbandster: the user's ``bohb_search.py`` (after hpbandster's ``example_1_local_sequential``
and ``example_3``) tunes an ``SGDClassifier`` with BOHB on one local worker (a Pyro
nameserver on 127.0.0.1), the budget being the number of training epochs; the documented
``json_result_logger`` writes ``configs.json`` and ``results.json`` into ``hpo/bohb_sgd/``,
the finished ``Result`` is pickled beside them (``results.pkl``, as example 3 does), and the
worker saves each job's model itself (``models/<config id>_b<budget>.joblib``).

    python3.11 -m venv /tmp/h5/hpbandster/venv
    /tmp/h5/hpbandster/venv/bin/pip install hpbandster scikit-learn "ConfigSpace==0.7.1" \
        "numpy<2" "pandas<3"
    /tmp/h5/hpbandster/venv/bin/python tests/corpus/heldout5/hpbandster/make_fixtures.py

``python bohb_search.py``: BOHB with ``min_budget=3``, ``max_budget=27`` (eta 3),
``n_iterations=2``, on the user's ``data/blobs_train.csv`` / ``data/blobs_valid.csv``; the
loss is 1 - validation accuracy. The script prints the incumbent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SEARCH = '''"""BOHB search over an SGD classifier: python bohb_search.py"""
import logging
import os
import pickle

import ConfigSpace as CS
import hpbandster.core.nameserver as hpns
import hpbandster.core.result as hpres
import joblib
import numpy as np
from hpbandster.core.worker import Worker
from hpbandster.optimizers import BOHB
from sklearn.linear_model import SGDClassifier

logging.basicConfig(level=logging.WARNING)
OUT = "hpo/bohb_sgd"


def load(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(int)


class SGDWorker(Worker):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.train = load("data/blobs_train.csv")
        self.valid = load("data/blobs_valid.csv")

    def compute(self, config_id, config, budget, working_directory):
        model = SGDClassifier(alpha=config["alpha"], eta0=config["eta0"],
                              learning_rate="constant", random_state=0)
        for _ in range(int(budget)):
            model.partial_fit(*self.train, classes=np.arange(4))
        accuracy = model.score(*self.valid)
        name = "_".join(map(str, config_id))
        joblib.dump(model, f"models/{name}_b{int(budget)}.joblib")
        return {"loss": 1 - accuracy, "info": {"valid_accuracy": accuracy}}

    @staticmethod
    def get_configspace():
        cs = CS.ConfigurationSpace(seed=1)
        cs.add_hyperparameters([CS.UniformFloatHyperparameter("alpha", 1e-6, 1e-1, log=True),
                CS.UniformFloatHyperparameter("eta0", 1e-4, 1.0, log=True)])
        return cs


os.makedirs("models", exist_ok=True)
NS = hpns.NameServer(run_id="sgd", host="127.0.0.1", port=None)
NS.start()
worker = SGDWorker(nameserver="127.0.0.1", run_id="sgd")
worker.run(background=True)
bohb = BOHB(configspace=SGDWorker.get_configspace(), run_id="sgd", nameserver="127.0.0.1",
            result_logger=hpres.json_result_logger(directory=OUT, overwrite=True),
            min_budget=3, max_budget=27, eta=3, random_fraction=0.3)
res = bohb.run(n_iterations=2)
bohb.shutdown(shutdown_workers=True)
NS.shutdown()
with open(os.path.join(OUT, "results.pkl"), "wb") as fh:
    pickle.dump(res, fh)

incumbent = res.get_incumbent_id()
runs = res.get_runs_by_id(incumbent)
print("INCUMBENT", incumbent, runs[-1].budget, runs[-1].loss)
print("Best found configuration:", res.get_id2config_mapping()[incumbent]["config"])
print("A total of %i runs where executed." % len(res.get_all_runs()))
'''


def _blobs(path: Path, n: int, seed: int) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    centers = np.array([[0, 0, 0], [2, 2, 0], [0, 2, 2], [2, 0, 2]], dtype=float)
    labels = rng.integers(0, 4, size=n)
    points = centers[labels] + rng.normal(0, 0.9, size=(n, 3))
    rows = [",".join(f"{v:.4f}" for v in p) + f",{c}" for p, c in zip(points, labels,
                                                                       strict=True)]
    path.write_text("f1,f2,f3,label\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    Path("data").mkdir()
    _blobs(Path("data/blobs_train.csv"), 400, 0)
    _blobs(Path("data/blobs_valid.csv"), 200, 1)
    Path("bohb_search.py").write_text(SEARCH)
    done = subprocess.run([sys.executable, "bohb_search.py"], capture_output=True, text=True,
                          check=False)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    line = next(x for x in done.stdout.splitlines() if x.startswith("INCUMBENT"))
    results = [json.loads(x) for x in Path("hpo/bohb_sgd/results.json").read_text().splitlines()]
    # results.json: [config_id, budget, timestamps, result, exception], one line per job
    finished = [r for r in results if r[3] is not None]
    top = max(r[1] for r in finished)
    best = min((r for r in finished if r[1] == top), key=lambda r: r[3]["loss"])
    last = max(results, key=lambda r: r[2]["finished"])
    name = "_".join(map(str, best[0]))
    assert line.split()[1:4] == [f"({best[0][0]},", f"{best[0][1]},", f"{best[0][2]})"], line
    best_path = f"models/{name}_b{int(best[1])}.joblib"
    last_path = f"models/{'_'.join(map(str, last[0]))}_b{int(last[1])}.joblib"
    assert Path(best_path).is_file() and Path(last_path).is_file()
    return [{
        "run": "hpo/bohb_sgd", "best": best_path, "latest": last_path,
        "evidence": f"res.get_incumbent_id() (printed: {line}) is config {best[0]}, the lowest "
                    f"loss ({best[3]['loss']:.4f}) at the largest budget {top:g} in "
                    f"results.json; its model at that budget is the worker's {best_path}. "
                    f"Latest: the job with the last 'finished' timestamp in results.json, "
                    f"config {last[0]} at budget {last[1]:g}, whose worker saved {last_path}. "
                    f"hpbandster saves no model itself: the per-job files are the user's"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("hpo/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "hpbandster", tool="hpbandster",
           kind="hyperparameter optimization (BOHB, hpbandster.core.result.json_result_logger)",
           command="python bohb_search.py (bohb_search.py: local Pyro NameServer and one "
                   "Worker, BOHB(min_budget=3, max_budget=27, eta=3, result_logger="
                   "json_result_logger('hpo/bohb_sgd', overwrite=True)).run(n_iterations=2), "
                   "Result pickled to hpo/bohb_sgd/results.pkl, the worker joblib.dumps each "
                   "job's model to models/<config id>_b<budget>.joblib)")
