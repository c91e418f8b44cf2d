"""Small readers for the records tools keep beside their checkpoints: JSON state files and
one-line text pointers. Each returns None when the record is missing, too large or malformed:
a record is a hint, never a reason to fail."""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass

#: Records larger than this are not read (a trainer_state.json with a huge log history).
MAX_RECORD_BYTES = 20 * 2**20


def read_text(path: str, limit: int = MAX_RECORD_BYTES) -> str | None:
    """The text of a regular file up to ``limit`` bytes. Opened non-blocking and checked to
    be a regular file first, so a FIFO or device that happens to carry a record's name
    can never hang the classification."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        blocks, left = [], limit + 1  # the file may grow while it is read
        while left > 0 and (block := os.read(fd, min(left, 1 << 20))):
            blocks.append(block)
            left -= len(block)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(blocks)
    return None if len(data) > limit else data.decode("utf-8", "replace")


def read_json(path: str) -> object | None:
    text = read_text(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


_EVAL_BOOKKEEPING = {
    "eval_runtime", "eval_samples_per_second", "eval_steps_per_second", "eval_epoch",
}


@dataclass(frozen=True)
class TrainerState:
    """What an HF Trainer ``trainer_state.json`` records (ml-layouts.md §1.4)."""

    global_step: int | None
    epoch: float | None
    best_checkpoint: str | None  # basename of best_model_checkpoint
    best_metric: float | None
    best_metric_name: str | None  # found in log_history where the value equals best_metric
    eval_metrics: tuple[tuple[str, float], ...]  # the last evaluation logged
    evals_by_step: dict[int, tuple[tuple[str, float], ...]]  # every evaluation, by step
    epochs_by_step: dict[int, float]


def read_trainer_state(path: str) -> TrainerState | None:
    data = read_json(path)
    if not isinstance(data, dict):
        return None
    history = data.get("log_history") if isinstance(data.get("log_history"), list) else []
    best_metric = data.get("best_metric")
    best_name = None
    last_eval: dict = {}
    evals_by_step: dict[int, tuple[tuple[str, float], ...]] = {}
    epochs_by_step: dict[int, float] = {}
    for record in history:
        if not isinstance(record, dict):
            continue
        step = record.get("step")
        if isinstance(step, int) and isinstance(record.get("epoch"), (int, float)):
            epochs_by_step[step] = record["epoch"]
        evals = {k: v for k, v in record.items() if k.startswith("eval_")
                 and isinstance(v, (int, float)) and k not in _EVAL_BOOKKEEPING}
        if evals:
            last_eval = evals
            if isinstance(step, int):
                evals_by_step[step] = tuple((k, float(v)) for k, v in evals.items())
            if best_metric is not None and best_name is None:
                best_name = next((k for k, v in evals.items() if v == best_metric), None)
    best_path = data.get("best_model_checkpoint")
    return TrainerState(
        global_step=data.get("global_step") if isinstance(data.get("global_step"), int) else None,
        epoch=data.get("epoch") if isinstance(data.get("epoch"), (int, float)) else None,
        best_checkpoint=os.path.basename(str(best_path).rstrip("/\\")) if best_path else None,
        best_metric=best_metric if isinstance(best_metric, (int, float)) else None,
        best_metric_name=best_name,
        eval_metrics=tuple((k, float(v)) for k, v in last_eval.items()),
        evals_by_step=evals_by_step,
        epochs_by_step=epochs_by_step,
    )


def read_pointer(path: str) -> str | None:
    """A one-line pointer file (DeepSpeed ``latest``, Detectron2/MMEngine ``last_checkpoint``,
    Megatron's tracker): its first line, stripped, reduced to a basename when it is a path."""
    text = read_text(path, limit=64 * 1024)
    if not text or not text.strip():
        return None
    return os.path.basename(text.strip().splitlines()[0].strip().rstrip("/"))


_TF_STATE = re.compile(r'^model_checkpoint_path:\s*"(.*)"', re.M)


def read_tf_checkpoint_state(path: str) -> str | None:
    """The latest prefix named by a TensorFlow ``checkpoint`` state file, or None if the file
    is not such a state file (``checkpoint`` is also a common name for other things)."""
    text = read_text(path, limit=1024 * 1024)
    match = _TF_STATE.search(text or "")
    return os.path.basename(match.group(1)) if match else None


def read_best_k_models(path: str) -> dict[str, float] | None:
    """Lightning's optional ``best_k_models.yaml`` ({path: score}); read line by line, since
    it is flat and mlspace parses no YAML it does not need to."""
    text = read_text(path, limit=1024 * 1024)
    if not text:
        return None
    scores = {}
    for line in text.splitlines():
        key, sep, value = line.rpartition(":")
        if sep and key.strip():
            try:
                scores[os.path.basename(key.strip().strip("'\""))] = float(value)
            except ValueError:
                continue
    return scores or None
