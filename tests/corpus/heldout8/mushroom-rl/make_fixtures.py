"""MushroomRL: the user's ``train_dqn.py`` follows MushroomRL's DQN examples: a
``Logger(DQN.__name__, results_dir="./logs", log_console=True, seed=SEED)``, a ``DQN``
agent (2x32 fully connected Q network through ``TorchApproximator``, epsilon-greedy) on
MushroomRL's own ``CartPole`` (the gym-free inverted pendulum on a cart), a ``Core`` with
the ``CollectDataset`` and ``CollectMaxQ`` fit callbacks, and per epoch ``core.evaluate``,
``logger.epoch_info``, ``logger.log_numpy(J=J)`` and ``logger.log_best_agent(agent, J)``;
at the end ``log_numpy_array(max_q=...)``, ``log_dataset`` (the collected transitions) and
``log_agent(agent)``. It is run for two seeds, as MushroomRL's experiments are.

    python3.11 -m venv /tmp/h8/mushroom-rl/venv
    /tmp/h8/mushroom-rl/venv/bin/pip install torch==2.13.0 numpy scipy scikit-learn tqdm \
        joblib matplotlib opencv-python-headless pygame
    /tmp/h8/mushroom-rl/venv/bin/pip install --no-deps mushroom-rl==1.10.2
    /tmp/h8/mushroom-rl/venv/bin/python tests/corpus/heldout8/mushroom-rl/make_fixtures.py

(mushroom-rl 1.10.2 pins torch==2.5.1 and exact numpy/scipy versions, hence ``--no-deps``
and its unpinned requirements by hand.) ``python train_dqn.py 0`` then ``python train_dqn.py
1``: both seeds log into the same ``logs/DQN/`` folder, each file with the seed suffix.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train DQN on MushroomRL's CartPole: python train_dqn.py SEED"""
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from mushroom_rl.algorithms.value import DQN
from mushroom_rl.approximators.parametric import TorchApproximator
from mushroom_rl.core import Core, Logger
from mushroom_rl.environments import CartPole
from mushroom_rl.policy import EpsGreedy
from mushroom_rl.utils.callbacks import CollectDataset, CollectMaxQ
from mushroom_rl.utils.dataset import compute_J
from mushroom_rl.utils.parameters import LinearParameter, Parameter


class Network(nn.Module):
    def __init__(self, input_shape, output_shape, n_features=32, **kwargs):
        super().__init__()
        self._h1 = nn.Linear(input_shape[-1], n_features)
        self._h2 = nn.Linear(n_features, n_features)
        self._h3 = nn.Linear(n_features, output_shape[0])

    def forward(self, state, action=None):
        h = F.relu(self._h2(F.relu(self._h1(state.float()))))
        q = self._h3(h)
        if action is None:
            return q
        return torch.squeeze(q.gather(1, action.long()))


def experiment(seed, n_epochs=3, n_steps=150, n_episodes_test=3):
    torch.set_num_threads(1)
    np.random.seed(seed)
    torch.manual_seed(seed)
    logger = Logger(DQN.__name__, results_dir="./logs", log_console=True, seed=seed)
    logger.strong_line()
    logger.info("Experiment Algorithm: " + DQN.__name__)

    mdp = CartPole(horizon=100)
    epsilon = LinearParameter(value=1.0, threshold_value=0.05, n=1000)
    pi = EpsGreedy(epsilon=epsilon)
    approximator_params = dict(
        network=Network, optimizer={"class": optim.Adam, "params": {"lr": 1e-3}},
        loss=F.smooth_l1_loss, input_shape=mdp.info.observation_space.shape,
        output_shape=(mdp.info.action_space.n,), n_actions=mdp.info.action_space.n)
    agent = DQN(mdp.info, pi, TorchApproximator, approximator_params=approximator_params,
                batch_size=32, target_update_frequency=100, initial_replay_size=200,
                max_replay_size=2000)

    collect_dataset = CollectDataset()
    collect_max_q = CollectMaxQ(agent.approximator, np.array([0.0, 0.0]))
    core = Core(agent, mdp, callbacks_fit=[collect_dataset, collect_max_q])
    core.learn(n_steps=200, n_steps_per_fit=200, quiet=True)

    for epoch in range(n_epochs + 1):
        if epoch > 0:
            pi.set_epsilon(epsilon)
            core.learn(n_steps=n_steps, n_steps_per_fit=1, quiet=True)
        pi.set_epsilon(Parameter(0.0))
        dataset = core.evaluate(n_episodes=n_episodes_test, quiet=True)
        J = np.mean(compute_J(dataset, mdp.info.gamma))
        logger.epoch_info(epoch, J=J)
        logger.log_numpy(J=J)
        logger.log_best_agent(agent, J)

    logger.log_numpy_array(max_q=np.array(collect_max_q.get()))
    logger.log_dataset(collect_dataset.get())
    logger.log_agent(agent)
    logger.info("Saved the final agent to " + str(logger.path))


if __name__ == "__main__":
    experiment(int(sys.argv[1]))
'''


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np

    Path("train_dqn.py").write_text(TRAIN)
    checkpoints = []
    for seed in ("0", "1"):
        done = subprocess.run([sys.executable, "train_dqn.py", seed], capture_output=True,
                              text=True, check=True)
        sys.stderr.write(done.stdout + done.stderr)
        assert "Saved the final agent to logs/DQN" in done.stdout, done.stdout
        returns = np.load(f"logs/DQN/J-{seed}.npy").tolist()
        best_epoch = max(i for i, j in enumerate(returns) if j == max(returns))
        best, latest = f"logs/DQN/agent-{seed}-best.msh", f"logs/DQN/agent-{seed}.msh"
        assert Path(best).is_file() and Path(latest).is_file()
        checkpoints.append({
            "run": f"python train_dqn.py {seed} (Logger seed={seed}, suffix -{seed})",
            "best": best, "latest": latest,
            "evidence": f"MushroomRL's DataLogger.log_best_agent wrote {best} (it saves "
                        f"agent<suffix>-best.msh whenever J >= the best J so far; J-{seed}.npy "
                        f"holds J per epoch {[round(j, 4) for j in returns]}, so the file is the "
                        f"agent of epoch {best_epoch}); log_agent(agent) after the last epoch "
                        f"wrote {latest}, the final agent"})
    return checkpoints


def label(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".msh"):
        return "checkpoint"
    if name.startswith("dataset-"):
        return "dataset"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "mushroom-rl", tool="mushroom-rl",
           kind="reinforcement learning library (Core, Logger, agent.save)",
           command="python train_dqn.py 0; python train_dqn.py 1 (train_dqn.py: DQN on "
                   "mushroom_rl.environments.CartPole, Logger('DQN', results_dir='./logs', "
                   "log_console=True, seed=SEED) with log_best_agent per epoch, log_numpy, "
                   "log_numpy_array, log_dataset and log_agent)")
