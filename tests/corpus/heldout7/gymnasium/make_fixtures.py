"""Gymnasium: the user's ``train.py`` trains a linear CartPole policy with the cross-entropy
method (NumPy; each candidate scored on one episode), through the documented wrappers
``RecordEpisodeStatistics`` (episode return and length in ``info["episode"]``, written by the
script to ``logs/episodes.csv``) and ``RecordVideo`` (every 25th episode to ``videos/train/``,
with moviepy); it saves the policy after each iteration and the best one. ``evaluate.py``
reloads the best policy and records three evaluation episodes to ``videos/eval/``.

    python3.11 -m venv /tmp/h7/gymnasium/venv
    /tmp/h7/gymnasium/venv/bin/pip install --only-binary=:all: "gymnasium[classic-control]" \\
        moviepy
    /tmp/h7/gymnasium/venv/bin/python tests/corpus/heldout7/gymnasium/make_fixtures.py

``python train.py > logs/train.log 2>&1`` then ``python evaluate.py``
(``CartPole-v1``, ``render_mode="rgb_array"``, ``max_episode_steps=200``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Cross-entropy method on CartPole with a linear policy: python train.py"""
import csv
import json

import gymnasium as gym
import numpy as np
from gymnasium.wrappers import RecordEpisodeStatistics, RecordVideo

ITERS, POP, ELITE = 6, 12, 3
env = gym.make("CartPole-v1", render_mode="rgb_array", max_episode_steps=200)
env = RecordVideo(env, video_folder="videos/train", name_prefix="cem",
                  episode_trigger=lambda ep: ep % 25 == 0)
env = RecordEpisodeStatistics(env)
rng = np.random.default_rng(0)
mean, std = np.zeros(5), np.ones(5)
best_return, log = -np.inf, open("logs/episodes.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["iteration", "episode", "return", "length", "time"])
episode = 0
for it in range(ITERS):
    cands = rng.normal(mean, std, size=(POP, 5))
    returns = []
    for w in cands:
        obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
        done = False
        while not done:
            action = int(obs @ w[:4] + w[4] > 0)
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        stats = info["episode"]
        writer.writerow([it, episode, float(stats["r"]), int(stats["l"]), float(stats["t"])])
        returns.append(float(stats["r"]))
        episode += 1
    elite = cands[np.argsort(returns)[-ELITE:]]
    mean, std = elite.mean(0), elite.std(0) + 0.05
    np.save(f"checkpoints/policy_iter{it}.npy", mean)
    print(f"iter {it} mean return {np.mean(returns):.1f} max {max(returns):.0f}")
    if max(returns) > best_return:
        best_return = max(returns)
        np.save("checkpoints/policy_best.npy", cands[int(np.argmax(returns))])
        json.dump({"iteration": it, "return": best_return},
                  open("checkpoints/best.json", "w"))
        print(f"new best return {best_return:.0f}: saved checkpoints/policy_best.npy")
log.close()
env.close()
print(f"saved checkpoints/policy_iter{ITERS - 1}.npy")
'''

EVALUATE = '''"""Record three episodes of the best policy: python evaluate.py"""
import gymnasium as gym
import numpy as np
from gymnasium.wrappers import RecordEpisodeStatistics, RecordVideo

w = np.load("checkpoints/policy_best.npy")
env = gym.make("CartPole-v1", render_mode="rgb_array", max_episode_steps=200)
env = RecordVideo(env, video_folder="videos/eval", name_prefix="best",
                  episode_trigger=lambda ep: True)
env = RecordEpisodeStatistics(env)
for seed in range(3):
    obs, _ = env.reset(seed=1000 + seed)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(int(obs @ w[:4] + w[4] > 0))
        done = terminated or truncated
    print(f"eval episode {seed}: return {info['episode']['r']:.0f}")
env.close()
'''


def run(work: Path) -> list[dict[str, object]]:
    Path("train.py").write_text(TRAIN)
    Path("evaluate.py").write_text(EVALUATE)
    for folder in ("checkpoints", "logs"):
        Path(folder).mkdir()
    with open("logs/train.log", "w") as log:
        subprocess.run([sys.executable, "train.py"], stdout=log, stderr=subprocess.STDOUT,
                       check=True)
    text = Path("logs/train.log").read_text()
    sys.stderr.write(text)
    done = subprocess.run([sys.executable, "evaluate.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    best_lines = [line for line in text.splitlines() if line.startswith("new best")]
    last = [line for line in text.splitlines() if line.startswith("saved checkpoints/")][-1]
    latest = last.split()[-1]
    best = json.loads(Path("checkpoints/best.json").read_text())
    assert Path(latest).is_file() and best_lines, text
    return [{"run": "python train.py > logs/train.log 2>&1", "best": "checkpoints/policy_best.npy",
             "latest": latest,
             "evidence": f"logs/train.log: the last '{best_lines[-1]}' (checkpoints/best.json "
                         f"records iteration {best['iteration']}, return {best['return']:.0f})"
                         f" and the final '{last}'. These are the user's script's records: "
                         f"Gymnasium itself saves no policy and names no checkpoint"}]


def label(path: str) -> str:
    if path.startswith("checkpoints/"):
        return "checkpoint"
    if path.startswith(("logs/", "videos/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "gymnasium", tool="gymnasium",
           kind="RL environments (RecordVideo with moviepy, RecordEpisodeStatistics)",
           command="python train.py > logs/train.log 2>&1; python evaluate.py (CartPole-v1, "
                   "RecordVideo to videos/train (every 25th episode) and videos/eval, "
                   "RecordEpisodeStatistics to logs/episodes.csv, np.save to checkpoints/)")
