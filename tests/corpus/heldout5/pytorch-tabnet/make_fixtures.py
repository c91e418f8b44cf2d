"""pytorch-tabnet: the user's tabular project (``data/customers.csv``, toy churn data with
numeric and categorical columns) pretrains a ``TabNetPretrainer`` (self-supervised
masked-feature reconstruction) and then fine-tunes a ``TabNetClassifier`` from it, as the
library's README and its ``pretraining_example`` notebook do; each model is saved with
``save_model`` and the user keeps the classifier's training history as JSON.

    python3.11 -m venv /tmp/h5/pytorch-tabnet/venv
    /tmp/h5/pytorch-tabnet/venv/bin/pip install torch --index-url \\
        https://download.pytorch.org/whl/cpu
    /tmp/h5/pytorch-tabnet/venv/bin/pip install pytorch-tabnet pandas   # 4.1.0
    /tmp/h5/pytorch-tabnet/venv/bin/python tests/corpus/heldout5/pytorch-tabnet/make_fixtures.py

``python pretrain.py``: ``TabNetPretrainer.fit(X_train, eval_set=[X_valid],
pretraining_ratio=0.8, max_epochs=15, patience=5)`` then
``save_model('models/tabnet_pretrainer')``. ``python train.py``: ``TabNetClassifier.fit(...,
eval_set=[(X_valid, y_valid)], eval_name=['valid'], eval_metric=['accuracy', 'auc'],
max_epochs=40, patience=8, from_unsupervised=<the loaded pretrainer>)``, then
``save_model('models/tabnet_churn')`` and ``json.dump(clf.history.history,
'logs/history.json')``. pytorch-tabnet writes no file during training: its early stopping
keeps the best epoch's weights in memory and loads them back at the end ("Best weights from
best epoch are automatically used!"), so the saved zip holds the best epoch's weights.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

COMMON = '''import numpy as np
import pandas as pd

CATEGORICAL = ["plan", "region", "payment"]


def load(path="data/customers.csv"):
    frame = pd.read_csv(path)
    for column in CATEGORICAL:
        frame[column] = frame[column].astype("category").cat.codes
    features = [c for c in frame.columns if c not in ("customer_id", "churned")]
    X = frame[features].to_numpy(dtype=np.float32)
    y = frame["churned"].to_numpy()
    cat_idxs = [features.index(c) for c in CATEGORICAL]
    cat_dims = [int(X[:, i].max()) + 1 for i in cat_idxs]
    return X, y, cat_idxs, cat_dims
'''

PRETRAIN = '''"""Self-supervised pretraining of TabNet on all customers: python pretrain.py"""
import torch
from pytorch_tabnet.pretraining import TabNetPretrainer

from common import load

X, y, cat_idxs, cat_dims = load()
pretrainer = TabNetPretrainer(
    cat_idxs=cat_idxs, cat_dims=cat_dims, cat_emb_dim=2, n_d=8, n_a=8, n_steps=3,
    optimizer_fn=torch.optim.Adam, optimizer_params=dict(lr=2e-2), mask_type="entmax",
    seed=0, device_name="cpu",
)
pretrainer.fit(X[:800], eval_set=[X[800:]], pretraining_ratio=0.8, max_epochs=15,
               patience=5, batch_size=128, virtual_batch_size=32)
pretrainer.save_model("models/tabnet_pretrainer")
'''

TRAIN = '''"""Fine-tune a TabNet churn classifier from the pretrainer: python train.py"""
import json

import torch
from pytorch_tabnet.pretraining import TabNetPretrainer
from pytorch_tabnet.tab_model import TabNetClassifier

from common import load

X, y, cat_idxs, cat_dims = load()
pretrainer = TabNetPretrainer()
pretrainer.load_model("models/tabnet_pretrainer.zip")
clf = TabNetClassifier(
    cat_idxs=cat_idxs, cat_dims=cat_dims, cat_emb_dim=2, n_d=8, n_a=8, n_steps=3,
    optimizer_fn=torch.optim.Adam, optimizer_params=dict(lr=2e-2),
    scheduler_fn=torch.optim.lr_scheduler.StepLR, scheduler_params=dict(step_size=10, gamma=0.9),
    mask_type="entmax", seed=0, device_name="cpu",
)
clf.fit(X[:800], y[:800], eval_set=[(X[800:], y[800:])], eval_name=["valid"],
        eval_metric=["accuracy", "auc"], max_epochs=40, patience=8, batch_size=128,
        virtual_batch_size=32, from_unsupervised=pretrainer)
print("best epoch", clf.best_epoch, "best valid auc", round(clf.best_cost, 4))
clf.save_model("models/tabnet_churn")
with open("logs/history.json", "w") as f:
    json.dump(clf.history.history, f)
'''


def _customers(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 1000
    plan = rng.choice(["basic", "plus", "pro"], size=n)
    region = rng.choice(["north", "south", "east", "west"], size=n)
    payment = rng.choice(["card", "invoice"], size=n)
    tenure = rng.integers(1, 72, size=n)
    monthly = np.round(rng.normal(40, 12, size=n) + (plan == "pro") * 25, 2)
    tickets = rng.poisson(1.5, size=n)
    logit = 1.0 - 0.08 * tenure + 0.9 * tickets + 0.03 * monthly + (payment == "invoice") * 1.5
    churned = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    path.parent.mkdir(parents=True)
    rows = ["customer_id,plan,region,payment,tenure_months,monthly_fee,support_tickets,churned"]
    for i in range(n):
        rows.append(f"C{i:05d},{plan[i]},{region[i]},{payment[i]},{tenure[i]},{monthly[i]},"
                    f"{tickets[i]},{churned[i]}")
    path.write_text("\n".join(rows) + "\n")


def _run(script: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    assert "Best weights from best epoch are automatically used!" in done.stderr
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _customers(Path("data/customers.csv"))
    Path("common.py").write_text(COMMON)
    Path("pretrain.py").write_text(PRETRAIN)
    Path("train.py").write_text(TRAIN)
    Path("models").mkdir()
    Path("logs").mkdir()
    checkpoints = []
    for script, path in (("pretrain.py", "models/tabnet_pretrainer.zip"),
                         ("train.py", "models/tabnet_churn.zip")):
        out = _run(script)
        stop = re.search(r"^(Early stopping occurred at epoch \d+|Stop training because you "
                         r"reached max_epochs = \d+) with best_epoch = (\d+) and (\S+) = (\S+)$",
                         out, re.M)
        assert stop, out
        saved = f"Successfully saved model at {path}"
        assert saved in out, out
        evidence = (f"{script} printed '{stop.group(0)}', the warning 'Best weights from best "
                    f"epoch are automatically used!' (EarlyStopping.on_train_end loads the best "
                    f"epoch's weights back) and then '{saved}': the one file the run saved "
                    f"holds the best epoch ({stop.group(2)}) and is also the last written; "
                    f"pytorch-tabnet writes no per-epoch checkpoint")
        checkpoints.append({"run": f"python {script}", "best": path, "latest": path,
                            "evidence": evidence})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    if path.startswith("__pycache__/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pytorch-tabnet", tool="pytorch-tabnet",
           kind="tabular deep learning (TabNetPretrainer, TabNetClassifier, save_model)",
           command="python pretrain.py; python train.py (TabNetPretrainer.fit then "
                   "save_model('models/tabnet_pretrainer'); TabNetClassifier.fit(..., "
                   "from_unsupervised=pretrainer, patience=8) then "
                   "save_model('models/tabnet_churn') and json.dump(clf.history.history, "
                   "'logs/history.json'))")
