"""What Ray Tune's and Ray Train's own records say about a trial's checkpoint folders.

Ray keeps a trial's checkpoints as ``checkpoint_<index>/`` (Tune, and Ray Train before V2,
which runs as a Tune trial) or ``checkpoint_<date>/`` (Ray Train V2) with one checkpoint
manager per trial, configured by ``CheckpointConfig``. With ``num_to_keep=k`` it keeps the
best k by ``checkpoint_score_attribute`` (the newest k without one) and always the latest,
deleting the rest after every save: what it left is its own retention (see
:mod:`mlspace.classify.tool_facts`). The records (read by
:mod:`mlspace.classify.readers.ray_records`):

- Tune: the trial's checkpoint manager in the experiment's newest ``experiment_state-*.json``
  (config, kept checkpoints with their scores, the latest); checkpoints saved after that
  state was written (a run killed between two writes) are kept as Ray's too, ranked by their
  scores in the trial's ``result.json``. The latest is the highest index.
- Train V2: ``checkpoint_manager_snapshot.json`` (kept checkpoints in Ray's order, the
  latest). It does not record the config: the checkpoints are Ray's own retention when it
  reported more than it kept, and its order names the best only when it is not the order
  of the reports (the metric stays unnamed).

Without a readable record nothing is the tool's and the best is unknown; the advisor then
suggests nothing as safe (mlspace.advise.policies: a Ray folder may be a top-k).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from mlspace.classify.readers.ray_records import (
    RayCheckpointRecord,
    read_experiment_state,
    read_reported_scores,
    read_train_snapshot,
    read_trial_manager,
    score_of,
)
from mlspace.classify.tool_facts import FileIdentity, ToolFacts, file_identity, finite, rank_key

#: The tools whose checkpoint folders these records describe (the rules' tool names).
RAY_TOOLS = frozenset({"Ray Tune", "Ray Train"})
_TUNE_CHECKPOINT = re.compile(r"checkpoint_(\d{1,18})")
_EXPERIMENT_STATE = re.compile(r"experiment_state-.+\.json")
_SNAPSHOT = "checkpoint_manager_snapshot.json"
#: Most experiment_state files tried for a trial, newest first (one per session of a
#: restored experiment).
MAX_STATES = 3
#: Folders and experiment states whose reads are remembered (see series_lightning).
_REMEMBERED = 1024
_REMEMBERED_STATES = 16


def read_ray_facts(folder: str, names: list[str], children: set[str],
                   siblings: set[str]) -> ToolFacts | None:
    """What Ray's records say about the checkpoint folders ``names`` of ``folder``, whose
    entries are ``children`` and whose parent (a Tune experiment) holds ``siblings``; None
    when no record is readable."""
    if _SNAPSHOT in children:
        return _train_facts(tuple(sorted(names)), file_identity(os.path.join(folder, _SNAPSHOT)))
    parent = os.path.dirname(folder)
    states = sorted((n for n in siblings if _EXPERIMENT_STATE.fullmatch(n)), reverse=True)
    result = os.path.join(folder, "result.json")
    return _tune_facts(os.path.basename(folder), tuple(sorted(names)),
                       tuple(file_identity(os.path.join(parent, n)) for n in states[:MAX_STATES]),
                       file_identity(result) if "result.json" in children else None)


@lru_cache(maxsize=_REMEMBERED_STATES)
def _trials(state: FileIdentity) -> dict[str, str]:
    """An experiment_state's trials, parsed once for all the trials of the experiment (the
    file holds every trial's state and grows with their number)."""
    return read_experiment_state(state[0])


