"""evaluate: Hugging Face's library of evaluation metrics (``evaluate.load``,
``EvaluationModule.add_batch`` / ``compute``, ``evaluate.combine``, ``evaluate.save``), used
the way its quickstart shows, but with metrics the user wrote locally (no Hub access):
``metrics/binary_f1/binary_f1.py`` (accuracy, precision, recall, F1: an ``evaluate.Metric``
subclass) and ``metrics/brier/brier.py`` (Brier score of predicted probabilities), loaded
with ``evaluate.load("./metrics/<name>")`` and combined with ``evaluate.combine``.
``train.py`` trains a scikit-learn ``SGDClassifier`` (logistic loss, ``partial_fit``) on
toy data for 8 epochs, feeds each epoch's validation predictions to the metrics batch by
batch, ``evaluate.save``-s every epoch's scores (with the epoch and the checkpoint path)
into ``results/<run>/epoch_NN.json``, saves a joblib checkpoint per epoch and ``best.joblib``
on a new best F1, and at the end ``evaluate.save("./results/", ...)``-s the run's summary
(a timestamped ``result-*.json``, evaluate's default name). Two runs (eta0 0.01 and 0.5).
``HF_HOME`` and ``HF_DATASETS_CACHE`` point inside the workspace (``.hf/``), so evaluate's
module cache and metric cache are captured.

    python3 -m venv /tmp/h12/evaluate/venv
    /tmp/h12/evaluate/venv/bin/pip install evaluate numpy scikit-learn
    /tmp/h12/evaluate/venv/bin/python tests/corpus/heldout12/evaluate/make_fixtures.py

(evaluate 0.4.6, datasets 5.2.0, scikit-learn 1.9.) ``HF_HUB_OFFLINE=1``; toy data
``data/{train,val}.csv`` is made locally.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

BINARY_F1 = '''"""Binary accuracy / precision / recall / F1, a local evaluate metric."""
import datasets
import evaluate
import numpy as np

_DESCRIPTION = "Accuracy, precision, recall and F1 of binary predictions."
_KWARGS_DESCRIPTION = "predictions: list of 0/1, references: list of 0/1"
_CITATION = ""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BinaryF1(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION, citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("int32"),
                                        "references": datasets.Value("int32")}))

    def _compute(self, predictions, references):
        p, r = np.asarray(predictions), np.asarray(references)
        tp = int(((p == 1) & (r == 1)).sum())
        prec = tp / max(int((p == 1).sum()), 1)
        rec = tp / max(int((r == 1).sum()), 1)
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        return {"accuracy": float((p == r).mean()), "precision": prec, "recall": rec,
                "f1": f1}
'''

BRIER = '''"""Brier score of predicted probabilities, a local evaluate metric."""
import datasets
import evaluate
import numpy as np

_DESCRIPTION = "Mean squared error between predicted probability and the 0/1 label."
_KWARGS_DESCRIPTION = "prediction_scores: list of float, references: list of 0/1"


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Brier(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION, citation="", inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("float32"),
                                        "references": datasets.Value("int32")}))

    def _compute(self, predictions, references):
        p, r = np.asarray(predictions, dtype=float), np.asarray(references, dtype=float)
        return {"brier": float(np.mean((p - r) ** 2))}
'''

TRAIN = '''"""Train a linear classifier, score each epoch with local evaluate metrics."""
import argparse
import os

import evaluate
import joblib
import numpy as np
from sklearn.linear_model import SGDClassifier

parser = argparse.ArgumentParser()
parser.add_argument("--eta0", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--run", default="sgd")
args = parser.parse_args()

tr = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
va = np.loadtxt("data/val.csv", delimiter=",", skiprows=1)
x, y, vx, vy = tr[:, :-1], tr[:, -1].astype(int), va[:, :-1], va[:, -1].astype(int)
f1_metric = evaluate.load("./metrics/binary_f1")
brier = evaluate.load("./metrics/brier")
ckpt_dir, res_dir = f"checkpoints/{args.run}", f"results/{args.run}"
os.makedirs(ckpt_dir, exist_ok=True)
os.makedirs(res_dir, exist_ok=True)
clf = SGDClassifier(loss="log_loss", learning_rate="constant", eta0=args.eta0,
                    random_state=0)
rng = np.random.default_rng(0)
best_f1, best_epoch = -1.0, None
for epoch in range(1, args.epochs + 1):
    for idx in np.array_split(rng.permutation(len(x)), 4):
        clf.partial_fit(x[idx], y[idx], classes=[0, 1])
    for i in range(0, len(vx), 25):
        f1_metric.add_batch(predictions=clf.predict(vx[i:i + 25]),
                            references=vy[i:i + 25])
    scores = f1_metric.compute()
    scores.update(brier.compute(predictions=clf.predict_proba(vx)[:, 1], references=vy))
    path = f"{ckpt_dir}/epoch_{epoch:02d}.joblib"
    joblib.dump(clf, path)
    saved = evaluate.save(f"{res_dir}/epoch_{epoch:02d}.json", experiment=args.run,
                          epoch=epoch, checkpoint=path, eta0=args.eta0, **scores)
    print(f"epoch {epoch} f1 {scores['f1']:.4f} brier {scores['brier']:.4f} "
          f"checkpoint {path} results {saved}", flush=True)
    if scores["f1"] > best_f1:
        best_f1, best_epoch = scores["f1"], epoch
        joblib.dump(clf, f"{ckpt_dir}/best.joblib")
        print(f"new best f1 {best_f1:.4f} at epoch {epoch}: {ckpt_dir}/best.joblib",
              flush=True)

best = joblib.load(f"{ckpt_dir}/best.joblib")
summary = evaluate.combine(["./metrics/binary_f1"]).compute(
    predictions=best.predict(vx), references=vy)
saved = evaluate.save("./results/", experiment=args.run, eta0=args.eta0, epochs=args.epochs,
                      best_epoch=best_epoch, best_checkpoint=f"{ckpt_dir}/best.joblib",
                      last_checkpoint=f"{ckpt_dir}/epoch_{args.epochs:02d}.joblib",
                      **summary)
print(f"summary saved to {saved}")
'''


def _toy_data() -> None:
    import numpy as np

    rng = np.random.default_rng(1)
    w = rng.normal(size=6)
    Path("data").mkdir()
    for name, n in (("train", 120), ("val", 100)):
        x = rng.normal(size=(n, 6))
        y = ((x @ w + rng.normal(0, 1.5, size=n)) > 0).astype(int)
        rows = [",".join(f"{v:.5f}" for v in r) + f",{t}" for r, t in zip(x, y, strict=True)]
        header = ",".join(f"f{i}" for i in range(6)) + ",label"
        Path(f"data/{name}.csv").write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _toy_data()
    for name, src in (("binary_f1", BINARY_F1), ("brier", BRIER)):
        Path("metrics", name).mkdir(parents=True)
        Path("metrics", name, f"{name}.py").write_text(src)
    Path("train.py").write_text(TRAIN)
    env = {**os.environ, "HF_HOME": str(work / ".hf"),
           "HF_DATASETS_CACHE": str(work / ".hf/datasets"), "HF_HUB_OFFLINE": "1",
           "CUDA_VISIBLE_DEVICES": ""}
    runs = []
    for eta0, name in (("0.01", "sgd_eta0.01"), ("0.5", "sgd_eta0.5")):
        cmd = [sys.executable, "train.py", "--eta0", eta0, "--epochs", "8", "--run", name]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        sys.stderr.write(done.stdout + done.stderr)
        assert done.returncode == 0, done.stderr[-3000:]
        summary = re.search(r"^summary saved to (\S+)$", done.stdout, re.M).group(1)
        rec = json.loads(Path(summary).read_text())
        assert rec["experiment"] == name and "_timestamp" in rec, rec
        epochs = sorted(Path("results", name).glob("epoch_*.json"))
        assert len(epochs) == 8, epochs
        last = json.loads(epochs[-1].read_text())
        best, latest = rec["best_checkpoint"], rec["last_checkpoint"]
        assert last["checkpoint"] == latest, last
        runs.append({
            "run": f"python train.py --eta0 {eta0} --epochs 8 --run {name}",
            "best": best, "latest": latest,
            "evidence": "evaluate has no notion of a checkpoint; the user's train.py "
                        "evaluate.save()s each epoch's scores with the checkpoint path "
                        f"(results/{name}/epoch_08.json names {latest}) and a final summary "
                        f"{summary} with best_checkpoint {best} (best F1 at epoch "
                        f"{rec['best_epoch']}) and last_checkpoint {latest}"})
        time.sleep(1.1)  # evaluate.save names the summary by the second
    assert runs[0]["best"] != runs[0]["latest"] or runs[1]["best"] != runs[1]["latest"]
    return runs


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("results/"):
        return "log"
    if path.startswith(".hf/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "evaluate", tool="evaluate",
           kind="evaluation metrics library (local metric scripts, evaluate.save results)",
           command="HF_HOME=.hf HF_DATASETS_CACHE=.hf/datasets python train.py --eta0 "
                   "{0.01,0.5} --epochs 8 --run sgd_eta{eta0} (evaluate.load('./metrics/"
                   "{binary_f1,brier}'), evaluate.combine, evaluate.save)")
