"""minari: the user's ``collect.py`` records two offline-RL datasets of gymnasium's
CartPole-v1 with Minari's ``DataCollector`` (a random policy and a hand-written balancing
heuristic), combines them with ``minari.combine_datasets``, and loads the result back, with
``MINARI_DATASETS_PATH`` set to the project's ``datasets/`` folder (the documented way to keep
Minari's datasets out of ``~/.minari/datasets``).

    python3.11 -m venv /tmp/h5/minari/venv
    /tmp/h5/minari/venv/bin/pip install "minari[hdf5]" gymnasium
    /tmp/h5/minari/venv/bin/python tests/corpus/heldout5/minari/make_fixtures.py

``MINARI_DATASETS_PATH=$PWD/datasets python collect.py``: 20 episodes per policy,
``create_dataset`` with ``num_episodes_average_score=20`` for the reference scores, ids
``cartpole/random-v0``, ``cartpole/heuristic-v0`` and ``cartpole/mixed-v0`` (the combined one).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

COLLECT = '''"""Record CartPole datasets: MINARI_DATASETS_PATH=$PWD/datasets python collect.py"""
import gymnasium as gym
import minari
from minari import DataCollector


def heuristic(obs):
    return int(obs[2] + 0.5 * obs[3] > 0)


def collect(dataset_id, policy, seed, algorithm):
    env = DataCollector(gym.make("CartPole-v1"), record_infos=False)
    env.action_space.seed(seed)
    for episode in range(20):
        obs, _ = env.reset(seed=seed + episode)
        done = False
        while not done:
            action = env.action_space.sample() if policy is None else policy(obs)
            obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    dataset = env.create_dataset(
        dataset_id=dataset_id, algorithm_name=algorithm, author="A. User",
        author_email="user@example.com", code_permalink="https://example.com/collect.py",
        expert_policy=heuristic, num_episodes_average_score=20,
        description=f"CartPole-v1, 20 episodes of a {algorithm} policy")
    env.close()
    return dataset


random_ds = collect("cartpole/random-v0", None, 0, "random")
heuristic_ds = collect("cartpole/heuristic-v0", heuristic, 100, "heuristic")
mixed = minari.combine_datasets([random_ds, heuristic_ds], "cartpole/mixed-v0")
for name in minari.list_local_datasets():
    ds = minari.load_dataset(name)
    print(name, ds.total_episodes, "episodes", ds.total_steps, "steps")
'''


def run(work: Path) -> list[dict[str, object]]:
    Path("collect.py").write_text(COLLECT)
    env = {**os.environ, "MINARI_DATASETS_PATH": str(work / "datasets")}
    done = subprocess.run([sys.executable, "collect.py"], capture_output=True, text=True,
                          check=False, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    assert "cartpole/mixed-v0 40 episodes" in done.stdout, done.stdout
    return []  # Minari records data, not models: no checkpoint to name


def label(path: str) -> str:
    if path.startswith("datasets/cartpole/mixed-v0/"):
        return "augmented"
    if path.startswith("datasets/"):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "minari", tool="minari",
           kind="offline reinforcement learning datasets (minari.DataCollector, "
                "combine_datasets)",
           command="MINARI_DATASETS_PATH=$PWD/datasets python collect.py (collect.py: "
                   "DataCollector(gym.make('CartPole-v1')), 20 episodes each of a random and "
                   "a heuristic policy, create_dataset('cartpole/random-v0' and "
                   "'cartpole/heuristic-v0'), combine_datasets(..., 'cartpole/mixed-v0'))")
