"""What Ray Tune and Ray Train record about the checkpoints they keep, read as data.

Both keep a trial's checkpoints with one ``_CheckpointManager`` (``ray.train._internal.
checkpoint_manager``), configured by ``CheckpointConfig(num_to_keep,
checkpoint_score_attribute, checkpoint_score_order)``: after each save it keeps the best
``num_to_keep`` by the score attribute (the newest ones without one) and always the latest,
and deletes the rest. Its state is its record (seen in ray 2.60 runs, tests/fixtures/ray):

- **Ray Tune** (and Ray Train before V2, which runs as a Tune trial) writes
  ``<experiment>/experiment_state-<date>.json``: per trial, the trial's JSON (its folder is
  ``relative_logdir``) and its run metadata, whose ``checkpoint_manager`` is the manager
  cloudpickled, as hex (``{"_type": "CLOUDPICKLE_FALLBACK", "value": "8005..."}``). That
  pickle holds the config and ``_checkpoint_results``, the kept checkpoints worst first with
  their reported metrics, and ``_latest_checkpoint_result``. It is walked by
  :mod:`mlspace.classify.readers.inert_pickle`: nothing in it is imported or called. The
  experiment state is written every few seconds, so a run that was killed may have saved
  checkpoints after it: each trial's ``result.json`` (one JSON line per report, with
  ``checkpoint_dir_name`` when the report saved one) gives their scores.
- **Ray Train V2** writes ``checkpoint_manager_snapshot.json`` beside its checkpoints, plain
  JSON: the kept checkpoints in the manager's order with their metrics and report indices,
  the latest, and how many checkpoints were reported. The config itself is not recorded.

Each reader answers None (or nothing) for a record that is missing, malformed or out of
bounds: a record is a hint, never a reason to fail a scan.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass

from mlspace.classify.readers.inert_pickle import PICKLE_ERRORS, Machine
from mlspace.classify.readers.pickle_values import Opaque
from mlspace.classify.readers.records import json_number, read_json, read_text

#: Most checkpoints of one record kept (a trial that keeps every checkpoint of a long run).
MAX_RESULTS = 100_000


@dataclass(frozen=True)
class RayCheckpointConfig:
    """``CheckpointConfig``'s retention settings."""

    num_to_keep: int | None  # None: Ray keeps every checkpoint
    score_attribute: str | None  # None: ranked by recency
    score_order: str  # "min" or "max"


@dataclass(frozen=True)
class RayCheckpointRecord:
    """A checkpoint manager's record of one trial's (or Ray Train run's) checkpoints, by the
    names of their folders."""

    source: str  # the record file's name
    config: RayCheckpointConfig | None  # None where Ray does not record it (Train V2)
    kept: tuple[str, ...]  # the checkpoints it keeps, in its own order: worst first, best last
    latest: str | None
    metrics: dict[str, dict]  # name -> the metrics reported with it
    #: Ray Train V2: its order is by a score (it differs from the order of the reports).
    ranked_by_score: bool = False
    #: Ray Train V2: how many checkpoints were reported (more than are kept: Ray deleted
    #: some).
    reported: int | None = None


def _name(value: object) -> str | None:
    """A checkpoint folder's name from a recorded path (as the training process saw it)."""
    if not isinstance(value, str) or not value.strip("/\\"):
        return None
    return value.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1][:1024]


def score_of(metrics: dict, attribute: str) -> float | None:
    """``attribute`` of reported ``metrics`` as Ray looks it up (nested results flattened
    with "/"), a finite number or None."""
    value: object = metrics.get(attribute)
    if value is None and "/" in attribute:
        value = metrics
        for part in attribute.split("/"):
            value = value.get(part) if isinstance(value, dict) else None
    number = json_number(value)
    return float(number) if number is not None else None


def _config(value: object) -> RayCheckpointConfig | None:
    fields = value.state if isinstance(value, Opaque) else None
    if not isinstance(fields, dict):
        return None
    keep, attribute = fields.get("num_to_keep"), fields.get("checkpoint_score_attribute")
    order = fields.get("checkpoint_score_order")
    if order not in ("min", "max"):
        return None
    return RayCheckpointConfig(
        keep if isinstance(keep, int) and not isinstance(keep, bool) and keep >= 1 else None,
        attribute[:256] if isinstance(attribute, str) and attribute else None, order)


def _training_result(value: object) -> tuple[str, dict] | None:
    """(checkpoint folder name, metrics) of a pickled ``_TrainingResult``."""
    fields = value.state if isinstance(value, Opaque) else None
    if not isinstance(fields, dict):
        return None
    checkpoint = fields.get("checkpoint")
    metrics = fields.get("metrics")
    metrics = metrics if isinstance(metrics, dict) else {}
    where = checkpoint.state if isinstance(checkpoint, Opaque) else None
    name = _name(where.get("path")) if isinstance(where, dict) else None
    name = name or _name(metrics.get("checkpoint_dir_name"))
    return (name, metrics) if name else None


