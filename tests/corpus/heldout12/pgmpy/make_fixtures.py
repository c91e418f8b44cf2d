"""pgmpy: a user learns a discrete Bayesian network from the user's toy survey table
``data/survey.csv`` (6 categorical variables, 3000 rows; sampled here from a small network
the user wrote by hand, as pgmpy's tutorials do) with pgmpy 1.1's
``pgmpy.causal_discovery`` API: structure by
``HillClimbSearch(scoring_method="bic-d", return_type="dag").fit(data).causal_graph_``
(variant ``hc_bic``) and ``PC(ci_test="chi_square", return_type="dag").fit(data)``
(variant ``pc``); parameters by ``DiscreteBayesianNetwork.fit(data, estimator=...)``
(``DiscreteMLE()`` for ``hc_bic``, ``DiscreteBayesianEstimator(prior_type="BDeu")`` for
``pc``); then ``model.save("models/<variant>.bif")``,
``model.save("models/<variant>.xml", filetype="xmlbif")`` and ``pickle.dump(model)``,
reloading each with ``DiscreteBayesianNetwork.load`` / ``pickle.load`` to check it.

    python3.11 -m venv /tmp/h12/pgmpy/venv
    /tmp/h12/pgmpy/venv/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl
    /tmp/h12/pgmpy/venv/bin/pip install pgmpy
    /tmp/h12/pgmpy/venv/bin/python tests/corpus/heldout12/pgmpy/make_fixtures.py

Runs: ``python make_data.py``; ``python learn.py hc_bic``; ``python learn.py pc``, stdout
appended to ``logs/learn.log`` (``| tee -a``). ``learn.py`` also writes the learned edges
and the model's BIC/log-likelihood on the data to ``reports/<variant>.json``.
"""

# ruff: noqa: E501 - the install lines quoted as they were run

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MAKE_DATA = '''"""Sample the toy table data/survey.csv from a hand-written network:
python make_data.py"""
from pathlib import Path

from pgmpy.factors.discrete import TabularCPD
from pgmpy.models import DiscreteBayesianNetwork

net = DiscreteBayesianNetwork([("Age", "Education"), ("Sex", "Education"),
                               ("Education", "Occupation"), ("Education", "Residence"),
                               ("Occupation", "Travel"), ("Residence", "Travel")])
net.add_cpds(
    TabularCPD("Age", 3, [[0.3], [0.5], [0.2]], state_names={"Age": ["young", "adult", "old"]}),
    TabularCPD("Sex", 2, [[0.55], [0.45]], state_names={"Sex": ["M", "F"]}),
    TabularCPD("Education", 2,
               [[0.75, 0.72, 0.88, 0.64, 0.70, 0.90], [0.25, 0.28, 0.12, 0.36, 0.30, 0.10]],
               evidence=["Age", "Sex"], evidence_card=[3, 2],
               state_names={"Education": ["high", "uni"], "Age": ["young", "adult", "old"],
                            "Sex": ["M", "F"]}),
    TabularCPD("Occupation", 2, [[0.96, 0.92], [0.04, 0.08]], evidence=["Education"],
               evidence_card=[2], state_names={"Occupation": ["emp", "self"],
                                               "Education": ["high", "uni"]}),
    TabularCPD("Residence", 2, [[0.25, 0.2], [0.75, 0.8]], evidence=["Education"],
               evidence_card=[2], state_names={"Residence": ["small", "big"],
                                               "Education": ["high", "uni"]}),
    TabularCPD("Travel", 3, [[0.48, 0.58, 0.56, 0.70], [0.42, 0.24, 0.36, 0.21],
                             [0.10, 0.18, 0.08, 0.09]],
               evidence=["Occupation", "Residence"], evidence_card=[2, 2],
               state_names={"Travel": ["car", "train", "other"],
                            "Occupation": ["emp", "self"], "Residence": ["small", "big"]}),
)
assert net.check_model()
data = net.simulate(n_samples=3000, seed=0)
Path("data").mkdir(exist_ok=True)
data.to_csv("data/survey.csv", index=False)
print("wrote data/survey.csv", data.shape)
'''

