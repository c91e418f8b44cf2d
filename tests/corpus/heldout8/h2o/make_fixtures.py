"""H2O-3: the user's ``train.py`` starts a local H2O server (``h2o.init``, with its
``log_dir`` in the project), runs ``H2OAutoML`` on the user's ``data/churn.csv`` (with
``export_checkpoints_dir``, AutoML's documented option to keep every model it trains), saves
the leader with ``h2o.save_model`` and downloads it as a MOJO (``download_mojo``), writes the
leaderboard to CSV and shuts the server down.

    python3.11 -m venv /tmp/h8/h2o/venv
    /tmp/h8/h2o/venv/bin/pip install h2o==3.46.0.7 pandas
    /tmp/h8/h2o/venv/bin/python tests/corpus/heldout8/h2o/make_fixtures.py

Java 17 is on the machine; ``h2o.init(nthreads=1, max_mem_size="1G", log_dir="h2o_logs")``
starts the h2o.jar of the wheel. ``python train.py``: AutoML with ``max_models=3``,
``nfolds=3``, ``seed=1``, ``project_name="churn"``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""AutoML on the churn table: python train.py"""
import h2o
from h2o.automl import H2OAutoML

h2o.init(nthreads=1, max_mem_size="1G", log_dir="h2o_logs")
frame = h2o.import_file("data/churn.csv")
frame["churned"] = frame["churned"].asfactor()
train, test = frame.split_frame(ratios=[0.8], seed=1)
features = [c for c in frame.columns if c not in ("customer_id", "churned")]

aml = H2OAutoML(max_models=3, nfolds=3, seed=1, project_name="churn",
                export_checkpoints_dir="automl_models")
aml.train(x=features, y="churned", training_frame=train)
board = aml.leaderboard.as_data_frame()
board.to_csv("reports/leaderboard.csv", index=False)
print(board.to_string())
print("leader", aml.leader.model_id)
print("test auc", aml.leader.model_performance(test).auc())

saved = h2o.save_model(aml.leader, path="models", force=True)
print("saved", saved)
mojo = aml.leader.download_mojo(path="models")
print("mojo", mojo)
h2o.cluster().shutdown()
'''


def _churn(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 400
    tenure = rng.integers(1, 72, size=n)
    monthly = rng.normal(70, 25, size=n).clip(15, 150)
    tickets = rng.poisson(1.5, size=n)
    plan = rng.choice(["basic", "plus", "pro"], size=n)
    logit = -1.0 - 0.05 * tenure + 0.02 * monthly + 0.5 * tickets + (plan == "basic") * 0.7
    churned = rng.random(n) < 1 / (1 + np.exp(-logit))
    path.parent.mkdir(parents=True)
    rows = [f"C{i:05d},{t},{m:.2f},{k},{p},{'yes' if c else 'no'}"
            for i, (t, m, k, p, c) in enumerate(zip(tenure, monthly, tickets, plan, churned,
                                                    strict=True))]
    path.write_text("customer_id,tenure_months,monthly_charges,support_tickets,plan,churned\n"
                    + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _churn(Path("data/churn.csv"))
    Path("train.py").write_text(TRAIN)
    Path("models").mkdir()
    Path("reports").mkdir()
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    lines = done.stdout.splitlines()
    leader = next(x for x in lines if x.startswith("leader ")).split()[1]
    saved = next(x for x in lines if x.startswith("saved ")).split()[1]
    mojo = next(x for x in lines if x.startswith("mojo ")).split()[1]
    saved_rel = Path(saved).relative_to(work).as_posix()
    mojo_rel = Path(mojo).relative_to(work).as_posix()
    assert saved_rel == f"models/{leader}", saved_rel
    assert Path(mojo_rel).exists() and Path(f"automl_models/{leader}").exists()
    return [{
        "run": "python train.py (AutoML project 'churn')", "best": saved_rel,
        "latest": saved_rel,
        "evidence": f"aml.leader was {leader!r} (first row of the leaderboard, printed and in "
                    f"reports/leaderboard.csv); h2o.save_model(aml.leader) returned "
                    f"{saved_rel!r} (printed); the same leader downloaded as MOJO "
                    f"{mojo_rel!r}; one AutoML run, so best and latest are that saved leader"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("models/", "automl_models/")):
        return "checkpoint"
    if path.startswith(("h2o_logs/", "reports/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "h2o", tool="h2o",
           kind="AutoML (H2O-3 server driven from Python)",
           command="python train.py (train.py: h2o.init(nthreads=1, max_mem_size='1G', "
                   "log_dir='h2o_logs'); H2OAutoML(max_models=3, nfolds=3, seed=1, "
                   "project_name='churn', export_checkpoints_dir='automl_models').train; "
                   "leaderboard to reports/leaderboard.csv; h2o.save_model(aml.leader, "
                   "'models'); aml.leader.download_mojo('models'))")
