"""A simulated training run for the guard's tests: Hugging Face style checkpoints
(``checkpoint-STEP/model.safetensors`` with a ``trainer_state.json`` naming the best), with
times on a simulated clock, so many rounds of the guard run in seconds."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

MIB = 1 << 20
BLOCK = b"\1" * MIB


class Writer:
    """A run that writes a checkpoint of ``size`` bytes every ``every`` simulated seconds,
    with rotation off (it never deletes one), and records whether a write failed."""

    def __init__(self, run: Path, t0: float, every: float = 2.0, size: int = 20 * MIB,
                 best_step: int = 200) -> None:
        self.run, self.t0, self.every, self.size = run, t0, every, size
        self.best = run / f"checkpoint-{best_step}"
        self.steps: list[int] = []
        self.enospc = 0
        run.mkdir(parents=True, exist_ok=True)

    def now(self) -> float:
        return self.t0 + self.every * len(self.steps)

    def write(self) -> bool:
        """The next checkpoint; False when the disk was full (ENOSPC)."""
        step = 100 * (len(self.steps) + 1)
        when = self.now()
        folder = self.run / f"checkpoint-{step}"
        self.steps.append(step)
        try:
            folder.mkdir()
            state = {"global_step": step, "best_metric": 0.5,
                     "best_model_checkpoint": str(self.best),
                     "log_history": [{"step": step, "eval_loss": 0.5 + step / 1e5}]}
            (folder / "trainer_state.json").write_text(json.dumps(state))
            with open(folder / "model.safetensors", "wb") as f:
                for _ in range(self.size // MIB):
                    f.write(BLOCK)
                f.flush()
                os.fsync(f.fileno())
        except OSError as err:
            if err.errno != errno.ENOSPC:
                raise
            self.enospc += 1
            return False
        finally:
            for path in (folder / "trainer_state.json", folder / "model.safetensors", folder):
                if os.path.lexists(path):
                    os.utime(path, (when, when))
        return True

    def checkpoints(self) -> list[Path]:
        return sorted((p for p in self.run.glob("checkpoint-*")),
                      key=lambda p: int(p.name.split("-")[1]))


POLICY = """\
version = 1
[guard]
act = true
keep_free = "{keep}"
recent_minutes = 0.05
[[rule]]
folders = ["outputs/*"]
keep_best = 1
keep_latest = 2
min_age_days = 0
allow = ["safe"]
"""