LEARN = '''"""Learn a Bayesian network's structure and parameters from data/survey.csv and save it:
python learn.py hc_bic|pc"""
import json
import pickle
import sys
from pathlib import Path

import pandas as pd
from pgmpy.causal_discovery import PC, HillClimbSearch
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.parameter_estimator import DiscreteBayesianEstimator, DiscreteMLE
from pgmpy.structure_score import BIC, LogLikelihood

variant = sys.argv[1]
data = pd.read_csv("data/survey.csv", dtype=str)
if variant == "hc_bic":
    dag = HillClimbSearch(scoring_method="bic-d", return_type="dag").fit(data).causal_graph_
    estimator = DiscreteMLE()
else:
    pc = PC(ci_test="chi_square", significance_level=0.01, return_type="dag")
    dag = pc.fit(data).causal_graph_
    estimator = DiscreteBayesianEstimator(prior_type="BDeu", equivalent_sample_size=10)
model = DiscreteBayesianNetwork(dag.edges())
model.add_nodes_from(dag.nodes())
model.fit(data, estimator=estimator)
assert model.check_model()
print(variant, "edges", sorted(model.edges()))
Path("models").mkdir(exist_ok=True)
Path("reports").mkdir(exist_ok=True)
model.save(f"models/{variant}.bif")
model.save(f"models/{variant}.xml", filetype="xmlbif")
with open(f"models/{variant}.pkl", "wb") as f:
    pickle.dump(model, f)
for path in (f"models/{variant}.bif", f"models/{variant}.pkl", f"models/{variant}.xml"):
    print("saved", path)
back = DiscreteBayesianNetwork.load(f"models/{variant}.bif")
assert set(back.edges()) == set(model.edges())
back = DiscreteBayesianNetwork.load(f"models/{variant}.xml", filetype="xmlbif")
assert set(back.edges()) == set(model.edges())
with open(f"models/{variant}.pkl", "rb") as f:
    assert set(pickle.load(f).edges()) == set(model.edges())
report = {"variant": variant, "edges": sorted(map(list, model.edges())),
          "bic": BIC(data).score(model), "log_likelihood": LogLikelihood(data).score(model)}
Path(f"reports/{variant}.json").write_text(json.dumps(report, indent=2))
print(variant, "bic", report["bic"], "log_likelihood", report["log_likelihood"])
'''


def run(work: Path) -> list[dict[str, object]]:
    Path("make_data.py").write_text(MAKE_DATA)
    Path("learn.py").write_text(LEARN)
    subprocess.run([sys.executable, "make_data.py"], check=True)
    Path("logs").mkdir()
    out = ""
    for variant in ("hc_bic", "pc"):
        done = subprocess.run([sys.executable, "learn.py", variant], capture_output=True,
                              text=True)
        sys.stderr.write(done.stdout + done.stderr[-3000:])
        assert done.returncode == 0, done.returncode
        out += done.stdout
        with open("logs/learn.log", "a") as f:  # `| tee -a logs/learn.log`
            f.write(done.stdout)
    saved = re.findall(r"^saved (\S+)$", out, re.M)
    assert saved == [f"models/{v}.{e}" for v in ("hc_bic", "pc") for e in ("bif", "pkl", "xml")]
    assert len(re.findall(r"^\w+ bic -?[\d.]+ log_likelihood", out, re.M)) == 2, out
    return []


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("logs/", "reports/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pgmpy", tool="pgmpy",
           kind="probabilistic graphical models (learned Bayesian networks saved as BIF, "
                "XMLBIF and pickle)",
           command="python make_data.py; python learn.py hc_bic; python learn.py pc "
                   "(HillClimbSearch / PC structure learning, model.fit(data, "
                   "DiscreteMLE() | DiscreteBayesianEstimator()), "
                   "model.save('models/<v>.bif'), model.save('models/<v>.xml', "
                   "filetype='xmlbif'), pickle.dump(model)) "
                   "| tee -a logs/learn.log")
