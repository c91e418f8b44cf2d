"""Snakemake: a small ML workflow (preprocess → train → evaluate) in the user's
``Snakefile``, run with ``snakemake --cores 1`` as Snakemake's tutorial does, conda-free;
then the user adds a third model to ``config.yaml`` and runs it again.

    python3.11 -m venv /tmp/h5/snakemake/venv
    /tmp/h5/snakemake/venv/bin/pip install snakemake numpy
    /tmp/h5/snakemake/venv/bin/python tests/corpus/heldout5/snakemake/make_fixtures.py

Rules: ``preprocess`` (a ``script:`` rule: standardises the user's ``data/raw/sensors.csv``
and splits it into ``data/processed/{train,test}.npz``), ``train`` (a ``shell:`` rule per
model of the config: ``python scripts/train.py`` writes ``models/{model}.npz`` and
``results/{model}/history.csv``), ``evaluate`` (``results/{model}/metrics.json``) and
``summarize`` (``results/summary.tsv``); each rule has a ``log:`` under ``logs/`` and
``train`` a ``benchmark:`` under ``benchmarks/``. Snakemake keeps its own state in
``.snakemake/`` (per-output metadata, the run logs, empty working folders).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SNAKEFILE = '''configfile: "config.yaml"

MODELS = list(config["models"])


rule all:
    input:
        "results/summary.tsv",


rule preprocess:
    input:
        "data/raw/sensors.csv",
    output:
        train="data/processed/train.npz",
        test="data/processed/test.npz",
    params:
        test_fraction=config["test_fraction"],
    log:
        "logs/preprocess.log",
    script:
        "scripts/preprocess.py"


rule train:
    input:
        "data/processed/train.npz",
    output:
        model="models/{model}.npz",
        history="results/{model}/history.csv",
    params:
        hidden=lambda wc: config["models"][wc.model]["hidden"],
        lr=lambda wc: config["models"][wc.model]["lr"],
        epochs=config["epochs"],
    log:
        "logs/train/{model}.log",
    benchmark:
        "benchmarks/train_{model}.tsv"
    shell:
        "python scripts/train.py --data {input} --hidden {params.hidden} --lr {params.lr} "
        "--epochs {params.epochs} --model {output.model} --history {output.history} "
        "> {log} 2>&1"


rule evaluate:
    input:
        model="models/{model}.npz",
        test="data/processed/test.npz",
    output:
        "results/{model}/metrics.json",
    log:
        "logs/evaluate/{model}.log",
    shell:
        "python scripts/evaluate.py {input.model} {input.test} {output} > {log} 2>&1"


rule summarize:
    input:
        expand("results/{model}/metrics.json", model=MODELS),
    output:
        "results/summary.tsv",
    log:
        "logs/summarize.log",
    run:
        import json

        with open(output[0], "w") as out:
            out.write("model\\taccuracy\\tloss\\n")
            for path in input:
                m = json.load(open(path))
                out.write(f"{m['model']}\\t{m['accuracy']:.4f}\\t{m['loss']:.4f}\\n")
        with open(log[0], "w") as f:
            f.write(f"summarized {len(input)} models\\n")
'''

CONFIG_TWO = '''test_fraction: 0.2
epochs: 8
models:
  mlp_h16:
    hidden: 16
    lr: 0.1
  mlp_h64:
    hidden: 64
    lr: 0.05
'''

CONFIG_THREE = CONFIG_TWO + '''  mlp_h128:
    hidden: 128
    lr: 0.05
'''

PREPROCESS = '''"""Standardise the raw sensor table and split it (Snakemake's script: rule)."""
import sys

import numpy as np

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821

table = np.loadtxt(snakemake.input[0], delimiter=",", skiprows=1)  # noqa: F821
X, y = table[:, :-1], table[:, -1].astype(int)
rng = np.random.default_rng(0)
order = rng.permutation(len(X))
n_test = int(len(X) * snakemake.params.test_fraction)  # noqa: F821
test, train = order[:n_test], order[n_test:]
mean, std = X[train].mean(0), X[train].std(0)
X = (X - mean) / std
out = snakemake.output  # noqa: F821
np.savez(out.train, features=X[train], labels=y[train], mean=mean, std=std)
np.savez(out.test, features=X[test], labels=y[test])
print(f"train {len(train)} rows, test {len(test)} rows, {X.shape[1]} features")
'''

TRAIN = '''"""Train a one-hidden-layer NumPy MLP with mini-batch SGD."""
import argparse

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--hidden", type=int, default=32)
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--epochs", type=int, default=5)
p.add_argument("--model", required=True)
p.add_argument("--history", required=True)
args = p.parse_args()

d = np.load(args.data)
X, y = d["features"], d["labels"]
k = int(y.max()) + 1
rng = np.random.default_rng(1)
W1 = rng.normal(0, 0.3, (X.shape[1], args.hidden))
b1 = np.zeros(args.hidden)
W2 = rng.normal(0, 0.3, (args.hidden, k))
b2 = np.zeros(k)


def forward(x):
    h = np.maximum(x @ W1 + b1, 0)
    z = h @ W2 + b2
    e = np.exp(z - z.max(1, keepdims=True))
    return h, e / e.sum(1, keepdims=True)


with open(args.history, "w") as hist:
    hist.write("epoch,loss,accuracy\\n")
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(X))
        for i in range(0, len(X), 32):
            xb, tb = X[order[i:i + 32]], y[order[i:i + 32]]
            h, pr = forward(xb)
            pr[np.arange(len(tb)), tb] -= 1
            g = pr / len(tb)
            dh = (g @ W2.T) * (h > 0)
            W2 -= args.lr * h.T @ g
            b2 -= args.lr * g.sum(0)
            W1 -= args.lr * xb.T @ dh
            b1 -= args.lr * dh.sum(0)
        _, pr = forward(X)
        loss = float(-np.log(pr[np.arange(len(y)), y] + 1e-12).mean())
        acc = float((pr.argmax(1) == y).mean())
        hist.write(f"{epoch},{loss:.5f},{acc:.4f}\\n")
        print(f"epoch {epoch}: loss {loss:.4f} accuracy {acc:.3f}")
