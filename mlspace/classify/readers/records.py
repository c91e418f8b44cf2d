"""Small readers for the records tools keep beside their checkpoints: JSON state files and
one-line text pointers. Each returns None when the record is missing, too large, malformed
or not a regular file in the tree (read through :mod:`mlspace.safe_read`, which never opens
a FIFO or device and never follows a link): a record is a hint, never a reason to fail or
to wait. Numbers in records go through :func:`json_number`."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass

from mlspace.safe_read import MAX_RECORD_BYTES, Unreadable
from mlspace.safe_read import read_text as _read_text


def read_text(path: str, limit: int = MAX_RECORD_BYTES) -> str | None:
    """The text of a regular file of at most ``limit`` bytes, or None: read through
    :mod:`mlspace.safe_read` (a FIFO, device or symlink under a record's name is refused
    without being opened or followed), with "unreadable" meaning "no record"."""
    try:
        return _read_text(path, limit)
    except Unreadable:
        return None


def read_json(path: str, limit: int = MAX_RECORD_BYTES) -> object | None:
    """The parsed JSON of a record of at most ``limit`` bytes, or None when it is unreadable
    or not JSON. Parsing is where an odd file fails: nesting deeper than the parser's
    recursion (RecursionError), an integer longer than Python converts (ValueError),
    invalid text."""
    text = read_text(path, limit)
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def json_number(value: object) -> int | float | None:
    """``value`` if it is a finite JSON number, else None: the one check for a number read
    from a record. JSON has no limits, so a record may hold ``1e999`` (parsed as inf), NaN
    (Python writes it), a 400-digit integer (float() of it raises OverflowError), ``true``
    (a bool is an int to Python) or a string; none of them is a step, epoch or metric."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return value if math.isfinite(value) else None
    except OverflowError:  # an int too large for a float
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
    """The record, or None when it cannot be used as a whole: unreadable, not JSON, not a
    JSON object, or its best checkpoint or log history not of the type HF writes (what
    decides which checkpoint is kept is never guessed from a malformed record). A single
    number that is not a finite JSON number is unknown and left out: HF itself writes NaN
    or Infinity for a diverged metric, and the rest of such a record still holds."""
    data = read_json(path)
    if not isinstance(data, dict):
        return None
    history = data.get("log_history")
    best_path = data.get("best_model_checkpoint")
    if history is None:
        history = []
    if not isinstance(history, list) or not (best_path is None or isinstance(best_path, str)):
        return None
    best_metric = json_number(data.get("best_metric"))
    best_name = None
    last_eval: dict[str, float] = {}
    evals_by_step: dict[int, tuple[tuple[str, float], ...]] = {}
    epochs_by_step: dict[int, float] = {}
    for record in history:
        if not isinstance(record, dict):
            continue
        step = _json_int(record.get("step"))
        epoch = json_number(record.get("epoch"))
        if step is not None and epoch is not None:
            epochs_by_step[step] = epoch
        evals = {k: float(v) for k, v in ((k, json_number(v)) for k, v in record.items())
                 if v is not None and k.startswith("eval_") and k not in _EVAL_BOOKKEEPING}
        if evals:
            last_eval = evals
            if step is not None:
                evals_by_step[step] = tuple(evals.items())
            if best_metric is not None and best_name is None:
                best_name = next((k for k, v in evals.items() if v == best_metric), None)
    best = os.path.basename(best_path.rstrip("/\\")) if best_path else None
    return TrainerState(
        global_step=_json_int(data.get("global_step")),
        epoch=json_number(data.get("epoch")),
        best_checkpoint=best or None,
        best_metric=best_metric,
        best_metric_name=best_name,
        eval_metrics=tuple(last_eval.items()),
        evals_by_step=evals_by_step,
        epochs_by_step=epochs_by_step,
    )


def _json_int(value: object) -> int | None:
    """A step: a finite JSON number that is an integer (JSON's 100 is an int, 100.0 is not:
    HF writes steps as integers)."""
    number = json_number(value)
    return number if isinstance(number, int) else None


def read_pointer(path: str) -> str | None:
    """A one-line pointer file (DeepSpeed ``latest``, Detectron2/MMEngine ``last_checkpoint``,
    Megatron's tracker): its first line, stripped, reduced to a basename when it is a path."""
    text = read_text(path, limit=64 * 1024)
    if not text or not text.strip():
        return None
    return os.path.basename(text.strip().splitlines()[0].strip().rstrip("/")) or None


_TF_STATE = re.compile(r'^model_checkpoint_path:\s*"(.*)"', re.M)


def read_tf_checkpoint_state(path: str) -> str | None:
    """The latest prefix named by a TensorFlow ``checkpoint`` state file, or None if the file
    is not such a state file (``checkpoint`` is also a common name for other things)."""
    text = read_text(path, limit=1024 * 1024)
    match = _TF_STATE.search(text or "")
    return (os.path.basename(match.group(1)) or None) if match else None


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
                score = json_number(float(value))  # "inf" and "nan" parse: not scores
            except ValueError:
                continue
            if score is not None:
                scores[os.path.basename(key.strip().strip("'\""))] = score
    return scores or None
