"""papermill: the user's parameterised notebook ``notebooks/train.ipynb`` (a cell tagged
``parameters``: ``lr``, ``epochs``, ``run_name``) trains a small NumPy logistic regression
on ``data/train.csv``, keeps the best epoch's weights and the last epoch's, and writes a
metrics file; it is executed twice with the papermill CLI, as a user sweeping the learning
rate would, each execution kept as its own output notebook in ``runs/``.

    python3.11 -m venv /tmp/h8/papermill/venv
    /tmp/h8/papermill/venv/bin/pip install papermill ipykernel numpy
    /tmp/h8/papermill/venv/bin/python tests/corpus/heldout8/papermill/make_fixtures.py

``papermill notebooks/train.ipynb runs/train_lr0.05.ipynb -p lr 0.05 -p run_name lr0.05``,
then the same with ``lr 0.5``; the kernel is the venv's ipykernel (``python3``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

CELLS = [
    ("markdown", "# Train the sensor classifier\n\nRun with papermill, e.g. "
                 "`papermill notebooks/train.ipynb runs/train_lr0.1.ipynb -p lr 0.1`."),
    ("parameters", "lr = 0.1\nepochs = 12\nrun_name = \"default\""),
    ("code", "import json\nfrom pathlib import Path\n\nimport numpy as np\n\n"
             "table = np.loadtxt(\"../data/train.csv\", delimiter=\",\", skiprows=1)\n"
             "X, y = table[:, :-1], table[:, -1]\n"
             "X = (X - X.mean(0)) / X.std(0)\n"
             "X_train, y_train, X_val, y_val = X[:200], y[:200], X[200:], y[200:]\n"
             "out = Path(\"../models\") / run_name\nout.mkdir(parents=True, exist_ok=True)\n"
             "print(X_train.shape, X_val.shape)"),
    ("code", "w, b = np.zeros(X.shape[1]), 0.0\nhistory, best = [], (-1.0, None)\n"
             "for epoch in range(1, epochs + 1):\n"
             "    p = 1 / (1 + np.exp(-(X_train @ w + b)))\n"
             "    w -= lr * X_train.T @ (p - y_train) / len(y_train)\n"
             "    b -= lr * float(np.mean(p - y_train))\n"
             "    acc = float(np.mean(((X_val @ w + b) > 0) == y_val))\n"
             "    history.append({\"epoch\": epoch, \"val_acc\": acc})\n"
             "    if acc > best[0]:\n"
             "        best = (acc, epoch)\n"
             "        np.savez(out / \"best.npz\", w=w, b=b, epoch=epoch)\n"
             "    print(f\"epoch {epoch} val_acc {acc:.3f}\")\n"
             "np.savez(out / \"last.npz\", w=w, b=b, epoch=epochs)"),
    ("code", "(out / \"metrics.json\").write_text(json.dumps({\"lr\": lr, \"history\": history,"
             " \"best_epoch\": best[1]}, indent=1))\n"
             "print(f\"best epoch {best[1]} val_acc {best[0]:.3f} -> {out / 'best.npz'}\")\n"
             "print(f\"last epoch {epochs} -> {out / 'last.npz'}\")"),
]


def _notebook() -> dict[str, object]:
    cells = []
    for i, (kind, source) in enumerate(CELLS):
        if kind == "markdown":
            cells.append({"cell_type": "markdown", "id": f"cell-{i}", "metadata": {},
                          "source": source})
            continue
        meta = {"tags": ["parameters"]} if kind == "parameters" else {}
        cells.append({"cell_type": "code", "execution_count": None, "id": f"cell-{i}",
                      "metadata": meta, "outputs": [], "source": source})
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                        "name": "python3"},
                         "language_info": {"name": "python"}}}


def _data(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(260, 5))
    y = (X @ np.array([1.5, -2.0, 0.5, 0.0, 1.0]) + rng.normal(0, 1, 260) > 0).astype(int)
    path.parent.mkdir(parents=True)
    rows = [",".join(f"{v:.4f}" for v in x) + f",{c}" for x, c in zip(X, y, strict=True)]
    path.write_text("s1,s2,s3,s4,s5,label\n" + "\n".join(rows) + "\n")


def _outputs(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    return [line for cell in nb["cells"] if cell["cell_type"] == "code"
            for out in cell.get("outputs", []) if out.get("name") == "stdout"
            for line in "".join(out["text"]).splitlines()]


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data/train.csv"))
    Path("notebooks").mkdir()
    Path("notebooks/train.ipynb").write_text(json.dumps(_notebook(), indent=1) + "\n")
    Path("runs").mkdir()
    papermill = str(Path(sys.executable).with_name("papermill"))
    checkpoints = []
    for lr in ("0.05", "0.5"):
        output = f"runs/train_lr{lr}.ipynb"
        done = subprocess.run([papermill, "notebooks/train.ipynb", output, "-p", "lr", lr,
                               "-p", "run_name", f"lr{lr}", "--cwd", "notebooks"],
                              capture_output=True, text=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert done.returncode == 0, done.returncode
        lines = _outputs(Path(output))
        best_line = next(x for x in lines if x.startswith("best epoch"))
        last_line = next(x for x in lines if x.startswith("last epoch"))
        best = best_line.split(" -> ")[1].removeprefix("../")
        latest = last_line.split(" -> ")[1].removeprefix("../")
        assert Path(best).exists() and Path(latest).exists(), (best, latest)
        metrics = json.loads(Path(best).with_name("metrics.json").read_text())
        assert f"best epoch {metrics['best_epoch']} " in best_line, metrics
        checkpoints.append({
            "run": output, "best": best, "latest": latest,
            "evidence": f"the executed notebook {output} (papermill's output) holds the "
                        f"cell output '{best_line}' and '{last_line}'; metrics.json beside "
                        f"them has the same best_epoch"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "log" if path.endswith("metrics.json") else "checkpoint"
    if path.startswith("runs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "papermill", tool="papermill",
           kind="parameterised notebook execution",
           command="papermill notebooks/train.ipynb runs/train_lr<lr>.ipynb -p lr <lr> -p "
                   "run_name lr<lr> --cwd notebooks, for lr 0.05 and 0.5 (the notebook "
                   "writes models/lr<lr>/best.npz, last.npz and metrics.json)")
