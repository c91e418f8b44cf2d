"""What an HF Trainer run's records say about its ``checkpoint-<step>`` folders.

Every checkpoint folder holds a ``trainer_state.json`` (the best so far, every evaluation)
and a ``training_args.bin`` (the run's settings, read as data by
:mod:`mlspace.classify.readers.hf_training_args`). From them a series learns:

- the best: the newest usable record's ``best_model_checkpoint``; and every best that the
  records still standing name, each protected (see :func:`_trainer_records`);
- the evaluation and epoch of each checkpoint, by its step;
- the Trainer's own retention. With ``save_total_limit=N`` the Trainer deletes, after each
  save, the oldest checkpoints but the latest and the best until N are left
  (``transformers.trainer_utils.rotate_checkpoints``; ml-layouts.md §1.5). The folders that
  rotation keeps are the tool's: no cleanup by recency goes inside that set unless the user
  asks, for this run, for fewer latest ones than the Trainer keeps.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mlspace.classify.artifacts import Candidate
from mlspace.classify.metrics import direction
from mlspace.classify.model import Artifact
from mlspace.classify.readers.hf_training_args import TrainerRetention, read_training_args
from mlspace.classify.readers.records import TrainerState, read_trainer_state

#: Most ``training_args.bin`` files tried, newest checkpoint first.
MAX_ARGS_FILES = 3


@dataclass(frozen=True)
class HfFacts:
    """A folder's HF Trainer records, in the names of its checkpoint folders."""

    state: TrainerState | None  # the newest usable trainer_state.json
    named_best: frozenset[str]  # every best the records still standing name
    retention: TrainerRetention | None
    kept: tuple[str, ...]  # what the Trainer's rotation keeps besides latest and best, newest first
    kept_reason: str


def read_hf_facts(found: list[Candidate], inside: Mapping[str, list[str]]) -> HfFacts | None:
    """The records of the HF Trainer checkpoint folders among ``found``, or None when
    there are none (``inside``: each folder's name -> the files in it worth reading, see
    classify.record_files; the others are absent records, left unopened)."""
    hf = sorted((c for c in found if c.is_dir and c.tool == "HF Trainer" and c.step is not None),
                key=lambda c: c.step or 0, reverse=True)
    if not hf:
        return None
    state, named = _trainer_records(hf, inside)
    retention, source = _retention(hf, inside)
    kept, reason = _rotation(hf, state, retention, source)
    return HfFacts(state, frozenset(named), retention, kept, reason)


def _trainer_records(hf: list[Candidate], inside: Mapping[str, list[str]]
                     ) -> tuple[TrainerState | None, set[str]]:
    """The newest usable trainer_state.json, and the checkpoint names that the records
    still standing name as best (``hf``: the checkpoint folders, newest first).

    The newest record's log history holds every evaluation so far and the best, so it gives
    the epochs and metrics. But it can be missing, cut short by a crash, or not a regular
    file: then the next older one counts. And records can disagree. An older record's best
    is outdated only when a newer record names a best saved after the older one was written
    (the run found a better one since); otherwise the records contradict each other, and
    every best they name is kept. Reading stops at the first record older than a best a
    newer one names, or at one naming no best, so a run costs the records from its latest
    down to its best, not one per checkpoint (a long run's state file can be megabytes).
    """
    steps = {c.name: c.step for c in hf}
    newest: TrainerState | None = None
    named: set[str] = set()
    moved_on = -1  # the step of the newest best a newer record names
    for found_ckpt in hf:
        if (found_ckpt.step or 0) < moved_on:
            break  # every older record's best has been superseded
        state = read_trainer_state(os.path.join(found_ckpt.path, "trainer_state.json")) \
            if "trainer_state.json" in inside.get(found_ckpt.name, ()) else None
        if state is None:
            continue
        newest = newest or state
        if not state.best_checkpoint:
            break  # HF keeps a best once it has one: older records name none either
        named.add(state.best_checkpoint)
        step = steps.get(state.best_checkpoint, _hf_step(state.best_checkpoint))
        moved_on = max(moved_on, step if step is not None else -1)
    return newest, named


