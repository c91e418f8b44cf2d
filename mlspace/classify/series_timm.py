"""What a timm run's own records say about the checkpoints of its output folder.

timm's CheckpointSaver keeps ``checkpoint-<epoch>.pth.tar`` only for its best
``--checkpoint-hist`` epochs by the eval metric and deletes the rest, so every numbered file
it left is one of its top-k: the tool has done the retention (see
:mod:`mlspace.classify.tool_facts`). That holds by its naming alone; the records then say
how many it keeps, by which metric, and how the files rank (read by
:mod:`mlspace.classify.readers.timm_records`):

- the saver's state in ``last.pth.tar`` (else in the newest numbered file): the kept files
  with their scores, the best epoch and score, and the save being written (``pending``);
- the run's ``args.yaml`` (``checkpoint_hist``, ``eval_metric``) and ``summary.csv`` (the
  eval metric per epoch), which a timm too old to record its saver's state also writes.

More numbered files than ``--checkpoint-hist`` (a run resumed with a smaller history, or
saves of an earlier run) are not all the tool's: then only the best k by the recorded scores
are, and when the scores do not rank them all, every one is kept as the tool's.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from mlspace.classify.readers.timm_records import (
    TimmArgs,
    TimmCheckpoint,
    read_timm_args,
    read_timm_checkpoint,
    read_timm_summary,
)
from mlspace.classify.tool_facts import FileIdentity, ToolFacts, file_identity, finite, rank_key

_NUMBERED = re.compile(r"checkpoint-(\d{1,9})\.pth\.tar")
_LAST, _BEST = "last.pth.tar", "model_best.pth.tar"
#: Most ``.pth.tar`` files read for the saver's state (last.pth.tar, then the newest ones).
MAX_FOLDER_FILES = 3
#: Folders whose facts are remembered (see series_lightning).
_REMEMBERED = 1024


def read_timm_facts(folder: str, paths: list[str], children: set[str]) -> ToolFacts | None:
    """What the records say about the timm checkpoints ``paths`` of ``folder`` (whose
    entries are ``children``), or None when none of them is one the saver ranks."""
    records = tuple(file_identity(os.path.join(folder, name))
                    for name in ("args.yaml", "summary.csv") if name in children)
    return _facts(tuple(file_identity(path) for path in paths), records)


@lru_cache(maxsize=_REMEMBERED)
def _facts(files: tuple[FileIdentity, ...], records: tuple[FileIdentity, ...]
           ) -> ToolFacts | None:
    by_name = {os.path.basename(path): path for path, *_ in files}
    numbered = {name: int(match.group(1)) for name in by_name
                if (match := _NUMBERED.fullmatch(name))}
    if not numbered:
        return None
    record, source, reads = _saver_record(by_name, numbered)
    yaml_args = next((read_timm_args(path) for path, *_ in records
                      if path.endswith("args.yaml")), None)
    args = _merged(record.args if record else None, yaml_args)
    metric = f"eval_{args.eval_metric}" if args.eval_metric else None
    mode = ("min" if args.eval_metric == "loss" else "max") if args.eval_metric else None
    summary: dict[int, float] = {}
    if metric is not None:
        summary = next((read_timm_summary(path, metric) for path, *_ in records
                        if path.endswith("summary.csv")), {})
    scores = _scores(numbered, summary, record)
    best_epoch, value = _best(summary, record, mode)
    epochs: dict[str, int] = {}
    if record is not None and record.epoch is not None and source == _LAST:
        epochs[_LAST] = record.epoch
    if best_epoch is not None and _BEST in by_name:
        epochs[_BEST] = best_epoch
        if value is not None:
            scores[_BEST] = value
    if record is not None and record.metric is not None and source == _LAST:
        scores[_LAST] = record.metric
    top_k, ranked = _top_k(numbered, scores, mode, args.checkpoint_hist)
    best = _BEST if _BEST in by_name else f"checkpoint-{best_epoch}.pth.tar"
    if best_epoch is None or best not in by_name:
        best = None
    named = {n for n in (_LAST, f"checkpoint-{best_epoch}.pth.tar",
                         f"checkpoint-{epochs.get(_LAST)}.pth.tar") if n in by_name}
    where = source or ("summary.csv" if summary else "")
    told_best = f"CheckpointSaver state in {source}" if record and record.has_saver_state \
        else "summary.csv"
    return ToolFacts(
        source=where, best=best,
        best_reason=f"timm {told_best}: best {metric} {value:.4g} (epoch {best_epoch})"
        if best and value is not None else "",
        metric=metric, value=value if best else None, mode=mode, named=frozenset(named),
        top_k=top_k, top_k_ranked=ranked,
        top_k_reason=_reason(where, args, mode, len(top_k), len(numbered)),
        scores={name: s for name, s in scores.items() if finite(s) is not None},
        files_read=reads, epochs=epochs,
    )


def _saver_record(by_name: dict[str, str], numbered: dict[str, int]
                  ) -> tuple[TimmCheckpoint | None, str, int]:
    """The newest readable save: ``last.pth.tar``, else the numbered files, newest epoch
    first; with the name it was read from and how many files were read."""
    order = [_LAST] if _LAST in by_name else []
    order += sorted(numbered, key=numbered.__getitem__, reverse=True)
    for reads, name in enumerate(order[:MAX_FOLDER_FILES], start=1):
        record = read_timm_checkpoint(by_name[name])
        if record is not None:
            return record, name, reads
    return None, "", min(len(order), MAX_FOLDER_FILES)


def _merged(recorded: TimmArgs | None, written: TimmArgs | None) -> TimmArgs:
    """The run's settings: the saved ``args`` first (what the saver ran with), args.yaml
    for what they lack."""
    first, second = recorded or TimmArgs(None, None), written or TimmArgs(None, None)
    return TimmArgs(first.checkpoint_hist or second.checkpoint_hist,
                    first.eval_metric or second.eval_metric)


def _scores(numbered: dict[str, int], summary: dict[int, float],
            record: TimmCheckpoint | None) -> dict[str, float]:
    """Each numbered file's score: summary.csv's row for its epoch, replaced by what the
    saver itself recorded (its kept files, and the save it was writing)."""
    scores = {name: summary[epoch] for name, epoch in numbered.items() if epoch in summary}
    if record is not None:
        scores.update((name, s) for name, s in record.history
                      if name in numbered and s is not None)
        if record.pending is not None and record.pending[1] is not None:
            name = f"checkpoint-{record.pending[0]}.pth.tar"
            if name in numbered:
                scores[name] = record.pending[1]
    return scores


def _best(summary: dict[int, float], record: TimmCheckpoint | None, mode: str | None
          ) -> tuple[int | None, float | None]:
    """The best epoch and score: the saver's, or the save it was writing when that beat it
    (timm compares strictly, so the earlier epoch keeps a tie); else summary.csv's."""
    if record is not None and record.has_saver_state:
        best = (record.best_epoch, record.best_metric)
        pending = record.pending
        if pending is not None and pending[1] is not None and mode is not None and (
                best[1] is None or rank_key(pending[1], mode) < rank_key(best[1], mode)):
            best = pending
        return best
    if summary and mode is not None:
        epoch = min(summary, key=lambda e: (rank_key(summary[e], mode), e))
        return epoch, summary[epoch]
    return None, None


def _top_k(numbered: dict[str, int], scores: dict[str, float], mode: str | None,
           history: int | None) -> tuple[tuple[str, ...], bool]:
    """The numbered files the saver keeps, best first when the scores rank them all (ties:
    the earlier epoch first, as timm keeps it)."""
    ranked = mode is not None and all(name in scores for name in numbered)
    if not ranked:
        return tuple(sorted(numbered, key=numbered.__getitem__, reverse=True)), False
    order = sorted(numbered, key=lambda n: (rank_key(scores[n], mode or "max"), numbered[n]))
    return tuple(order[:history] if history else order), True


def _reason(source: str, args: TimmArgs, mode: str | None, kept: int, numbered: int) -> str:
    how = f" by {args.eval_metric}, {mode}" if args.eval_metric and mode else ""
    hist = f"--checkpoint-hist {args.checkpoint_hist}" if args.checkpoint_hist \
        else "--checkpoint-hist"
    where = f" ({source})" if source else ""
    told = (f"timm CheckpointSaver{where}: {hist} keeps checkpoint-<epoch>.pth.tar only for "
            f"its best epochs{how}")
    if kept < numbered:
        told += f"; {numbered - kept} more numbered files rank below them"
    return told
