"""jupyter: a notebook made, renamed, edited and saved through jupyter_server's real
``FileContentsManager`` (the contents API behind the Notebook and JupyterLab apps), with
``create_checkpoint`` after each save as the apps do on a user's Save, so it writes
``.ipynb_checkpoints/``; a helper module edited and saved the same way; then an executed copy
with ``jupyter nbconvert --execute --to notebook analysis.ipynb``.

    python3.11 -m venv /tmp/h9c/jupyter/venv
    /tmp/h9c/jupyter/venv/bin/pip install jupyter_server nbconvert nbformat ipykernel numpy
    /tmp/h9c/jupyter/venv/bin/python tests/corpus/heldout9/jupyter/make_fixtures.py

The notebook (a ridge regression on the user's ``data/sales.csv``, using ``helpers.py``)
saves ``models/ridge.npz`` and prints where; nbconvert writes ``analysis.nbconvert.ipynb``
beside it, its default output name.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

HELPERS = '''"""Small helpers for the sales notebook."""
import numpy as np


def load_sales(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1]


def standardize(x):
    return (x - x.mean(0)) / x.std(0)
'''

CELLS = [
    ("markdown", "# Weekly sales: ridge regression\n\nFit on `data/sales.csv`, save to "
                 "`models/`."),
    ("code", "import os\n\nimport numpy as np\n\nfrom helpers import load_sales, standardize"),
    ("code", "x, y = load_sales('data/sales.csv')\nx = standardize(x)\nx.shape, y.mean()"),
    ("code", "lam = 1.0\nxb = np.hstack([x, np.ones((len(x), 1))])\n"
             "w = np.linalg.solve(xb.T @ xb + lam * np.eye(xb.shape[1]), xb.T @ y)\n"
             "rmse = float(np.sqrt(((xb @ w - y) ** 2).mean()))\nprint(f'train rmse {rmse:.2f}')"),
    ("code", "os.makedirs('models', exist_ok=True)\nnp.savez('models/ridge.npz', w=w, lam=lam)\n"
             "print('saved models/ridge.npz')"),
]


def _sales(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    promo = rng.integers(0, 2, size=200)
    price = rng.uniform(2, 6, size=200)
    temp = rng.normal(18, 6, size=200)
    sales = 300 + 80 * promo - 25 * price + 3 * temp + rng.normal(0, 10, size=200)
    path.parent.mkdir(parents=True)
    rows = [f"{a},{b:.2f},{c:.1f},{d:.1f}"
            for a, b, c, d in zip(promo, price, temp, sales, strict=True)]
    path.write_text("promo,price,temp,sales\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    import nbformat
    from jupyter_server.services.contents.filemanager import FileContentsManager

    _sales(Path("data/sales.csv"))
    cm = FileContentsManager(root_dir=str(work))
    # the Launcher's "New notebook": Untitled.ipynb, then the user renames it
    made = cm.new_untitled(type="notebook")
    assert made["path"] == "Untitled.ipynb", made["path"]
    first = cm.create_checkpoint("Untitled.ipynb")
    sys.stderr.write(f"create_checkpoint -> {first}\n")
    cm.rename("Untitled.ipynb", "analysis.ipynb")
    # the user types the cells in, saves (an autosave: no checkpoint), then presses Save
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    for kind, source in CELLS[:3]:
        maker = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        nb.cells.append(maker(source))
    cm.save({"type": "notebook", "format": "json", "content": nb}, "analysis.ipynb")
    for _kind, source in CELLS[3:]:
        nb.cells.append(nbformat.v4.new_code_cell(source))
    cm.save({"type": "notebook", "format": "json", "content": nb}, "analysis.ipynb")
    saved = cm.create_checkpoint("analysis.ipynb")
    sys.stderr.write(f"create_checkpoint -> {saved}\n")
    assert [c["id"] for c in cm.list_checkpoints("analysis.ipynb")] == ["checkpoint"]
    # a helper module made in the text editor and saved the same way
    cm.save({"type": "file", "format": "text", "content": HELPERS}, "helpers.py")
    cm.create_checkpoint("helpers.py")
    jupyter = Path(sys.executable).parent / "jupyter"
    # a user's shell writes bytecode (the kernel's import of helpers.py leaves __pycache__/)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([str(jupyter), "nbconvert", "--execute", "--to", "notebook",
                           "analysis.ipynb"], capture_output=True, text=True, check=True,
                          env=env)
    sys.stderr.write(done.stdout + done.stderr)
    assert "Writing" in done.stderr and "analysis.nbconvert.ipynb" in done.stderr, done.stderr
    executed = nbformat.read("analysis.nbconvert.ipynb", as_version=4)
    printed = [out.get("text", "") for cell in executed.cells
               for out in cell.get("outputs", [])]
    assert "saved models/ridge.npz\n" in printed, printed
    return [{
        "run": "jupyter nbconvert --execute --to notebook analysis.ipynb", "best": None,
        "latest": "models/ridge.npz",
        "evidence": "the executed notebook analysis.nbconvert.ipynb records the output "
                    "'saved models/ridge.npz' of its last cell, the one model the run saved; "
                    "Jupyter's own 'checkpoints' (create_checkpoint returned id 'checkpoint', "
                    "stored in .ipynb_checkpoints/) are saved notebook states, not models, and "
                    "nothing names a best"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(".ipynb_checkpoints/"):
        return "cache"
    if path.startswith("__pycache__/"):
        return "cache"
    if path == "analysis.nbconvert.ipynb":
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "jupyter_server", tool="jupyter",
           kind="notebooks (jupyter_server contents API with checkpoints, nbconvert --execute)",
           command="FileContentsManager(root_dir=ws): new_untitled(type='notebook'), "
                   "create_checkpoint, rename to analysis.ipynb, save twice, "
                   "create_checkpoint; save helpers.py, create_checkpoint; then jupyter "
                   "nbconvert --execute --to notebook analysis.ipynb")
