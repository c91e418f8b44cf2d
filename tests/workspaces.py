"""Small real workspaces for the hostile tests: an HF Trainer run whose older checkpoints the
advisor suggests moving, aged so that no "recently written" check gets in the way."""

from __future__ import annotations

import os
import time
from pathlib import Path

from layouts import inventory_of, make, trainer_state

from mlspace.advise import Suggestion, advise

MONTH_AGO = time.time() - 30 * 86400


def age(root: Path, when: float = MONTH_AGO) -> None:
    """Set every mtime below ``root`` (links themselves included) to ``when``."""
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (when, when), follow_symlinks=False)
    os.utime(root, (when, when))


def hf_run(root: Path, steps: tuple[int, ...] = (10, 20, 30, 40, 50, 60)) -> Path:
    """``root/outputs/run/checkpoint-N`` as the HF Trainer writes them; the last names the
    first as best, so the advisor keeps the first and the two latest."""
    run = root / "outputs" / "run"
    best = f"outputs/run/checkpoint-{steps[0]}"
    evals = [(s, 1.0 + i / 10) for i, s in enumerate(steps)]
    for step in steps:
        seen = [e for e in evals if e[0] <= step]
        make(run / f"checkpoint-{step}", {
            "model.safetensors": 4096, "optimizer.pt": 8192,
            "config.json": {"model_type": "bert"},
            "trainer_state.json": trainer_state(step, best, 1.0, seen),
        })
    age(root)
    return run


def retention_of(root: Path) -> Suggestion:
    plan = advise(inventory_of(root))
    return next(s for s in plan.suggestions if s.policy == "checkpoint-retention")
