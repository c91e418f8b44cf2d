"""Visdom: the user starts a Visdom server with its environments kept in the project
(``-env_path visdom_envs``), and the user's ``train.py``
plots a small NumPy MLP's losses and accuracy into the env ``churn_mlp`` (``vis.line``
with ``update="append"``, ``vis.text``, ``vis.bar``), logging every event to
``logs/visdom_events.log`` (``Visdom(log_to_filename=...)``, kept for ``replay_log``), and
saves the env at the end with ``vis.save(["churn_mlp"])``, as Visdom's docs show.

    python3.11 -m venv /tmp/h7/visdom/venv
    /tmp/h7/visdom/venv/bin/pip install "setuptools<80" wheel numpy
    /tmp/h7/visdom/venv/bin/pip install --no-build-isolation visdom
    /tmp/h7/visdom/venv/bin/python tests/corpus/heldout7/visdom/make_fixtures.py

(visdom 0.2.4 is an sdist whose setup.py needs ``pkg_resources``, hence the older
setuptools without build isolation.) ``python -m visdom.server`` first downloads the UI's
scripts and crashes offline, so the server is started as ``python -c "from
visdom.server.run_server import main; main()" -port P -env_path visdom_envs -bind_local``
(the same server without that download). ``python train.py P`` once, then the server is
stopped with SIGINT.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train the churn MLP, plotting to Visdom: python train.py PORT"""
import json
import sys

import numpy as np
from visdom import Visdom

ENV = "churn_mlp"
vis = Visdom(port=int(sys.argv[1]), env=ENV, log_to_filename="logs/visdom_events.log",
             raise_exceptions=True)
config = {"hidden": 32, "lr": 0.5, "epochs": 40}
vis.text("<b>config</b><br>" + json.dumps(config), win="config")

table = np.loadtxt("data/churn.csv", delimiter=",", skiprows=1)
x, y = table[:, :-1], table[:, -1]
x = (x - x.mean(0)) / x.std(0)
xt, yt, xv, yv = x[:480], y[:480], x[480:], y[480:]
rng = np.random.default_rng(0)
w1, w2 = rng.normal(0, 0.3, (x.shape[1], config["hidden"])), rng.normal(0, 0.3, config["hidden"])


def forward(inputs):
    hidden = np.tanh(inputs @ w1)
    return hidden, 1 / (1 + np.exp(-(hidden @ w2)))


for epoch in range(1, config["epochs"] + 1):
    hidden, p = forward(xt)
    grad = (p - yt) / len(yt)
    w1 -= config["lr"] * xt.T @ (np.outer(grad, w2) * (1 - hidden ** 2))
    w2 -= config["lr"] * hidden.T @ grad
    loss = float(-np.mean(yt * np.log(p) + (1 - yt) * np.log(1 - p)))
    _, pv = forward(xv)
    val_loss = float(-np.mean(yv * np.log(pv) + (1 - yv) * np.log(1 - pv)))
    accuracy = float(np.mean((pv > 0.5) == yv))
    vis.line(X=[epoch], Y=[[loss, val_loss]], win="loss", update="append" if epoch > 1 else None,
             opts={"title": "loss", "legend": ["train", "val"]})
    vis.line(X=[epoch], Y=[accuracy], win="accuracy",
             update="append" if epoch > 1 else None, opts={"title": "val accuracy"})
vis.bar(X=np.abs(w1).sum(1), win="importance",
        opts={"title": "input weight mass", "rownames": [f"f{i}" for i in range(x.shape[1])]})
np.savez("models/churn_mlp.npz", w1=w1, w2=w2)
print(f"final val_loss={val_loss:.4f} accuracy={accuracy:.3f}")
print("saved env", vis.save([ENV]))
'''


#: ``python -m visdom.server`` first downloads the UI's JS and CSS, and crashes offline (a
#: MathJax fetch outside its try); the server proper, without that step:
SERVER = "from visdom.server.run_server import main; main()"


def _churn(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 6))
    y = ((x[:, 0] * x[:, 1] + x[:, 2] - 0.5 * x[:, 3] + rng.normal(0, 0.4, 600)) > 0)
    rows = [",".join(f"{v:.4f}" for v in r) + f",{int(c)}" for r, c in zip(x, y, strict=True)]
    path.parent.mkdir(parents=True)
    path.write_text("tenure,spend,calls,age,discount,region,churned\n" + "\n".join(rows)
                    + "\n")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(work: Path) -> list[dict[str, object]]:
    _churn(Path("data/churn.csv"))
    Path("train.py").write_text(TRAIN)
    Path("logs").mkdir()
    Path("models").mkdir()
    port = _free_port()
    home = work.parent / "home"  # the server's ~/.visdom default is not used: kept out
    home.mkdir()
    server_out = open(work.parent / "server.out", "w")  # noqa: SIM115
    server = subprocess.Popen([sys.executable, "-c", SERVER, "-port", str(port),
                               "-env_path", "visdom_envs", "-bind_local"],
                              stdout=server_out, stderr=subprocess.STDOUT,
                              env={**os.environ, "HOME": str(home)})
    try:
        for _ in range(150):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        done = subprocess.run([sys.executable, "train.py", str(port)], capture_output=True,
                              text=True, check=True)
        sys.stderr.write(done.stdout + done.stderr[-2000:])
        assert 'saved env ["churn_mlp"]' in done.stdout, done.stdout
    finally:
        os.kill(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server_out.close()
    sys.stderr.write((work.parent / "server.out").read_text()[-1500:])
    assert Path("visdom_envs/churn_mlp.json").is_file()
    return [{
        "run": "python train.py", "best": None, "latest": "models/churn_mlp.npz",
        "evidence": "train.py's np.savez('models/churn_mlp.npz', ...) at the end, the one "
                    "model the run saved; Visdom is a plotting tool with no notion of a "
                    "checkpoint or a best (its env JSON and event log hold plots only)"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("logs/", "visdom_envs/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "visdom", tool="visdom",
           kind="live plotting server (env JSON files, log_to_filename event log)",
           command="python -c 'from visdom.server.run_server import main; main()' -port P "
                   "-env_path visdom_envs -bind_local; "
                   "python train.py P (Visdom(env='churn_mlp', log_to_filename="
                   "'logs/visdom_events.log'), vis.line/text/bar, vis.save(['churn_mlp'])); "
                   "server stopped with SIGINT")
