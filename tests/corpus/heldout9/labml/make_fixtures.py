"""labml: the user's ``train.py`` fits a small PyTorch MLP to the user's
``data/regression.csv`` and tracks it with labml's experiment API (``experiment.create``,
``experiment.configs``, ``experiment.add_pytorch_models``, ``tracker.save`` each step and
``experiment.save_checkpoint()`` every 100 steps), with the sqlite, tensorboard and screen
writers (labml's default writers less ``web_api``, which would post to labml.ai). The second
run continues from the first with ``experiment.load(run_uuid)``, labml's documented resume.

    python3.11 -m venv /tmp/h9/labml/venv
    /tmp/h9/labml/venv/bin/pip install labml==0.4.168 torch==2.13.0 numpy tensorboard
    /tmp/h9/labml/venv/bin/python tests/corpus/heldout9/labml/make_fixtures.py

labml 0.4.168 is the last release with checkpoints (0.5 dropped ``add_pytorch_models`` and
``save_checkpoint``). ``python train.py 0.001`` (300 steps) then ``python train.py 0.003
<first run's uuid>`` (300 more from the first run's latest checkpoint). ``HOME`` points to a
scratch folder outside the project: labml keeps ``~/.labml/configs.yaml`` and a project list
there, not in the project.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Fit an MLP to data/regression.csv with labml: python train.py LR [RUN_UUID]"""
import sys

import numpy as np
import torch
from labml import experiment, logger, monit, tracker


def main():
    lr = float(sys.argv[1])
    table = np.loadtxt("data/regression.csv", delimiter=",", skiprows=1, dtype=np.float32)
    x, y = torch.from_numpy(table[:, :-1]), torch.from_numpy(table[:, -1:])
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    experiment.create(name="regression_mlp", writers={"screen", "sqlite", "tensorboard"})
    experiment.configs({"lr": lr, "hidden": 256, "steps": 300})
    experiment.add_pytorch_models(model=model)
    if len(sys.argv) > 2:
        experiment.load(sys.argv[2])
    with experiment.start():
        for _ in monit.loop(300):
            tracker.add_global_step()
            loss = torch.nn.functional.mse_loss(model(x[:384]), y[:384])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                val = torch.nn.functional.mse_loss(model(x[384:]), y[384:])
            tracker.save({"loss.train": loss.item(), "loss.valid": val.item()})
            if tracker.get_global_step() % 100 == 0:
                experiment.save_checkpoint()
                logger.log(f"checkpoint at step {tracker.get_global_step()}")
    print("run", experiment.get_uuid())


if __name__ == "__main__":
    main()
'''

#: labml's own choice of a run's checkpoint: the one experiment.load picks with no step.
PICK = """import sys
from pathlib import Path
from labml.internal.experiment.experiment_run import _get_run_checkpoint
print(_get_run_checkpoint(Path(sys.argv[1])))
"""


def _table(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(512, 16))
    y = X.sum(axis=1) + rng.normal(0, 0.1, size=512)
    path.parent.mkdir(parents=True)
    header = ",".join([f"f{i}" for i in range(16)] + ["target"])
    rows = [",".join(f"{v:.4f}" for v in r) + f",{t:.4f}" for r, t in zip(X, y, strict=True)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def run(work: Path) -> list[dict[str, object]]:
    _table(Path("data/regression.csv"))
    Path("train.py").write_text(TRAIN)
    checkpoints = []
    with tempfile.TemporaryDirectory(prefix="labml-home-") as home:
        env = {**os.environ, "HOME": home}
        uuids: list[str] = []
        for lr in ("0.001", "0.003"):
            done = subprocess.run([sys.executable, "train.py", lr, *uuids[-1:]], env=env,
                                  capture_output=True, text=True, check=True)
            out = _plain(done.stdout + done.stderr)
            sys.stderr.write(out[-2000:])
            uuids.append(re.findall(r"^run ([0-9a-f]{32})$", out, re.M)[-1])
            if len(uuids) == 2:
                chosen = re.search(rf"run = {uuids[0]} checkpoint = (\d+)", out)
                assert chosen and chosen.group(1) == "300", out[:3000]
        for lr, uuid in zip(("0.001", "0.003"), uuids, strict=True):
            run_path = f"logs/regression_mlp/{uuid}"
            picked = subprocess.run([sys.executable, "-c", PICK, run_path], capture_output=True,
                                    text=True, check=True).stdout.strip()
            steps = sorted(int(p.name) for p in Path(run_path, "checkpoints").iterdir())
            assert picked == str(steps[-1]), (picked, steps)
            how = (f"and run 2's experiment.load({uuid}) printed 'Selected experiment = "
                   f"regression_mlp run = {uuid} checkpoint = 300' and loaded it"
                   if lr == "0.001" else "the run was the last one")
            checkpoints.append({
                "run": f"python train.py {lr}{' ' + uuids[0] if lr == '0.003' else ''} "
                       f"({run_path})",
                "best": None, "latest": f"{run_path}/checkpoints/{picked}",
                "evidence": f"labml's own _get_run_checkpoint (what experiment.load uses with "
                            f"no step) picks checkpoint {picked} of {steps}, {how}; labml keeps "
                            f"no notion of best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if "/checkpoints/" in path:
        return "checkpoint"
    if "/pids/" in path:
        return "cache"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "labml", tool="labml",
           kind="experiment tracker (labml experiment runs with checkpoints)",
           command="python train.py 0.001; python train.py 0.003 <run 1 uuid> (train.py: "
                   "experiment.create(name='regression_mlp', writers={'screen', 'sqlite', "
                   "'tensorboard'}), add_pytorch_models, tracker.save each step, "
                   "save_checkpoint every 100 steps; the second run experiment.load()s the "
                   "first)")
