"""sample-factory: the user's ``train.py`` is Sample Factory's own Gym example
(``sf_examples/train_gym_env.py``: register ``CartPole-v1``, ``parse_sf_args``,
``run_rl``), copied into the project as its docs suggest; one short APPO run on CPU with two
rollout workers, checkpointing every 5 s and saving the best policy by reward after 5000 env
steps, under the default ``--train_dir`` (``./train_dir``).

    python3.11 -m venv /tmp/h9/sample-factory/venv
    /tmp/h9/sample-factory/venv/bin/pip install torch==2.13.0 sample-factory
    /tmp/h9/sample-factory/venv/bin/python tests/corpus/heldout9/sample-factory/make_fixtures.py

``python train.py --algo=APPO --env=CartPole-v1 --experiment=cartpole_appo ...
--train_for_env_steps=40000 --save_every_sec=5 --save_best_every_sec=5
--save_best_after=5000`` (the example's documented CartPole line, scaled down).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

ARGS = ["--algo=APPO", "--env=CartPole-v1", "--experiment=cartpole_appo", "--use_rnn=False",
        "--num_workers=2", "--num_envs_per_worker=4", "--batch_size=256", "--rollout=32",
        "--recurrence=1", "--with_vtrace=False", "--reward_scale=0.1",
        "--train_for_env_steps=40000", "--save_every_sec=5", "--save_best_every_sec=5",
        "--save_best_after=5000", "--experiment_summaries_interval=5", "--device=cpu"]

#: Sample Factory's own lookup (what enjoy uses for --load_checkpoint_kind latest / best).
PICK = """import sys
from sample_factory.algo.learning.learner import Learner
for pattern in ("checkpoint_*", "best_*"):
    print(Learner.get_checkpoints(sys.argv[1], pattern)[-1])
"""


def _example() -> str:
    import sf_examples.train_gym_env as example

    return Path(example.__file__).read_text()


def run(work: Path) -> list[dict[str, object]]:
    Path("train.py").write_text(_example())
    done = subprocess.run([sys.executable, "train.py", *ARGS], capture_output=True, text=True,
                          check=True)
    out = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    sys.stderr.write(out[-3000:])
    folder = "train_dir/cartpole_appo/checkpoint_p0"
    latest, best = (Path(p).relative_to(work).as_posix() for p in subprocess.run(
        [sys.executable, "-c", PICK, str(work / folder)], capture_output=True, text=True,
        check=True).stdout.split())
    saved = re.findall(r"Saving (\S+/checkpoint_p0/checkpoint_\S+\.pth)\.\.\.", out)
    assert Path(saved[-1]) == work / latest, (saved[-1], latest)
    rewards = re.findall(r"Saving new best policy, reward=([0-9.]+)!", out)
    assert best.endswith(f"_reward_{rewards[-1]}.pth"), (best, rewards)
    return [{
        "run": "python train.py --algo=APPO --env=CartPole-v1 --experiment=cartpole_appo "
               "(train_dir/cartpole_appo)",
        "best": best, "latest": latest,
        "evidence": f"Sample Factory's Learner.get_checkpoints (what its enjoy script loads "
                    f"for --load_checkpoint_kind latest and best) gives {latest} and {best}; "
                    f"the log's last 'Saving .../{Path(latest).name}...' and last 'Saving new "
                    f"best policy, reward={rewards[-1]}!' agree"}]


def label(path: str) -> str:
    if "/checkpoint_p" in path:
        return "checkpoint"
    if path.startswith("train_dir/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sample-factory", tool="sample-factory",
           kind="reinforcement learning (APPO, train_dir experiment folder)",
           command="python train.py " + " ".join(ARGS) + " (train.py: sf_examples/"
                   "train_gym_env.py, CartPole-v1)")