def read_trial_manager(hex_pickle: str, source: str) -> RayCheckpointRecord | None:
    """The record in a trial's cloudpickled ``_CheckpointManager`` (as
    :func:`read_experiment_state` gives it; ``source``: the file it was read from), walked as
    data."""
    try:
        top = Machine().load(io.BytesIO(bytes.fromhex(hex_pickle)))
    except PICKLE_ERRORS:
        return None
    state = top.state if isinstance(top, Opaque) else None
    if not isinstance(state, dict):
        return None
    config = _config(state.get("_checkpoint_config"))
    results = state.get("_checkpoint_results")
    if config is None or not isinstance(results, list):
        return None
    kept = [found for found in map(_training_result, results[:MAX_RESULTS]) if found]
    latest = _training_result(state.get("_latest_checkpoint_result"))
    metrics = dict(kept)
    if latest is not None:
        metrics.setdefault(*latest)
    return RayCheckpointRecord(source, config, tuple(name for name, _ in kept),
                               latest[0] if latest else None, metrics)


def read_experiment_state(path: str) -> dict[str, str]:
    """Trial folder -> its checkpoint manager's hex pickle, from an
    ``experiment_state-*.json`` (each trial's entry is a pair of JSON texts: the trial, then
    its run metadata). Decoding a pickle is left to :func:`read_trial_manager`, for the
    trials that are looked at."""
    data = read_json(path)
    entries = data.get("trial_data") if isinstance(data, dict) else None
    found: dict[str, str] = {}
    for entry in entries if isinstance(entries, list) else ():
        if not (isinstance(entry, list) and len(entry) == 2
                and all(isinstance(part, str) for part in entry)):
            continue
        try:
            trial, meta = json.loads(entry[0]), json.loads(entry[1])
        except (ValueError, RecursionError):
            continue
        folder = _name(trial.get("relative_logdir")) if isinstance(trial, dict) else None
        manager = meta.get("checkpoint_manager") if isinstance(meta, dict) else None
        value = manager.get("value") if isinstance(manager, dict) else None
        if folder and isinstance(value, str):
            found[folder] = value
    return found


def read_reported_scores(path: str, attribute: str) -> dict[str, float]:
    """Checkpoint folder -> ``attribute`` as reported with it, from a trial's ``result.json``
    (a later report for the same folder, as a restored trial writes, replaces an earlier
    one). Lines that are not JSON objects are skipped, so a line cut short by a crash costs
    only itself."""
    text = read_text(path)
    scores: dict[str, float] = {}
    for line in (text or "").splitlines():
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        name = _name(row.get("checkpoint_dir_name")) if isinstance(row, dict) else None
        score = score_of(row, attribute) if name else None
        if name and score is not None:
            scores[name] = score
    return scores


def _dir_names(results: object) -> list[tuple[str, dict]]:
    """(checkpoint folder, metrics) of each ``_TrainingResultState`` of a V2 snapshot."""
    found = []
    for result in results[:MAX_RESULTS] if isinstance(results, list) else ():
        name = _name(result.get("checkpoint_dir_name")) if isinstance(result, dict) else None
        if name:
            metrics = result.get("metrics")
            found.append((name, metrics if isinstance(metrics, dict) else {}))
    return found


def read_train_snapshot(path: str) -> RayCheckpointRecord | None:
    """Ray Train V2's ``checkpoint_manager_snapshot.json``, or None when it is not one.

    Its kept checkpoints are in the manager's order, which is the order of their reports
    unless a score ranks them: an order the report indices do not follow is a ranking by
    score, best last. It keeps checkpoints waiting for validation too."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("checkpoint_results"), list):
        return None
    kept = _dir_names(data["checkpoint_results"])
    names = tuple(dict.fromkeys([name for name, _ in kept] + [
        name for name, _ in _dir_names(data.get("pending_training_results"))]))
    latest = _dir_names([data.get("latest_checkpoint_result")])
    indices = data.get("checkpoint_report_indices")
    indices = [json_number(i) for i in indices] if isinstance(indices, list) else []
    known = len(indices) == len(kept) and None not in indices
    reported = json_number(data.get("current_report_index"))
    return RayCheckpointRecord(
        os.path.basename(path), None, names, latest[0][0] if latest else None, dict(kept),
        ranked_by_score=known and indices != sorted(indices),
        reported=reported if isinstance(reported, int) else None)


__all__ = ["RayCheckpointConfig", "RayCheckpointRecord", "read_experiment_state",
           "read_reported_scores", "read_train_snapshot", "read_trial_manager", "score_of"]
