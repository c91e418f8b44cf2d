"""TorchRL: a DQN on gymnasium's CartPole-v1, CPU, 6000 frames, trained by TorchRL's own
``DQNTrainer`` with its unified checkpointing (``Checkpoint`` + ``CheckpointRotation``), a
``CSVLogger``, and a replay buffer on ``LazyMemmapStorage``, dumped to disk at the end.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 torchrl gymnasium
    /work/venvs/tools-a/bin/python tests/corpus/heldout4/torchrl/make_fixtures.py

``ReplayBuffer(storage=LazyMemmapStorage(10000, scratch_dir="replay_storage"))`` keeps the
collected transitions in memory-mapped files under ``replay_storage/`` while training;
``DQNTrainer(..., checkpoint=Checkpoint(), checkpoint_rotation=CheckpointRotation(
"checkpoints", keep_last=2, keep_best=("episode_reward", "max")), checkpoint_metadata=...,
save_trainer_interval=900)`` writes ``checkpoints/checkpoint-<frames>/`` (a manifest and one
folder per component: collector, exploration, logger, loss module, optimizer, policy,
replay buffer, target updater, trainer state) about every 1000 frames and prunes all but
the two newest and the best by the ``episode_reward`` each save's metadata carries;
``CSVLogger(exp_name="dqn_cartpole", log_dir="logs")`` writes one CSV per scalar; at the end
the user saves the buffer with ``replay_buffer.dumps("replay_buffer")``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import torch
    from tensordict import TensorDictBase
    from tensordict.nn import TensorDictSequential
    from torch import optim
    from torchrl.checkpoint import Checkpoint, CheckpointRotation
    from torchrl.collectors import Collector
    from torchrl.data import LazyMemmapStorage, ReplayBuffer
    from torchrl.envs import Compose, GymEnv, RewardSum, StepCounter, TransformedEnv
    from torchrl.modules import MLP, EGreedyModule, QValueActor
    from torchrl.objectives import DQNLoss
    from torchrl.objectives.utils import HardUpdate
    from torchrl.record.loggers import CSVLogger
    from torchrl.trainers.algorithms.dqn import DQNTrainer

    torch.manual_seed(0)
    env = TransformedEnv(GymEnv("CartPole-v1"), Compose(StepCounter(), RewardSum()))
    env.set_seed(0)
    actor = QValueActor(MLP(out_features=2, num_cells=[64, 64]), in_keys=["observation"],
                        spec=env.action_spec)
    actor(env.reset())
    greedy = EGreedyModule(env.action_spec, eps_init=1.0, eps_end=0.05,
                           annealing_num_steps=4000)
    collector = Collector(env, TensorDictSequential(actor, greedy), frames_per_batch=250,
                          total_frames=6000)
    loss = DQNLoss(actor, action_space=env.action_spec, delay_value=True)
    loss.make_value_estimator(gamma=0.99)
    replay_buffer = ReplayBuffer(
        storage=LazyMemmapStorage(10000, scratch_dir="replay_storage"), batch_size=64)
    rotation = CheckpointRotation("checkpoints", keep_last=2,
                                  keep_best=("episode_reward", "max"))
    rewards: list[float] = []
    trainer = DQNTrainer(
        collector=collector, total_frames=6000, frame_skip=1, optim_steps_per_batch=20,
        loss_module=loss, optimizer=optim.Adam(loss.parameters(), lr=1e-3),
        replay_buffer=replay_buffer, target_net_updater=HardUpdate(
            loss, value_network_update_interval=50),
        greedy_module=greedy, episode_reward_key="episode_reward",
        logger=CSVLogger(exp_name="dqn_cartpole", log_dir="logs"), log_interval=500,
        save_trainer_interval=900, progress_bar=False, checkpoint=Checkpoint(),
        checkpoint_rotation=rotation,
        checkpoint_metadata=lambda _: {"episode_reward": rewards[-1] if rewards else 0.0})

    def track(batch: TensorDictBase) -> TensorDictBase:
        """Note the mean return of the episodes that ended in this batch."""
        done = batch["next", "done"]
        if done.any():
            rewards.append(float(batch["next", "episode_reward"][done].mean()))
        return batch

    trainer.register_op("batch_process", track)
    trainer.train()
    replay_buffer.dumps("replay_buffer")
    best, latest = (p.relative_to(work).as_posix() for p in (rotation.best(), rotation.latest()))
    kept = {p.name: Checkpoint.manifest(p)["metadata"]["episode_reward"]
            for p in rotation.checkpoints()}
    return [{"run": "checkpoints", "best": best, "latest": latest,
             "evidence": f"CheckpointRotation(keep_last=2, keep_best=('episode_reward', "
                         f"'max')): best() {best}, latest() {latest}; checkpoints() with the "
                         f"episode_reward of their manifests {kept}"}]


def label(path: str) -> str:
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith("replay_buffer/"):
        return "dataset"
    return "cache" if path.startswith("replay_storage/") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "torchrl", tool="TorchRL",
           kind="reinforcement learning",
           command="DQNTrainer(collector, total_frames=6000, replay_buffer=ReplayBuffer("
                   "LazyMemmapStorage(10000, scratch_dir='replay_storage')), "
                   "checkpoint=Checkpoint(), checkpoint_rotation=CheckpointRotation("
                   "'checkpoints', keep_last=2, keep_best=('episode_reward', 'max')), "
                   "logger=CSVLogger('dqn_cartpole', 'logs')).train(); "
                   "replay_buffer.dumps('replay_buffer')")
