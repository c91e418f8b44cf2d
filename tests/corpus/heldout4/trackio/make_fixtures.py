"""Trackio (Hugging Face's local-first experiment tracker): two runs of a small PyTorch
regression (two learning rates, 8 epochs), logging losses with ``trackio.log`` and each
epoch's checkpoint with ``trackio.log_artifact`` (alias ``best`` when validation improves;
Trackio moves ``latest`` itself), then an evaluation run that fetches the best model with
``use_artifact(...:best).download()``, as Trackio's docs show, on CPU, with no Space (local
only).

    /work/venvs/tools-b/bin/pip install torch==2.13.0 trackio
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/trackio/make_fixtures.py

The workspace is the home folder, the project ``mlp/`` in it, so Trackio keeps its default
place, ``~/.cache/huggingface/trackio/``: ``<project>.db`` (SQLite: runs, configs, metrics,
system metrics, artifact versions and aliases), ``<project>.lock`` and the artifacts'
content-addressed blobs ``artifacts/<project>/blobs/sha256/``. ``download()`` writes
``mlp/.trackio/artifact-downloads/<project>/<name>_v<version>/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from hashlib import sha256
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCRIPT = '''"""Train a small MLP at two learning rates, tracked with Trackio; evaluate the best."""
import json
from pathlib import Path

import torch
import trackio

PROJECT = "mlp-regression"


def data():
    torch.manual_seed(0)
    x = torch.randn(512, 8)
    return x, x[:, :3].sum(dim=1, keepdim=True) + 0.8 * torch.randn(512, 1)


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))


def train(lr, x, y):
    run = trackio.init(project=PROJECT, name=f"lr-{lr}", config={"lr": lr, "epochs": 8})
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    folder = Path("checkpoints") / run.name
    folder.mkdir(parents=True, exist_ok=True)
    best = float("inf")
    for epoch in range(8):
        for i in range(0, 96, 16):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[i:i + 16]), y[i:i + 16])
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            val = torch.nn.functional.mse_loss(model(x[384:]), y[384:]).item()
        trackio.log({"train/loss": loss.item(), "val/loss": val, "epoch": epoch})
        path = folder / f"epoch_{epoch}.pt"
        torch.save(model.state_dict(), path)
        trackio.log_artifact(path, name=f"mlp-{run.name}", type="model",
                             aliases=["best"] if val < best else [])
        best = min(best, val)
    trackio.finish()
    return run.name


def main():
    x, y = data()
    names = [train(lr, x, y) for lr in (0.01, 0.05)]
    trackio.init(project=PROJECT, name="evaluate")
    found = {}
    for name in names:
        for alias in ("best", "latest"):
            art = trackio.use_artifact(f"mlp-{name}:{alias}")
            found[f"{name}:{alias}"] = {"version": art.version,
                                        "files": [e["path"] for e in art.manifest],
                                        "digests": [e["digest"] for e in art.manifest]}
    best = trackio.use_artifact(f"mlp-{names[0]}:best")
    folder = Path(best.download())
    model = mlp()
    model.load_state_dict(torch.load(next(folder.iterdir())))
    with torch.no_grad():
        trackio.log({"eval/loss": torch.nn.functional.mse_loss(model(x[384:]), y[384:]).item()})
    trackio.finish()
    print("RESOLVED " + json.dumps(found))


if __name__ == "__main__":
    main()
'''


def run(work: Path) -> list[dict[str, object]]:
    project = work / "mlp"
    project.mkdir()
    (project / "train.py").write_text(SCRIPT)
    env = {**os.environ, "HOME": str(work)}
    env.pop("HF_HOME", None)
    env.pop("TRACKIO_DIR", None)
    out = subprocess.run([sys.executable, "train.py"], cwd=project, env=env, check=True,
                         capture_output=True, text=True).stdout
    print(out)
    found = json.loads(out.split("RESOLVED ", 1)[1])
    runs = []
    for name in ("lr-0.01", "lr-0.05"):
        best, latest = found[f"{name}:best"], found[f"{name}:latest"]
        paths = {role: f"mlp/checkpoints/{name}/{got['files'][0]}"
                 for role, got in (("best", best), ("latest", latest))}
        for role, got in (("best", best), ("latest", latest)):  # the logged file's own bytes
            assert sha256((work / paths[role]).read_bytes()).hexdigest() == got["digests"][0]
        runs.append({"run": f"mlp/checkpoints/{name}", **paths,
                     "evidence": f"trackio.use_artifact('mlp-{name}:best') resolved to "
                                 f"{best['version']} ({best['files'][0]}, sha256 "
                                 f"{best['digests'][0][:12]}...), 'mlp-{name}:latest' to "
                                 f"{latest['version']} ({latest['files'][0]}, sha256 "
                                 f"{latest['digests'][0][:12]}...): the digests of these "
                                 f"files, logged with log_artifact"})
    return runs


def label(path: str) -> str:
    if path == "mlp/train.py":
        return "other"
    if path.endswith(".pt") or "/artifacts/" in path:
        return "checkpoint"
    if path.endswith(".lock"):
        return "cache"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "trackio", tool="Trackio",
           kind="experiment tracker (local)",
           command="HOME=<workspace>; cd mlp; python train.py (trackio.init/log/"
                   "log_artifact per epoch, aliases best and latest; use_artifact(':best')"
                   ".download())")
