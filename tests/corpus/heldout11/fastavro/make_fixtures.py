"""fastavro: a data pipeline writes the user's toy churn training records as Apache Avro
files with fastavro (the fast Avro reader/writer for Python): an Avro schema the user
wrote, ``schemas/churn_record.avsc``, loaded with ``fastavro.schema.load_schema``, and
``fastavro.writer`` part files (``part-0000i.avro``: train parts deflate-compressed,
validation parts snappy). ``train.py`` streams them back with ``fastavro.reader`` into
numpy, fits a scikit-learn ``SGDClassifier`` epoch by epoch (``partial_fit``), saves a
joblib checkpoint per epoch and the best by validation log-loss, logs the metrics, and
writes the scored validation records as Avro too.

    python3.11 -m venv /tmp/h11/fastavro/venv
    /tmp/h11/fastavro/venv/bin/pip install fastavro cramjam numpy scikit-learn joblib
    /tmp/h11/fastavro/venv/bin/python tests/corpus/heldout11/fastavro/make_fixtures.py

(``cramjam`` is what fastavro uses for the snappy codec.) The user's source is
``data/raw/customers.csv`` (600 toy customers). ``python export_avro.py`` (4 train parts,
deflate, and 2 validation parts, snappy, into ``data/avro/churn/{train,valid}/``),
``python inspect_avro.py`` (reads each part's header: codec, schema, record count),
``python train.py`` (8 epochs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCHEMA = {
    "type": "record", "name": "ChurnRecord", "namespace": "com.example.churn",
    "doc": "One customer-month training example",
    "fields": [
        {"name": "customer_id", "type": "string"},
        {"name": "tenure_months", "type": "int"},
        {"name": "monthly_charges", "type": "float"},
        {"name": "support_calls", "type": "int"},
        {"name": "plan", "type": {"type": "enum", "name": "Plan",
                                  "symbols": ["basic", "standard", "premium"]}},
        {"name": "usage_last_7d", "type": {"type": "array", "items": "float"}},
        {"name": "coupon", "type": ["null", "string"], "default": None},
        {"name": "churned", "type": "boolean"},
    ],
}

EXPORT = '''"""Export data/raw/customers.csv as Avro part files: python export_avro.py"""
import csv
import json
from pathlib import Path

import fastavro
from fastavro.schema import load_schema

schema = load_schema("schemas/churn_record.avsc")


def to_record(row):
    return {"customer_id": row["customer_id"], "tenure_months": int(row["tenure_months"]),
            "monthly_charges": float(row["monthly_charges"]),
            "support_calls": int(row["support_calls"]), "plan": row["plan"],
            "usage_last_7d": [float(v) for v in row["usage_last_7d"].split(";")],
            "coupon": row["coupon"] or None, "churned": row["churned"] == "1"}


rows = [to_record(r) for r in csv.DictReader(open("data/raw/customers.csv"))]
splits = {"train": (rows[:480], 4, "deflate"), "valid": (rows[480:], 2, "snappy")}
for split, (records, parts, codec) in splits.items():
    out = Path("data/avro/churn", split)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(parts):
        path = out / f"part-{i:05d}.avro"
        with open(path, "wb") as f:
            fastavro.writer(f, schema, records[i::parts], codec=codec, sync_interval=4000,
                            metadata={"pipeline": "export_avro.py", "split": split})
        print("wrote", path, len(records[i::parts]), "records", codec)
'''

INSPECT = '''"""Print each Avro part's header: python inspect_avro.py"""
from pathlib import Path

import fastavro

for path in sorted(Path("data/avro/churn").glob("*/part-*.avro")):
    with open(path, "rb") as f:
        reader = fastavro.reader(f)
        n = sum(1 for _ in reader)
        print(path, reader.codec, reader.writer_schema["name"], n, "records",
              reader.metadata.get("split"))
'''

TRAIN = '''"""Fit a churn classifier from the Avro parts: python train.py"""
import glob
import json
from pathlib import Path

import fastavro
import joblib
import numpy as np
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score, log_loss
from sklearn.preprocessing import StandardScaler

PLANS = ["basic", "standard", "premium"]


def load(split):
    records = []
    for path in sorted(glob.glob(f"data/avro/churn/{split}/part-*.avro")):
        with open(path, "rb") as f:
            records.extend(fastavro.reader(f))
    x = np.array([[r["tenure_months"], r["monthly_charges"], r["support_calls"],
                   PLANS.index(r["plan"]), r["coupon"] is not None, *r["usage_last_7d"]]
                  for r in records], dtype=np.float64)
    y = np.array([r["churned"] for r in records], dtype=int)
    return records, x, y


_, x_train, y_train = load("train")
valid, x_valid, y_valid = load("valid")
scaler = StandardScaler().fit(x_train)
x_train, x_valid = scaler.transform(x_train), scaler.transform(x_valid)
model = SGDClassifier(loss="log_loss", learning_rate="constant", eta0=0.3, alpha=1e-4,
                      random_state=0)
