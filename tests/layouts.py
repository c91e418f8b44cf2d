"""Build fixture trees the way the real tools lay them out (see ../shared/ml-layouts.md).

``make(root, spec)`` takes {relative path: content}; content is bytes, a str (written as
UTF-8), an int (that many random bytes), a dict (written as JSON), None for an empty folder,
or Link("target") for a symlink.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from mlspace.classify import Inventory, classify
from mlspace.scan import ScanOptions, scan


@dataclass(frozen=True)
class Link:
    target: str


def make(root: Path, spec: dict[str, object]) -> Path:
    for rel, content in spec.items():
        path = root / rel
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            os.symlink(content.target, path)
        elif isinstance(content, dict):
            path.write_text(json.dumps(content))
        elif isinstance(content, str):
            path.write_text(content)
        elif isinstance(content, int):
            path.write_bytes(os.urandom(content))
        else:
            path.write_bytes(content)  # type: ignore[arg-type]
    return root


def inventory_of(root: Path) -> Inventory:
    return classify(scan([root], ScanOptions(workers=1)))


def categories_by_path(inv: Inventory) -> dict[str, str]:
    return {p: inv.category(e).id for e, _, p in inv.snapshot.iter_paths()}


def series_at(inv: Inventory, folder: Path):  # noqa: ANN201 - a Series
    return inv.series_by_id[f"series:{folder}"]


def name_of(artifact_id: str | None) -> str | None:
    return artifact_id.rsplit("/", 1)[-1] if artifact_id else None


def trainer_state(step: int, best: str | None, best_metric: float | None,
                  evals: list[tuple[int, float]]) -> dict:
    """A trainer_state.json as HF Trainer writes it (fields per ml-layouts.md §1.4)."""
    return {
        "epoch": step / 500, "global_step": step, "max_steps": 3000, "logging_steps": 50,
        "eval_steps": 500, "save_steps": 500, "train_batch_size": 8,
        "best_metric": best_metric, "best_global_step": None,
        "best_model_checkpoint": best,
        "log_history": [
            *({"loss": 2.0 - s / 2000, "learning_rate": 1e-4, "epoch": s / 500, "step": s}
              for s, _ in evals),
            *({"eval_loss": v, "eval_runtime": 3.2, "eval_samples_per_second": 100.0,
               "epoch": s / 500, "step": s} for s, v in evals),
        ],
        "is_local_process_zero": True, "is_world_process_zero": True,
        "is_hyper_param_search": False, "trial_name": None, "trial_params": None,
        "total_flos": 1e15, "num_train_epochs": 6, "num_input_tokens_seen": 0,
        "stateful_callbacks": {},
    }


ELF_CORE = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + (4).to_bytes(2, "little") + b"\0" * 46
ELF_EXEC = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + (2).to_bytes(2, "little") + b"\0" * 46
