"""rl-zoo3: the RL Baselines3 Zoo, Stable-Baselines3's training framework with tuned
hyperparameters, as its README has a user train an agent: ``python -m rl_zoo3.train
--algo ppo --env CartPole-v1 -f logs/`` with the zoo's PPO hyperparameters for CartPole
(8 envs, n_steps 32), cut to 6000 timesteps (``-n``), an ``EvalCallback`` every 1000 steps
on 5 episodes (``--eval-freq``/``--eval-episodes``: ``best_model.zip``,
``evaluations.npz``), a ``CheckpointCallback`` every 2000 steps (``--save-freq``:
``rl_model_<n>_steps.zip``) and a fixed ``--seed``. The experiment folder is
``logs/ppo/CartPole-v1_1/`` (the zoo numbers runs of one algo/env).

    python3 -m venv /tmp/h11/rl-zoo3/venv
    /tmp/h11/rl-zoo3/venv/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl rl_zoo3
    /tmp/h11/rl-zoo3/venv/bin/python tests/corpus/heldout11/rl-zoo3/make_fixtures.py

(rl_zoo3 2.9.2, stable_baselines3 2.9.2, sb3_contrib 2.9.2, gymnasium 1.4.0, torch
2.13.0+cpu; CartPole is built into gymnasium, nothing is downloaded.) About two minutes
on CPU: evaluating a good CartPole policy plays 5 episodes of up to 500 steps.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

ARGS = ["--algo", "ppo", "--env", "CartPole-v1", "-n", "6000", "--eval-freq", "1000",
        "--eval-episodes", "5", "--save-freq", "2000", "-f", "logs/", "--seed", "2"]


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np

    done = subprocess.run([sys.executable, "-m", "rl_zoo3.train", *ARGS],
                          capture_output=True, text=True, timeout=1200)
    sys.stderr.write(done.stdout[-5000:] + done.stderr[-5000:])
    assert done.returncode == 0, done.returncode
    out = done.stdout
    exp = "logs/ppo/CartPole-v1_1"
    assert "Saving to logs//ppo/CartPole-v1_1" in out, out[-2000:]
    evals = [int(n) for n in re.findall(r"^Eval num_timesteps=(\d+), episode_reward=", out,
                                        re.M)]
    bests, last_eval = [], None
    for line in out.splitlines():
        m = re.match(r"Eval num_timesteps=(\d+),", line)
        if m:
            last_eval = int(m.group(1))
        elif line == "New best mean reward!":
            bests.append(last_eval)
    ev = np.load(f"{exp}/evaluations.npz")
    assert list(ev["timesteps"]) == evals, (ev["timesteps"], evals)
    best_step = int(ev["timesteps"][ev["results"].mean(axis=1).argmax()])
    assert bests[-1] == best_step and best_step < evals[-1], (bests, best_step, evals)
    saved = sorted(int(p.stem.split("_")[2]) for p in Path(exp).glob("rl_model_*_steps.zip"))
    assert saved == [2000, 4000, 6000], saved
    best, latest = f"{exp}/best_model.zip", f"{exp}/CartPole-v1.zip"
    assert Path(best).is_file() and Path(latest).is_file()
    return [{"run": "python -m rl_zoo3.train " + " ".join(ARGS),
             "best": best, "latest": latest,
             "evidence": "rl_zoo3's EvalCallback printed 'New best mean reward!' last after "
                         f"'Eval num_timesteps={best_step}' and saved {best} then (the argmax "
                         f"of the mean rewards in {exp}/evaluations.npz, evaluated at "
                         f"{evals}); the run ended with 'Saving to logs//ppo/CartPole-v1_1', "
                         f"the final model {latest} after 6144 timesteps, newer than the "
                         "CheckpointCallback's rl_model_6000_steps.zip (rl_zoo3.enjoy loads "
                         "<env>.zip by default, best_model.zip with --load-best, the "
                         "highest rl_model_*_steps.zip with --load-last-checkpoint)"}]


def label(path: str) -> str:
    if path.endswith(".zip"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "rl_zoo3", tool="rl-zoo3",
           kind="reinforcement learning training framework (SB3 zip policies, eval logs)",
           command="python -m rl_zoo3.train " + " ".join(ARGS))
