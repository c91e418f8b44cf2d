"""py-spy: the user profiles the user's tiny NumPy training script (a two-layer MLP on
``data/train.csv``, which saves its weights to ``checkpoints/mlp.npz``) with py-spy, the
sampling profiler, as its README shows, twice: once as a flame graph SVG and once as a
speedscope JSON, both kept in ``profiles/``.

    python3.11 -m venv /tmp/h9/py-spy/venv
    /tmp/h9/py-spy/venv/bin/pip install py-spy numpy
    /tmp/h9/py-spy/venv/bin/python tests/corpus/heldout10/py-spy/make_fixtures.py

``py-spy record -o profiles/train.svg --rate 50 -- python train.py`` then ``py-spy record
--format speedscope -o profiles/train.speedscope.json --rate 50 -- python train.py``
(py-spy launches the script as its child, so no ptrace permission beyond the default is
needed).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train a small MLP with NumPy: python train.py"""
import numpy as np


def load(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(int)


def forward(params, x):
    h = np.maximum(x @ params["w1"] + params["b1"], 0)
    logits = h @ params["w2"] + params["b2"]
    p = np.exp(logits - logits.max(1, keepdims=True))
    return h, p / p.sum(1, keepdims=True)


def step(params, x, y, lr):
    h, p = forward(params, x)
    g = p.copy()
    g[np.arange(len(y)), y] -= 1
    g /= len(y)
    dh = (g @ params["w2"].T) * (h > 0)
    for name, grad in (("w2", h.T @ g), ("b2", g.sum(0)), ("w1", x.T @ dh),
                       ("b1", dh.sum(0))):
        params[name] -= lr * grad
    return -np.log(p[np.arange(len(y)), y] + 1e-9).mean()


x, y = load("data/train.csv")
rng = np.random.default_rng(0)
params = {"w1": rng.normal(0, 0.1, (x.shape[1], 256)), "b1": np.zeros(256),
          "w2": rng.normal(0, 0.1, (256, 4)), "b2": np.zeros(4)}
for epoch in range(60):
    order = rng.permutation(len(y))
    for i in range(0, len(y), 64):
        loss = step(params, x[order[i:i + 64]], y[order[i:i + 64]], 0.1)
    if epoch % 20 == 19:
        print(f"epoch {epoch + 1} loss {loss:.3f}")
np.savez("checkpoints/mlp.npz", **params)
print("saved checkpoints/mlp.npz")
'''


def _data(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    centers = rng.normal(0, 0.4, (4, 32))
    labels = rng.integers(0, 4, 2000)
    x = centers[labels] + rng.normal(0, 1.5, (2000, 32))
    path.parent.mkdir(parents=True)
    header = ",".join([f"f{i}" for i in range(32)] + ["label"])
    rows = [",".join(f"{v:.3f}" for v in r) + f",{c}" for r, c in zip(x, labels, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data/train.csv"))
    Path("train.py").write_text(TRAIN)
    Path("checkpoints").mkdir()
    Path("profiles").mkdir()
    spy = str(Path(sys.executable).parent / "py-spy")
    checkpoints = []
    for options, out in (([], "profiles/train.svg"),
                         (["--format", "speedscope"], "profiles/train.speedscope.json")):
        command = ["py-spy", "record", *options, "-o", out, "--rate", "50", "--",
                   "python", "train.py"]
        done = subprocess.run([spy, *command[1:-2], sys.executable, "train.py"],
                              capture_output=True, text=True, check=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert f"to '{out}'" in done.stdout + done.stderr, done.stdout + done.stderr
        assert "saved checkpoints/mlp.npz" in done.stdout
        checkpoints.append({
            "run": " ".join(command), "best": None, "latest": "checkpoints/mlp.npz",
            "evidence": "py-spy is a profiler with no notion of a checkpoint; the profiled "
                        "train.py printed 'saved checkpoints/mlp.npz', the one weights file "
                        "it writes (each run overwrites it), and keeps no best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("profiles/"):
        return "debug"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "py-spy", tool="py-spy",
           kind="sampling profiler (flame graph SVG and speedscope JSON of a training run)",
           command="py-spy record -o profiles/train.svg --rate 50 -- python train.py; py-spy "
                   "record --format speedscope -o profiles/train.speedscope.json --rate 50 "
                   "-- python train.py")
