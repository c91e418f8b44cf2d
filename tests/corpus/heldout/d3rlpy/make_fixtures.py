"""d3rlpy: offline reinforcement learning, a DQN fitted on a dataset of random CartPole-v1
episodes (gymnasium), CPU, 3000 gradient steps, as its quick start runs it (but with a
dataset made here: its own download is not reachable).

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 d3rlpy gymnasium
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/d3rlpy/make_fixtures.py

``MDPDataset(...).dump("data/cartpole_random.h5")`` writes the dataset (HDF5).
``DQNConfig().create().fit(dataset, n_steps=3000, n_steps_per_epoch=1000,
experiment_name="dqn_cartpole", evaluators={"environment": EnvironmentEvaluator(env)})``
writes ``d3rlpy_logs/dqn_cartpole_<timestamp>/``: ``params.json``, one CSV per metric
(``loss.csv``, ``environment.csv``, ``time_*.csv``) and ``model_<step>.d3`` after each
epoch. fit() returns the metrics per epoch; the last model saved is the latest, and no
best is recorded.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import d3rlpy
    import gymnasium as gym
    import numpy as np

    d3rlpy.seed(0)
    env = gym.make("CartPole-v1")
    rng = np.random.default_rng(0)
    observations, actions, rewards, terminals = [], [], [], []
    obs, _ = env.reset(seed=0)
    for _ in range(5000):
        action = int(rng.integers(2))
        next_obs, reward, terminated, truncated, _ = env.step(action)
        observations.append(obs)
        actions.append(action)
        rewards.append(reward)
        terminals.append(float(terminated or truncated))
        obs = env.reset()[0] if terminated or truncated else next_obs
    terminals[-1] = 1.0
    dataset = d3rlpy.dataset.MDPDataset(np.array(observations, dtype=np.float32),
                                        np.array(actions), np.array(rewards, dtype=np.float32),
                                        np.array(terminals, dtype=np.float32))
    (work / "data").mkdir()
    with open(work / "data" / "cartpole_random.h5", "w+b") as f:
        dataset.dump(f)
    dqn = d3rlpy.algos.DQNConfig().create(device="cpu:0")
    results = dqn.fit(dataset, n_steps=3000, n_steps_per_epoch=1000, show_progress=False,
                      experiment_name="dqn_cartpole", with_timestamp=True,
                      evaluators={"environment": d3rlpy.metrics.EnvironmentEvaluator(env)})
    (run_dir,) = (work / "d3rlpy_logs").iterdir()
    last_epoch = results[-1][0]
    return [{"run": str(run_dir.relative_to(work)), "best": None,
             "latest": f"{run_dir.relative_to(work)}/model_{last_epoch * 1000}.d3",
             "evidence": f"fit() returned {len(results)} epochs of 1000 steps; the model "
                         f"saved after the last"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "checkpoint" if path.endswith(".d3") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "d3rlpy", tool="d3rlpy",
           kind="reinforcement learning (offline)",
           command="DQNConfig().create(device='cpu:0').fit(MDPDataset(random CartPole), "
                   "n_steps=3000, n_steps_per_epoch=1000, experiment_name='dqn_cartpole')")
