"""ipyparallel: IPython's parallel computing cluster (a controller plus engines, driven from
a ``Client``), as a researcher uses it to fan a small hyper-parameter sweep out over the
cores of a workstation. The project keeps its IPython profile inside the workspace
(``IPYTHONDIR=.ipython``, so ``ipcluster`` creates ``.ipython/profile_default/``). Two
sweeps, each on its own cluster (``--cluster-id``):

- ``ipcluster start -n 2 --daemonize --cluster-id=ridge``, then ``python sweep_ridge.py``
  (a ``load_balanced_view`` of closed-form ridge regressions over 6 values of alpha, each
  task saving its fitted weights with ``np.save`` into ``outputs/ridge_sweep/``, the driver
  writing ``results.json`` and ``best_alpha.txt``), then ``ipcluster stop
  --cluster-id=ridge`` (which removes that cluster's log and connection files);
- ``ipcluster start -n 2 --daemonize --cluster-id=logreg``, then ``python
  sweep_logreg.py`` (numpy logistic regression by gradient descent over 3 learning rates
  x 2 L2 strengths, each task saving ``joblib.dump`` of its weights and history into
  ``outputs/logreg_sweep/``). This cluster is still running when the workspace is
  captured (a cluster left up between experiments, as is common: its controller and
  engine logs, connection files and ``cluster-logreg.json`` are on disk); it is stopped
  right after the capture.

    python3 -m venv /tmp/h12/ipyparallel/venv
    /tmp/h12/ipyparallel/venv/bin/pip install ipyparallel numpy joblib
    /tmp/h12/ipyparallel/venv/bin/python tests/corpus/heldout12/ipyparallel/make_fixtures.py

(ipyparallel 9.2.0, numpy 2.4, joblib 1.6.) Toy data ``data/{train,val}.npz`` is made
locally.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

RIDGE = '''"""Ridge sweep on the running ipcluster (ipcluster start -n 2 --cluster-id=ridge)."""
import json
import os

import ipyparallel as ipp


def fit(alpha, data_dir, out_dir):
    import os

    import numpy as np

    tr, va = np.load(f"{data_dir}/train.npz"), np.load(f"{data_dir}/val.npz")
    x, y = tr["x"], tr["y"]
    w = np.linalg.solve(x.T @ x + alpha * np.eye(x.shape[1]), x.T @ y)
    val_mse = float(np.mean((va["x"] @ w - va["y"]) ** 2))
    path = os.path.join(out_dir, f"ridge_alpha{alpha:g}.npy")
    np.save(path, w)
    return {"alpha": alpha, "val_mse": val_mse, "weights": path, "pid": os.getpid()}


rc = ipp.Client(cluster_id="ridge")
rc.wait_for_engines(2)
view = rc.load_balanced_view()
out_dir = "outputs/ridge_sweep"
os.makedirs(out_dir, exist_ok=True)
data_dir, abs_out = os.path.abspath("data"), os.path.abspath(out_dir)
ars = [view.apply_async(fit, a, data_dir, abs_out) for a in (0.01, 0.1, 1.0, 3.0, 10.0, 100.0)]
rows = []
for ar in ars:
    r = ar.get()
    r["weights"] = os.path.relpath(r["weights"])
    r.update(engine_id=ar.engine_id, msg_id=ar.msg_ids[0],
             completed=ar.completed.isoformat())
    rows.append(r)
    print(f"engine {ar.engine_id} alpha={r['alpha']:g} val_mse={r['val_mse']:.4f} "
          f"saved {r['weights']}", flush=True)
best = min(rows, key=lambda r: r["val_mse"])
latest = max(rows, key=lambda r: r["completed"])
with open(f"{out_dir}/results.json", "w") as f:
    json.dump({"trials": rows, "best": best["weights"]}, f, indent=2)
with open(f"{out_dir}/best_alpha.txt", "w") as f:
    f.write(f"{best['alpha']:g}\\n")
print(f"best alpha={best['alpha']:g} val_mse={best['val_mse']:.4f}: {best['weights']}")
print(f"last task completed: {latest['weights']} at {latest['completed']}")
rc.close()
'''

LOGREG = '''"""Logistic-regression sweep on the running ipcluster (--cluster-id=logreg)."""
import itertools
import json
import os

import ipyparallel as ipp


def train(lr, l2, data_dir, out_dir, epochs=30):
    import os

    import joblib
    import numpy as np

    tr, va = np.load(f"{data_dir}/train.npz"), np.load(f"{data_dir}/val.npz")
    x, y = tr["x"], (tr["y"][:, 0] > 0).astype(float)
    vx, vy = va["x"], (va["y"][:, 0] > 0).astype(float)
    w, b, hist = np.zeros(x.shape[1]), 0.0, []
    for epoch in range(epochs):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        w -= lr * (x.T @ (p - y) / len(y) + l2 * w)
        b -= lr * float(np.mean(p - y))
        vp = np.clip(1 / (1 + np.exp(-(vx @ w + b))), 1e-7, 1 - 1e-7)
        hist.append(float(-np.mean(vy * np.log(vp) + (1 - vy) * np.log(1 - vp))))
    path = os.path.join(out_dir, f"logreg_lr{lr:g}_l2{l2:g}.joblib")
    joblib.dump({"w": w, "b": b, "lr": lr, "l2": l2, "val_logloss": hist}, path)
    return {"lr": lr, "l2": l2, "val_logloss": hist[-1], "model": path}


rc = ipp.Client(cluster_id="logreg")
rc.wait_for_engines(2)
view = rc.load_balanced_view()
out_dir = "outputs/logreg_sweep"
os.makedirs(out_dir, exist_ok=True)
data_dir, abs_out = os.path.abspath("data"), os.path.abspath(out_dir)
grid = list(itertools.product((0.05, 0.5, 2.0), (0.0, 0.1)))
ars = [view.apply_async(train, lr, l2, data_dir, abs_out) for lr, l2 in grid]
rows = []
for ar in ars:
    r = ar.get()
    r["model"] = os.path.relpath(r["model"])
    r.update(engine_id=ar.engine_id, completed=ar.completed.isoformat())
    rows.append(r)
    print(f"engine {ar.engine_id} lr={r['lr']:g} l2={r['l2']:g} "
          f"val_logloss={r['val_logloss']:.4f} saved {r['model']}", flush=True)
best = min(rows, key=lambda r: r["val_logloss"])
latest = max(rows, key=lambda r: r["completed"])
with open(f"{out_dir}/results.json", "w") as f:
    json.dump({"trials": rows, "best": best["model"]}, f, indent=2)
print(f"best lr={best['lr']:g} l2={best['l2']:g}: {best['model']}")
print(f"last task completed: {latest['model']} at {latest['completed']}")
rc.close()
'''

_LEFT_RUNNING: list[int] = []


def _toy_data() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    w = rng.normal(size=(10, 1))
    Path("data").mkdir()
    for name, n in (("train", 40), ("val", 200)):
        x = rng.normal(size=(n, 10))
        y = x @ w + rng.normal(0, 2.0, size=(n, 1))
        np.savez(f"data/{name}.npz", x=x, y=y)


def _sh(env: dict[str, str], *cmd: str) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, (cmd, done.returncode, done.stderr[-2000:])
    return done.stdout + done.stderr


def _sweep(env: dict[str, str], script: str, cid: str) -> dict[str, object]:
    bindir = Path(sys.executable).parent
    out = _sh(env, str(bindir / "python"), script)
    best = re.search(r"^best .*: (\S+)$", out, re.M).group(1)
    latest = re.search(r"^last task completed: (\S+) at (\S+)$", out, re.M)
    results = json.loads(Path(best).parent.joinpath("results.json").read_text())
    assert results["best"] == best, results
    assert {r["engine_id"] for r in results["trials"]} == {0, 1}, results
    return {"run": f"ipcluster start -n 2 --daemonize --cluster-id={cid}; python {script}",
            "best": best, "latest": latest.group(1),
            "evidence": "ipyparallel has no notion of a checkpoint: each task of the user's "
                        "sweep saves its model and returns the path; the driver prints "
                        f"'best ...: {best}' (lowest validation loss) and records it as "
                        f"'best' in {Path(best).parent}/results.json; latest is the task "
                        "whose AsyncResult.completed timestamp (ipyparallel's own task "
                        f"metadata, printed as 'last task completed') is last: {latest.group(1)}"}


def run(work: Path) -> list[dict[str, object]]:
    _toy_data()
    Path("sweep_ridge.py").write_text(RIDGE)
    Path("sweep_logreg.py").write_text(LOGREG)
    bindir = Path(sys.executable).parent
    env = {**os.environ, "IPYTHONDIR": str(work / ".ipython"), "CUDA_VISIBLE_DEVICES": "",
           "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    ipc = str(bindir / "ipcluster")
    runs = []
    out = _sh(env, ipc, "start", "-n", "2", "--daemonize", "--cluster-id=ridge")
    assert "Leaving cluster running" in out, out
    runs.append(_sweep(env, "sweep_ridge.py", "ridge"))
    out = _sh(env, ipc, "stop", "--cluster-id=ridge")
    assert "Stopping cluster" in out, out
    out = _sh(env, ipc, "start", "-n", "2", "--daemonize", "--cluster-id=logreg")
    assert "Leaving cluster running" in out, out
    runs.append(_sweep(env, "sweep_logreg.py", "logreg"))
    state = json.loads(Path(".ipython/profile_default/security/cluster-logreg.json").read_text())
    _LEFT_RUNNING.append(state["controller"]["state"]["pid"])
    for eset in state["engines"]["sets"].values():
        _LEFT_RUNNING.extend(e["pid"] for e in eset["engines"].values())
    time.sleep(1)
    return runs


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith((".npy", ".joblib")):
        return "checkpoint"
    if path.startswith("outputs/"):
        return "log"
    if path.startswith(".ipython/"):
        if "/log/" in path and path.endswith(".log"):
            return "log"
        if path.endswith("startup/README"):
            return "other"
        return "cache"
    return "other"


if __name__ == "__main__":
    try:
        record(Path(__file__).resolve().parent, run, label, "ipyparallel", tool="ipyparallel",
               kind="parallel computing cluster (ipcluster: controller + engines, profile dir)",
               command="IPYTHONDIR=.ipython ipcluster start -n 2 --daemonize "
                       "--cluster-id={ridge,logreg}; python sweep_{ridge,logreg}.py; "
                       "ipcluster stop --cluster-id=ridge (logreg left running at capture)")
    finally:
        for pid in _LEFT_RUNNING:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