@lru_cache(maxsize=_REMEMBERED)
def _tune_facts(trial: str, names: tuple[str, ...], states: tuple[FileIdentity, ...],
                result: FileIdentity | None) -> ToolFacts | None:
    """A Tune trial's facts: its checkpoint manager's record, remembered for as long as the
    checkpoint folders and the records stay as they are (a rescan reads nothing again)."""
    record = next((found for state in states
                   if (found := _trial_record(state, trial)) is not None), None)
    index = {n: int(m.group(1)) for n in names if (m := _TUNE_CHECKPOINT.fullmatch(n))}
    if record is None or record.config is None or not index:
        return None
    config = record.config
    attribute, mode = config.score_attribute, config.score_order
    recorded = set(record.kept) | {record.latest}
    since = index.get(record.latest or "", -1)
    newer = [n for n in index if n not in recorded and index[n] > since]
    scores = {n: s for n, m in record.metrics.items()
              if attribute and (s := score_of(m, attribute)) is not None}
    source, reads = record.source, 1
    if newer and attribute and result is not None:
        reported = read_reported_scores(result[0], attribute)
        scores.update((n, reported[n]) for n in newer if n in reported)
        source, reads = f"{source} and result.json", 2
    kept = [n for n in dict.fromkeys([*record.kept, record.latest or "", *newer]) if n in index]
    if attribute:  # best first; of equal scores Ray ranks the later one better
        kept.sort(key=lambda n: (rank_key(scores.get(n), mode), -index[n]))
    else:
        kept.sort(key=index.__getitem__, reverse=True)
    best = kept[0] if kept and attribute and finite(scores.get(kept[0])) is not None else None
    value = scores[best] if best else None
    return ToolFacts(
        source=record.source, best=best,
        best_reason=f"Ray Tune's checkpoint manager in {source}: best {attribute} "
                    f"{value:.4g} ({mode})" if best and value is not None else "",
        metric=attribute, value=value, mode=mode if attribute else None,
        named=frozenset(n for n in (best, record.latest) if n in index),
        top_k=tuple(kept) if config.num_to_keep else (),
        top_k_ranked=bool(attribute) and all(n in scores for n in kept),
        top_k_newest_first=not attribute,
        top_k_reason=_tune_reason(record, len(newer)),
        scores={n: s for n, s in scores.items() if n in index}, files_read=reads,
    )


def _trial_record(state: FileIdentity, trial: str) -> RayCheckpointRecord | None:
    """``trial``'s checkpoint manager in one experiment_state, if it is there and readable."""
    hex_pickle = _trials(state).get(trial)
    return read_trial_manager(hex_pickle, os.path.basename(state[0])) \
        if hex_pickle is not None else None


def _tune_reason(record: RayCheckpointRecord, newer: int) -> str:
    config = record.config
    if config is None or config.num_to_keep is None:
        return ""
    k = config.num_to_keep
    if config.score_attribute:
        told = (f"Ray Tune's CheckpointConfig(num_to_keep={k}, checkpoint_score_attribute="
                f"'{config.score_attribute}', checkpoint_score_order='{config.score_order}') "
                f"in {record.source} keeps only its best {k} checkpoints by "
                f"{config.score_attribute} and the latest")
    else:
        told = (f"Ray Tune's CheckpointConfig(num_to_keep={k}) in {record.source} keeps only "
                f"its newest {k} checkpoints")
    if newer:
        told += f"; {newer} saved after that record are kept as Ray's too"
    return told


@lru_cache(maxsize=_REMEMBERED)
def _train_facts(names: tuple[str, ...], snapshot: FileIdentity) -> ToolFacts | None:
    """A Ray Train V2 run's facts from its snapshot. Where Ray deleted checkpoints, those it
    lists are its own retention, and so are those newer than its latest that it does not
    list yet (being saved, or saved by a run that stopped before recording them); older ones
    it does not list are not Ray's (an earlier run's)."""
    record = read_train_snapshot(snapshot[0])
    if record is None:
        return None
    present = set(names)
    newer = [n for n in names if n not in record.kept and n > (record.latest or "")]
    ordered = [n for n in reversed(record.kept) if n in present]  # best (or newest) first
    best = ordered[0] if record.ranked_by_score and ordered else None
    latest = record.latest if record.latest in present else None
    reported = record.reported or 0
    told = "the best by a score the record does not name" if record.ranked_by_score \
        else "the newest"
    return ToolFacts(
        source=record.source, best=best,
        best_reason=f"Ray Train's {record.source} ranks it best (the metric is not recorded)"
        if best else "",
        metric=None, value=None, mode=None,
        named=frozenset(n for n in (best, latest) if n),
        top_k=tuple(newer + ordered) if reported > len(record.kept) else (),
        top_k_ranked=False, top_k_newest_first=not record.ranked_by_score,
        top_k_reason=f"Ray Train's {record.source}: of {reported} checkpoints reported, "
                     f"CheckpointConfig(num_to_keep) kept only these {len(record.kept)} "
                     f"({told}, and the latest)",
        scores={}, files_read=1, latest=latest,
        latest_reason=f"Ray Train's {record.source} names it the latest" if latest else "",
    )
