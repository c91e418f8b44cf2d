"""stable-baselines3: PPO on CartPole-v1 (gymnasium), CPU, 6144 steps, as its docs' callback
examples set it up.

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 stable-baselines3 gymnasium
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/stable_baselines3/make_fixtures.py

``Monitor`` writes ``logs/monitor.csv``; ``configure("logs/sb3", ["stdout", "csv", "log",
"json"])`` the logger's ``progress.csv``, ``log.txt`` and ``progress.json``;
``CheckpointCallback(save_freq=2048, save_path="logs/checkpoints", name_prefix="rl_model",
save_vecnormalize=True, verbose=2)`` ``rl_model_<N>_steps.zip`` and
``rl_model_vecnormalize_<N>_steps.pkl``; ``EvalCallback(best_model_save_path=
"logs/best_model", log_path="logs/eval", eval_freq=1024)`` ``best_model.zip`` (a zip holding
``policy.pth``, ``policy.optimizer.pth``, ``pytorch_variables.pth``, ``data``) and
``evaluations.npz``; ``model.save("ppo_cartpole")`` and ``VecNormalize.save`` the final
model. The latest checkpoint is the last one CheckpointCallback said it saved, the best the
one EvalCallback saved (it prints "New best mean reward!" when it does).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import CheckpointCallback, EvalCallback
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    torch.manual_seed(0)
    env = VecNormalize(DummyVecEnv([lambda: Monitor(gym.make("CartPole-v1"), "logs/monitor")]))
    eval_env = VecNormalize(DummyVecEnv([lambda: gym.make("CartPole-v1")]), training=False)
    model = PPO("MlpPolicy", env, seed=0, n_steps=512, device="cpu")
    model.set_logger(configure("logs/sb3", ["stdout", "csv", "log", "json"]))
    checkpoints = CheckpointCallback(save_freq=2048, save_path="logs/checkpoints",
                                     name_prefix="rl_model", save_vecnormalize=True, verbose=2)
    evaluation = EvalCallback(eval_env, best_model_save_path="logs/best_model",
                              log_path="logs/eval", eval_freq=1024, n_eval_episodes=3,
                              verbose=1)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        model.learn(total_timesteps=6144, callback=[checkpoints, evaluation])
    model.save("ppo_cartpole")
    env.save("vec_normalize.pkl")
    saved = re.findall(r"Saving model checkpoint to (\S+)", said.getvalue())
    assert "New best mean reward!" in said.getvalue()
    return [{"run": "logs/checkpoints", "best": None,
             "latest": str(Path(saved[-1]).relative_to(work)) if Path(saved[-1]).is_absolute()
             else saved[-1].removeprefix("./"),
             "evidence": "CheckpointCallback(verbose=2)'s last 'Saving model checkpoint to'"},
            {"run": "logs/best_model", "best": "logs/best_model/best_model.zip", "latest": None,
             "evidence": f"EvalCallback saved it (best_mean_reward "
                         f"{evaluation.best_mean_reward:.1f})"},
            {"run": ".", "best": None, "latest": "ppo_cartpole.zip",
             "evidence": "model.save() after learn() returned: the trained model"}]


def label(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".zip") or name.endswith(".pkl"):
        return "checkpoint"  # policies, and the VecNormalize statistics a policy needs
    return "log"  # monitor.csv, progress.csv/json, log.txt, evaluations.npz


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "stable_baselines3",
           tool="stable-baselines3", kind="reinforcement learning",
           command="PPO('MlpPolicy', CartPole-v1).learn(6144, callback=[CheckpointCallback, "
                   "EvalCallback]); model.save('ppo_cartpole')")
