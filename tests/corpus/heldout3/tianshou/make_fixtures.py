"""Tianshou: a DQN on gymnasium's CartPole-v1, CPU, 5 epochs of 1000 env steps, trained with
its off-policy trainer as its examples do, with a TensorBoard logger.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 tianshou
    /work/venvs/tools-a/bin/python tests/corpus/heldout3/tianshou/make_fixtures.py

As in Tianshou's examples, the run folder is ``log/<task>/dqn/<seed>/<yymmdd-HHMMSS>/``
(``TensorboardLogger(SummaryWriter(log_path), save_interval=1)``); ``save_best_fn`` writes
``policy.pth`` whenever a test step beats the best score, and ``save_checkpoint_fn`` (called
by the logger every ``save_interval`` epochs) ``checkpoint_<epoch>.pth``.
"""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import gymnasium as gym
    import numpy as np
    import tianshou as ts
    import torch
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import CollectStats
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net
    from tianshou.utils.space_info import SpaceInfo
    from torch.utils.tensorboard import SummaryWriter

    task, seed = "CartPole-v1", 0
    np.random.seed(seed)
    torch.manual_seed(seed)
    now = datetime.datetime.now().strftime("%y%m%d-%H%M%S")
    log_path = os.path.join("log", task, "dqn", str(seed), now)
    writer = SummaryWriter(log_path)
    writer.add_text("args", f"task={task}, seed={seed}, lr=1e-3, epochs=5")
    logger = ts.utils.TensorboardLogger(writer, save_interval=1)

    train_envs = ts.env.DummyVectorEnv([lambda: gym.make(task) for _ in range(4)])
    test_envs = ts.env.DummyVectorEnv([lambda: gym.make(task) for _ in range(5)])
    train_envs.seed(seed)
    test_envs.seed(seed)
    env = gym.make(task)
    space_info = SpaceInfo.from_env(env)
    net = Net(state_shape=space_info.observation_info.obs_shape,
              action_shape=space_info.action_info.action_shape, hidden_sizes=[64, 64])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=0.1, eps_inference=0.05)
    algorithm = ts.algorithm.DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3),
                                 gamma=0.9, n_step_return_horizon=3, target_update_freq=320)
    train_collector = ts.data.Collector[CollectStats](
        algorithm, train_envs, ts.data.VectorReplayBuffer(20000, 4), exploration_noise=True)
    test_collector = ts.data.Collector[CollectStats](algorithm, test_envs,
                                                     exploration_noise=True)
    best_saves: list[str] = []
    epochs: list[int] = []

    def save_best_fn(algorithm: ts.algorithm.Algorithm) -> None:
        path = os.path.join(log_path, "policy.pth")
        torch.save(algorithm.state_dict(), path)
        best_saves.append(path)

    def save_checkpoint_fn(epoch: int, env_step: int, gradient_step: int) -> str:
        ckpt_path = os.path.join(log_path, f"checkpoint_{epoch}.pth")
        torch.save({"model": algorithm.state_dict()}, ckpt_path)
        epochs.append(epoch)
        return ckpt_path

    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector, max_epochs=5,
        epoch_num_steps=1000, collection_step_num_env_steps=10, test_step_num_episodes=10,
        batch_size=64, update_step_num_gradient_steps_per_sample=0.1, logger=logger,
        save_best_fn=save_best_fn, save_checkpoint_fn=save_checkpoint_fn))
    return [{"run": log_path, "best": f"{log_path}/policy.pth",
             "latest": f"{log_path}/checkpoint_{epochs[-1]}.pth",
             "evidence": f"the trainer called save_best_fn {len(best_saves)} times, last for "
                         f"its best_reward {result.best_reward:.1f}; save_checkpoint_fn's last "
                         f"call was epoch {epochs[-1]}"}]


def label(path: str) -> str:
    return "checkpoint" if path.endswith(".pth") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "tianshou", tool="Tianshou",
           kind="reinforcement learning",
           command="ts.algorithm.DQN(...).run_training(OffPolicyTrainerParams(max_epochs=5, "
                   "epoch_num_steps=1000, save_best_fn=..., save_checkpoint_fn=..., "
                   "logger=TensorboardLogger(SummaryWriter(log_path), save_interval=1)))")
