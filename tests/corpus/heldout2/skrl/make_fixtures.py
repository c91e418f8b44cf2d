"""skrl: a DQN agent on gymnasium's CartPole-v1, CPU, 3000 timesteps, trained with skrl's
SequentialTrainer as its examples do.

    /work/venvs/tools/bin/pip install torch==2.13.0 skrl gymnasium
    /work/venvs/tools/bin/python tests/corpus/heldout2/skrl/make_fixtures.py

The agent writes ``runs/torch/CartPole-v1/<experiment>/``: TensorBoard events, and in
``checkpoints/`` one ``agent_<timestep>.pt`` every ``checkpoint_interval`` (300) timesteps
plus ``best_agent.pt``, the modules at the best mean episode return seen (skrl's own
``checkpoint_best_modules``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import gymnasium as gym
    import torch
    from skrl.agents.torch.dqn import DQN, DQN_CFG
    from skrl.envs.wrappers.torch import wrap_env
    from skrl.memories.torch import RandomMemory
    from skrl.models.torch import DeterministicMixin, Model
    from skrl.trainers.torch import SequentialTrainer
    from skrl.utils import set_seed

    class QNetwork(DeterministicMixin, Model):
        def __init__(self, observation_space, state_space, action_space, device):  # noqa: ANN001
            Model.__init__(self, observation_space=observation_space, state_space=state_space,
                           action_space=action_space, device=device)
            DeterministicMixin.__init__(self)
            self.net = torch.nn.Sequential(torch.nn.Linear(self.num_observations, 64),
                                           torch.nn.ReLU(), torch.nn.Linear(64, 64),
                                           torch.nn.ReLU(),
                                           torch.nn.Linear(64, self.num_actions))

        def compute(self, inputs, role=""):  # noqa: ANN001, ANN201
            return self.net(inputs["observations"]), {}

    set_seed(0)
    env = wrap_env(gym.make("CartPole-v1"))
    memory = RandomMemory(memory_size=5000, num_envs=env.num_envs, device=env.device)
    models = {name: QNetwork(env.observation_space, None, env.action_space, env.device)
              for name in ("q_network", "target_q_network")}
    cfg = DQN_CFG(learning_starts=100, batch_size=64)
    cfg.experiment.directory = "runs/torch/CartPole-v1"
    cfg.experiment.experiment_name = "dqn_cartpole"
    cfg.experiment.write_interval = 100
    cfg.experiment.checkpoint_interval = 300
    agent = DQN(models=models, memory=memory, observation_space=env.observation_space,
                action_space=env.action_space, device=env.device, cfg=cfg)
    SequentialTrainer(cfg={"timesteps": 3000, "headless": True}, env=env, agents=agent).train()
    folder = "runs/torch/CartPole-v1/dqn_cartpole/checkpoints"
    steps = sorted(int(p.stem.split("_")[1]) for p in (work / folder).glob("agent_*.pt"))
    return [{"run": folder, "best": f"{folder}/best_agent.pt",
             "latest": f"{folder}/agent_{steps[-1]}.pt",
             "evidence": f"skrl writes best_agent.pt at the best mean return "
                         f"(checkpoint_best_modules); the last periodic checkpoint is "
                         f"timestep {steps[-1]}"}]


def label(path: str) -> str:
    return "checkpoint" if path.endswith(".pt") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "skrl", tool="skrl",
           kind="reinforcement learning",
           command="DQN(...) on CartPole-v1; SequentialTrainer(cfg={'timesteps': 3000}).train(), "
                   "checkpoint_interval=300")