_HF_CHECKPOINT = re.compile(r"checkpoint-(\d{1,18})")


def _hf_step(name: str) -> int | None:
    """The step in an HF checkpoint name that is not in the series (a deleted best). A
    record's text is arbitrary: a step is at most 18 digits (int() refuses very long ones)."""
    match = _HF_CHECKPOINT.fullmatch(name)
    return int(match.group(1)) if match else None


def _retention(hf: list[Candidate], inside: Mapping[str, list[str]]
               ) -> tuple[TrainerRetention | None, str]:
    """The run's retention settings from the newest readable ``training_args.bin``, and the
    checkpoint it was read from."""
    for found in hf[:MAX_ARGS_FILES]:
        if "training_args.bin" not in inside.get(found.name, ()):
            continue
        retention = read_training_args(os.path.join(found.path, "training_args.bin"))
        if retention is not None:
            return retention, found.name
    return None, ""


def _rotation(hf: list[Candidate], state: TrainerState | None,
              retention: TrainerRetention | None, source: str) -> tuple[tuple[str, ...], str]:
    """What ``rotate_checkpoints`` keeps besides the latest and the best (newest first),
    and why: the latest and the best, then the newest others until ``save_total_limit``
    are kept (at least the latest and the best). Ordered by step, which the Trainer falls
    back to when file times are unreliable."""
    if retention is None or retention.save_total_limit is None:
        return (), ""
    limit = retention.save_total_limit
    names = [c.name for c in hf]  # newest first
    best = state.best_checkpoint if state is not None and state.best_checkpoint in names \
        else None
    protected = {names[0], best} - {None}
    others = [name for name in names if name not in protected]
    kept = tuple(others[:max(limit, len(protected)) - len(protected)])
    with_best = (f" and the best by {retention.metric_for_best_model}"
                 if best and retention.metric_for_best_model else " and the best" if best else "")
    reason = (f"HF Trainer's training_args.bin (in {source}): save_total_limit={limit}"
              f"{' with load_best_model_at_end' if retention.load_best_model_at_end else ''} "
              f"keeps the newest {limit}{with_best}")
    if len(others) > len(kept):
        reason += f"; {len(others) - len(kept)} older ones are beyond that limit"
    return kept, reason


def hf_best(facts: HfFacts | None, by_name: dict[str, Artifact]
            ) -> tuple[Artifact, str, str | None, float | None, str | None] | None:
    """HF Trainer: the newest usable trainer_state.json names the best checkpoint; the
    metric and its direction are training_args.bin's when it is readable."""
    state = facts.state if facts else None
    if facts is None or state is None or not state.best_checkpoint \
            or state.best_checkpoint not in by_name:
        return None
    metric, mode = state.best_metric_name, direction(state.best_metric_name or "") or None
    retention = facts.retention
    if retention is not None and retention.metric_for_best_model:
        metric = retention.metric_for_best_model
        mode = ("max" if retention.greater_is_better else "min") \
            if retention.greater_is_better is not None else direction(metric)
    return (by_name[state.best_checkpoint], "trainer_state.json best_model_checkpoint", metric,
            state.best_metric, mode)


def hf_recorded(found: Candidate, state: TrainerState) -> dict[str, Any]:
    """HF Trainer checkpoints: epoch and evaluation at their step, from the run's log."""
    step = found.step
    if found.tool != "HF Trainer" or step is None or (
            step not in state.evals_by_step and step not in state.epochs_by_step):
        return {}
    epoch = state.epochs_by_step.get(step)
    named = found.parsed
    return {"epoch": int(epoch) if epoch is not None else named.epoch if named else None,
            "metrics": state.evals_by_step.get(step, named.metrics if named else ())}