rng = np.random.default_rng(0)
Path("models/checkpoints").mkdir(parents=True, exist_ok=True)
Path("logs").mkdir(exist_ok=True)
best = None
with open("logs/train_metrics.jsonl", "w") as log:
    for epoch in range(1, 9):
        order = rng.permutation(len(y_train))
        for batch in np.array_split(order, 15):
            model.partial_fit(x_train[batch], y_train[batch], classes=[0, 1])
        proba = model.predict_proba(x_valid)[:, 1]
        loss, acc = log_loss(y_valid, proba), accuracy_score(y_valid, proba > 0.5)
        log.write(json.dumps({"epoch": epoch, "valid_log_loss": round(loss, 5),
                              "valid_accuracy": round(acc, 4)}) + "\\n")
        path = f"models/checkpoints/sgd_epoch{epoch:02d}.joblib"
        joblib.dump({"scaler": scaler, "model": model, "epoch": epoch}, path)
        print(f"epoch {epoch}: valid log_loss {loss:.4f} acc {acc:.3f} saved {path}")
        if best is None or loss < best:
            best = loss
            joblib.dump({"scaler": scaler, "model": model, "epoch": epoch},
                        "models/churn_sgd_best.joblib")
            print(f"epoch {epoch}: new best valid log_loss {loss:.4f} -> "
                  "models/churn_sgd_best.joblib")

final = joblib.load("models/churn_sgd_best.joblib")
proba = final["model"].predict_proba(x_valid)[:, 1]
schema = fastavro.parse_schema({"type": "record", "name": "ChurnScore", "fields": [
    {"name": "customer_id", "type": "string"}, {"name": "churned", "type": "boolean"},
    {"name": "score", "type": "double"}]})
Path("outputs").mkdir(exist_ok=True)
with open("outputs/valid_scores.avro", "wb") as f:
    fastavro.writer(f, schema, [{"customer_id": r["customer_id"], "churned": r["churned"],
                                 "score": float(p)} for r, p in zip(valid, proba)],
                    codec="deflate")
print("scored", len(valid), "valid records with epoch", final["epoch"],
      "-> outputs/valid_scores.avro")
'''


def _customers(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    lines = ["customer_id,tenure_months,monthly_charges,support_calls,plan,usage_last_7d,"
             "coupon,churned"]
    for n in range(600):
        tenure = int(rng.integers(1, 72))
        plan = int(rng.integers(0, 3))
        charges = 20 + 30 * plan + rng.normal(0, 5)
        calls = int(rng.poisson(1.5))
        usage = rng.gamma(2, 1.5 - 0.3 * plan, 7)
        coupon = rng.choice(["", "", "SPRING10", "LOYAL5"])
        logit = 1.2 - 0.06 * tenure + 0.6 * calls - 0.3 * usage.mean() + rng.normal(0, 0.8)
        churned = int(logit > 0)
        lines.append(f"C{n:05d},{tenure},{charges:.2f},{calls},"
                     f"{['basic', 'standard', 'premium'][plan]},"
                     f"{';'.join(f'{u:.3f}' for u in usage)},{coupon},{churned}")
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    import joblib

    _customers(Path("data/raw/customers.csv"))
    Path("schemas").mkdir()
    Path("schemas/churn_record.avsc").write_text(json.dumps(SCHEMA, indent=2) + "\n")
    for name, text in [("export_avro.py", EXPORT), ("inspect_avro.py", INSPECT),
                       ("train.py", TRAIN)]:
        Path(name).write_text(text)
    assert _run("export_avro.py").count("wrote") == 6
    out = _run("inspect_avro.py")
    assert out.count("deflate") == 4 and out.count("snappy") == 2, out
    lines = _run("train.py").splitlines()
    bests = [line for line in lines if "new best" in line]
    best_epoch = int(bests[-1].split()[1].rstrip(":"))
    assert joblib.load("models/churn_sgd_best.joblib")["epoch"] == best_epoch
    saved = [line.split("saved ")[1] for line in lines if " saved models/" in line]
    assert len(saved) == 8 and saved[-1] == "models/checkpoints/sgd_epoch08.joblib", saved
    assert f"with epoch {best_epoch}" in lines[-1], lines[-1]
    return [{"run": "python train.py", "best": "models/churn_sgd_best.joblib",
             "latest": saved[-1],
             "evidence": "fastavro is a serialization library with no notion of a "
                         f"checkpoint; the user's train.py printed '{bests[-1]}' (its last "
                         f"new best; the file holds epoch {best_epoch}, which it reloaded to "
                         f"score the validation set) and 'epoch 8: ... saved {saved[-1]}', "
                         "the last of its per-epoch checkpoints"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("logs/", "outputs/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "fastavro", tool="fastavro",
           kind="Avro part files (deflate/snappy) with an .avsc schema, read back to fit "
                "a scikit-learn model",
           command="python export_avro.py (fastavro.writer, schema load_schema('schemas/"
                   "churn_record.avsc') -> data/avro/churn/train/part-0000{0..3}.avro "
                   "deflate, valid/part-0000{0,1}.avro snappy); python inspect_avro.py; "
                   "python train.py (fastavro.reader, SGDClassifier partial_fit 8 epochs, "
                   "joblib checkpoints, best by valid log-loss, outputs/valid_scores.avro)")
