"""pfrl: the user's ``train_dqn.py`` (after pfrl's ``examples/gym/train_dqn_gym.py``) trains
a DoubleDQN on gymnasium's CartPole-v1 with ``pfrl.experiments.train_agent_with_evaluation``
into the output folder ``pfrl.experiments.prepare_output_dir`` makes (``results/<timestamp>``:
not a git checkout, so the id is the start time).

    python3.11 -m venv /tmp/h5/pfrl/venv
    /tmp/h5/pfrl/venv/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu
    /tmp/h5/pfrl/venv/bin/pip install pfrl gymnasium packaging
    /tmp/h5/pfrl/venv/bin/python tests/corpus/heldout5/pfrl/make_fixtures.py

``python train_dqn.py --steps 3000``: evaluation (5 episodes) every 1000 steps, a
checkpoint every 1000 steps (``checkpoint_freq``), the best-so-far agent saved to ``best``
(``save_best_so_far_agent``, the default), the last one to ``<steps>_finish``. pfrl 0.4 speaks
the old gym API (4-tuple ``step``), so the script wraps the gymnasium env, as a user must.
The script runs with a minimal environment (PATH, HOME, LANG) because ``prepare_output_dir``
dumps ``os.environ`` into ``environ.txt``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train DoubleDQN on CartPole-v1: python train_dqn.py [--steps N]"""
import argparse
import logging

import gymnasium
import numpy as np
import pfrl
import torch
from pfrl import experiments, explorers, q_functions, replay_buffers, utils


class OldGymAPI:
    """gymnasium's 5-tuple step to the 4-tuple pfrl expects (truncation: needs_reset)."""

    def __init__(self, env):
        self.env = env
        self.observation_space = env.observation_space
        self.action_space = env.action_space

    def reset(self):
        obs, _ = self.env.reset()
        return obs.astype(np.float32)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["needs_reset"] = truncated
        return obs.astype(np.float32), reward, terminated, info

    def close(self):
        self.env.close()


def make_env(seed, test):
    env = gymnasium.make("CartPole-v1", max_episode_steps=200)
    env.reset(seed=seed + (1000 if test else 0))
    return OldGymAPI(env)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--outdir", default="results")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--eval-interval", type=int, default=1000)
    parser.add_argument("--eval-n-runs", type=int, default=5)
    parser.add_argument("--checkpoint-freq", type=int, default=1000)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    utils.set_random_seed(args.seed)
    args.outdir = experiments.prepare_output_dir(args, args.outdir)
    print("Output files are saved in", args.outdir)

    env, eval_env = make_env(args.seed, False), make_env(args.seed, True)
    obs_size = env.observation_space.shape[0]
    n_actions = env.action_space.n
    q_func = q_functions.FCStateQFunctionWithDiscreteAction(
        obs_size, n_actions, n_hidden_channels=64, n_hidden_layers=2)
    explorer = explorers.LinearDecayEpsilonGreedy(
        1.0, 0.05, 2000, random_action_func=env.action_space.sample)
    agent = pfrl.agents.DoubleDQN(
        q_func, torch.optim.Adam(q_func.parameters(), lr=1e-3),
        replay_buffers.ReplayBuffer(10 ** 5), gamma=0.99, explorer=explorer,
        replay_start_size=500, target_update_interval=100, update_interval=1,
        minibatch_size=32, gpu=-1)
    experiments.train_agent_with_evaluation(
        agent=agent, env=env, eval_env=eval_env, steps=args.steps,
        eval_n_steps=None, eval_n_episodes=args.eval_n_runs,
        eval_interval=args.eval_interval, checkpoint_freq=args.checkpoint_freq,
        outdir=args.outdir, train_max_episode_len=200)


if __name__ == "__main__":
    main()
'''


def run(work: Path) -> list[dict[str, object]]:
    Path("train_dqn.py").write_text(TRAIN)
    home = Path("/tmp/h5/pfrl/home")
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "train_dqn.py", "--steps", "3000"],
                          capture_output=True, text=True, check=False, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    outdir = done.stdout.split("Output files are saved in ", 1)[1].splitlines()[0].strip()
    saved = re.findall(r"Saved the agent to (\S+)", done.stderr)
    updates = re.findall(r"The best score is updated (\S+) -> (\S+)", done.stderr)
    assert saved and updates, done.stderr[-2000:]
    best, latest = f"{outdir}/best", saved[-1]
    assert latest == f"{outdir}/3000_finish", saved
    assert f"{outdir}/best" in saved and Path(best, "model.pt").is_file()
    scores = Path(outdir, "scores.txt").read_text().splitlines()
    header = scores[0].split("\t")
    means = [float(row.split("\t")[header.index("mean")]) for row in scores[1:]]
    assert float(updates[-1][1]) == max(means), (updates, means)
    return [{
        "run": outdir, "best": best, "latest": latest,
        "evidence": f"pfrl logged 'The best score is updated {updates[-1][0]} -> "
                    f"{updates[-1][1]}' then 'Saved the agent to {best}' (scores.txt: mean "
                    f"{means}, the max at evaluation {means.index(max(means)) + 1}); its last "
                    f"'Saved the agent to' is {latest}, the agent at the end of training "
                    f"(train_agent's save_agent(..., suffix='_finish'))"}]


def label(path: str) -> str:
    parts = path.split("/")
    if parts[0] == "results" and len(parts) == 4:  # results/<id>/<agent folder>/<attr>.pt
        return "checkpoint"
    if parts[0] == "results":
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pfrl", tool="pfrl",
           kind="deep reinforcement learning (pfrl.experiments.train_agent_with_evaluation)",
           command="python train_dqn.py --steps 3000 (train_dqn.py: DoubleDQN on gymnasium "
                   "CartPole-v1, prepare_output_dir(args, 'results'), train_agent_with_"
                   "evaluation(eval_interval=1000, eval_n_episodes=5, checkpoint_freq=1000))")
