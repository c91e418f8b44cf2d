"""What timm's ``train.py`` records about the checkpoints of its output folder, read as data.

timm's ``CheckpointSaver`` (``timm/utils/checkpoint_saver.py``) writes ``last.pth.tar`` every
epoch and keeps a numbered ``checkpoint-<epoch>.pth.tar`` only for the best
``--checkpoint-hist`` epochs by ``--eval-metric`` (``top1`` by default; lower is better only
for ``loss``), deleting the worst beyond that; ``model_best.pth.tar`` is the best epoch's
save. Three records say which files those are and how they rank (ml-layouts.md §3.8):

- every ``.pth.tar`` is a ``torch.save`` of a dict with ``epoch``, ``metric``, the run's
  ``args`` (an ``argparse.Namespace``, holding ``checkpoint_hist`` and ``eval_metric``) and,
  since timm 1.0.20 or so, the saver's own ``saver`` state: ``checkpoint_files`` (the kept
  files with their scores, best first), ``best_epoch``, ``best_metric``, and ``pending`` (the
  epoch and score being saved, not yet among ``checkpoint_files``). It is read by
  :mod:`mlspace.classify.readers.torch_archive`: nothing in it is imported or called;
- ``args.yaml``: ``yaml.safe_dump(vars(args))``, flat ``key: value`` lines;
- ``summary.csv``: one row per epoch, ``epoch``, ``train_*``, ``eval_<metric>``, ``lr``.

Each reader answers None (or nothing) for a record that is missing, malformed or out of
bounds: a record is a hint, never a reason to fail a scan.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass

from mlspace.classify.readers.pickle_values import Opaque
from mlspace.classify.readers.records import json_number, read_text
from mlspace.classify.readers.torch_archive import DATA_ERRORS, open_torch_file

#: Most entries of the saver's ``checkpoint_files`` kept (timm's default history is 10).
MAX_HISTORY = 10_000
#: Largest args.yaml / summary.csv read (a 10,000-epoch summary is about a megabyte).
MAX_TEXT_BYTES = 4 * 2**20


@dataclass(frozen=True)
class TimmArgs:
    """The two settings of a timm run that decide what its CheckpointSaver keeps."""

    checkpoint_hist: int | None  # --checkpoint-hist, the saver's max_history
    eval_metric: str | None  # --eval-metric: the metric the saver ranks by


@dataclass(frozen=True)
class TimmCheckpoint:
    """What one ``.pth.tar`` that timm's CheckpointSaver wrote records."""

    epoch: int | None
    metric: float | None  # this save's score under the eval metric
    args: TimmArgs
    #: The saver's kept files (basename, score), best first, before this save was ranked.
    history: tuple[tuple[str, float | None], ...]
    best_epoch: int | None
    best_metric: float | None
    pending: tuple[int, float | None] | None  # (epoch, score) of this save, not yet ranked
    has_saver_state: bool


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score(value: object) -> float | None:
    """A recorded score as a float (an int, float or numpy scalar read as one), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int too large for a float
        return None


def _args(value: object) -> TimmArgs:
    """``args``: an argparse.Namespace (its BUILD state is the dict of arguments)."""
    fields = value.state if isinstance(value, Opaque) else value
    if not isinstance(fields, dict):
        return TimmArgs(None, None)
    hist = _int(fields.get("checkpoint_hist"))
    metric = fields.get("eval_metric")
    return TimmArgs(hist if hist is not None and hist >= 1 else None,
                    metric[:256] if isinstance(metric, str) and metric else None)


def _history(value: object) -> tuple[tuple[str, float | None], ...]:
    if not isinstance(value, list):
        return ()
    kept = []
    for item in value[:MAX_HISTORY]:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            kept.append((item[0].replace("\\", "/").rsplit("/", 1)[-1], _score(item[1])))
    return tuple(kept)


def _pending(value: object) -> tuple[int, float | None] | None:
    """The saver's ``pending`` (epoch, score): the save being written, ranked after it."""
    if not (isinstance(value, tuple) and len(value) == 2):
        return None
    epoch = _int(value[0])
    return (epoch, _score(value[1])) if epoch is not None else None


def read_timm_checkpoint(path: str) -> TimmCheckpoint | None:
    """The record in ``path``, or None when it is not a readable torch file holding a dict
    with an ``epoch`` (what every CheckpointSaver save has)."""
    try:
        with open_torch_file(path) as (top, _storages):
            if not isinstance(top, dict) or _int(top.get("epoch")) is None:
                return None
            saver = top.get("saver")
            state = saver if isinstance(saver, dict) else {}
            return TimmCheckpoint(
                epoch=_int(top.get("epoch")),
                metric=_score(top.get("metric")),
                args=_args(top.get("args")),
                history=_history(state.get("checkpoint_files")),
                best_epoch=_int(state.get("best_epoch")),
                best_metric=_score(state.get("best_metric")),
                pending=_pending(state.get("pending")),
                has_saver_state=bool(state),
            )
    except DATA_ERRORS:
        return None


_YAML_LINE = re.compile(r"(checkpoint_hist|eval_metric):[ \t]*(.*?)[ \t]*")


def read_timm_args(path: str) -> TimmArgs | None:
    """``checkpoint_hist`` and ``eval_metric`` from an ``args.yaml`` (top-level keys only;
    mlspace parses no YAML it does not need to), or None when neither is there."""
    text = read_text(path, limit=MAX_TEXT_BYTES)
    if not text:
        return None
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _YAML_LINE.fullmatch(line)
        if match:
            found.setdefault(match.group(1), match.group(2).strip("'\""))
    hist = found.get("checkpoint_hist", "")
    metric = found.get("eval_metric") or None
    args = TimmArgs(int(hist) if hist.isascii() and hist.isdigit() and 0 < len(hist) <= 9
                    and int(hist) >= 1 else None, metric[:256] if metric else None)
    return args if args.checkpoint_hist is not None or args.eval_metric is not None else None


def read_timm_summary(path: str, column: str) -> dict[int, float]:
    """``column`` of a ``summary.csv`` by epoch (finite values only; a later row for the same
    epoch, as a resumed run writes, replaces an earlier one)."""
    text = read_text(path, limit=MAX_TEXT_BYTES)
    if not text:
        return {}
    by_epoch: dict[int, float] = {}
    try:
        for row in csv.DictReader(io.StringIO(text)):
            epoch, value = (row.get("epoch") or "").strip(), row.get(column)
            if not (epoch.isascii() and epoch.isdigit() and len(epoch) <= 9) or value is None:
                continue
            try:
                score = json_number(float(value))
            except ValueError:
                continue
            if score is not None and math.isfinite(score):
                by_epoch[int(epoch)] = float(score)
    except csv.Error:
        return by_epoch
    return by_epoch


__all__ = ["TimmArgs", "TimmCheckpoint", "read_timm_args", "read_timm_checkpoint",
           "read_timm_summary"]