np.savez(args.model, W1=W1, b1=b1, W2=W2, b2=b2)
print("saved", args.model)
'''

EVALUATE = '''"""Evaluate a saved model on the test split: evaluate.py MODEL TEST OUT"""
import json
import sys
from pathlib import Path

import numpy as np

model, test, out = sys.argv[1:]
w = np.load(model)
d = np.load(test)
h = np.maximum(d["features"] @ w["W1"] + w["b1"], 0)
z = h @ w["W2"] + w["b2"]
e = np.exp(z - z.max(1, keepdims=True))
pr = e / e.sum(1, keepdims=True)
y = d["labels"]
metrics = {"model": Path(model).stem, "accuracy": float((pr.argmax(1) == y).mean()),
           "loss": float(-np.log(pr[np.arange(len(y)), y] + 1e-12).mean())}
Path(out).write_text(json.dumps(metrics, indent=2) + "\\n")
print(metrics)
'''


def _sensors(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = rng.normal(0, 1.5, size=(4, 12))
    labels = rng.integers(0, 4, size=1500)
    X = centers[labels] + rng.normal(0, 1.2, size=(1500, 12)) * rng.uniform(0.5, 3, 12)
    path.parent.mkdir(parents=True)
    header = ",".join([f"s{i}" for i in range(12)] + ["activity"])
    rows = [",".join(f"{v:.4f}" for v in r) + f",{c}" for r, c in zip(X, labels, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def _metadata(path: str) -> dict[str, object]:
    """Snakemake's record of an output: .snakemake/metadata/<urlsafe base64 of the path>."""
    name = base64.urlsafe_b64encode(path.encode()).decode()
    return json.loads((Path(".snakemake/metadata") / name).read_text())


def run(work: Path) -> list[dict[str, object]]:
    _sensors(Path("data/raw/sensors.csv"))
    Path("scripts").mkdir()
    for name, text in (("preprocess.py", PREPROCESS), ("train.py", TRAIN),
                       ("evaluate.py", EVALUATE)):
        (Path("scripts") / name).write_text(text)
    Path("Snakefile").write_text(SNAKEFILE)
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    env_path = f"{Path(sys.executable).parent}:/usr/bin:/bin"
    for config in (CONFIG_TWO, CONFIG_THREE):
        Path("config.yaml").write_text(config)
        done = subprocess.run([snakemake, "--cores", "1"], capture_output=True, text=True,
                              check=True, env={"PATH": env_path, "HOME": "/tmp/h5/snakemake"})
        sys.stderr.write(done.stdout + done.stderr)
    checkpoints = []
    for model in ("mlp_h16", "mlp_h64", "mlp_h128"):
        path = f"models/{model}.npz"
        meta = _metadata(path)
        assert meta["rule"] == "train" and not meta["incomplete"], meta
        checkpoints.append({
            "run": f"snakemake rule train (model={model})", "best": None, "latest": path,
            "evidence": f"Snakemake's .snakemake/metadata record of {path}: the output "
                        f"'model' of the job of rule train (job_hash {meta['job_hash']}, "
                        f"complete), the one model that job produced; Snakemake has no "
                        f"notion of a best model"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith(".snakemake/log/"):
        return "log"
    if path.startswith(".snakemake/"):
        return "cache"
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("logs/", "benchmarks/", "results/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "snakemake", tool="Snakemake",
           kind="workflow manager (ML pipeline: preprocess, train, evaluate)",
           command="snakemake --cores 1 (config.yaml: models mlp_h16, mlp_h64); then "
                   "mlp_h128 added to config.yaml and snakemake --cores 1 again")
