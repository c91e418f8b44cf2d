"""What a PyTorch Lightning ``.ckpt`` says about its run's checkpoints, read without unpickling.

Lightning's ``ModelCheckpoint`` callback records in every checkpoint it writes which file is the
best so far, the scores of the top-k files, the k-th worst of them and the path of
``last.ckpt`` (``checkpoint["callbacks"]["ModelCheckpoint{...}"]``). That is exactly what a
cleanup must know to never remove the best or latest checkpoint, and it is more trustworthy
than a metric parsed out of a file name. But a ``.ckpt`` is a pickle, and unpickling (or
``torch.load``) a user's file runs whatever code it names; mlspace also needs no ML framework.
So the file is read as *data* by :mod:`mlspace.classify.readers.torch_archive` (nothing in it
is imported, constructed or called), and this module picks the callback states out of the
plain values: a score that is a one-element tensor is read from its storage, at most
:data:`MAX_SCORES` of them per file. Anything malformed or out of bounds makes the read
answer ``None``, never raise: a checkpoint's record is a hint, not a reason to fail a scan.

Lightning before 1.5 keyed ``callbacks`` by the callback class (a pickled global, read here
as an :class:`Opaque` named ``...ModelCheckpoint``), and Lightning 0.8-0.9 stored
``checkpoint_callback_best_model_path``/``_score`` at the top level: both are understood.

A folder's state comes from as few files as possible (:func:`read_folder_state`: normally
``last.ckpt`` alone). Paths in the state are as the training process saw them (absolute on
the training machine, or relative to its working directory): :func:`iter_recorded_files`
maps them to files that are actually here by comparing path suffixes
(:mod:`mlspace.classify.readers.recorded_paths`).
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from mlspace.classify.readers.inert_pickle import Malformed
from mlspace.classify.readers.pickle_values import Opaque
from mlspace.classify.readers.recorded_paths import by_basename, common_suffix, matches, parts
from mlspace.classify.readers.torch_archive import (
    DATA_ERRORS,
    Storages,
    TensorRef,
    open_torch_file,
)

#: Most scores read from storages in one file (a ``save_top_k=-1`` run records one per file).
MAX_SCORES = 10_000
#: Most ModelCheckpoint states kept from one file.
MAX_STATES = 64
#: Most ``.ckpt`` files :func:`read_folder_state` tries before giving up on a folder.
MAX_FOLDER_FILES = 8

# ---------------------------------------------------------------------------------------------
# What is read


@dataclass(frozen=True)
class LightningCheckpointState:
    """One ``ModelCheckpoint`` callback's state as saved in a checkpoint. Paths are as the
    training process recorded them (see :func:`match_recorded_path`), None when empty or
    absent (Lightning records "" for a last.ckpt it never wrote); scores are floats (possibly
    inf or nan), None when absent or unreadable (not a one-element tensor or number, or a
    dtype not read)."""

    state_key: str  # "ModelCheckpoint{'monitor': ...}", or the class name (Lightning < 1.5)
    monitor: str | None
    mode: str | None  # "min" or "max"; None when neither the key nor the scores tell
    best_model_path: str | None
    best_model_score: float | None
    current_score: float | None
    best_k_models: tuple[tuple[str, float | None], ...]  # in the order they were recorded
    kth_best_model_path: str | None
    kth_value: float | None
    last_model_path: str | None
    dirpath: str | None

    def recorded_paths(self) -> tuple[str, ...]:
        """Every checkpoint path this state names, best first, without repeats."""
        paths = [self.best_model_path, *(path for path, _ in self.best_k_models),
                 self.kth_best_model_path, self.last_model_path]
        return tuple(dict.fromkeys(path for path in paths if path))


@dataclass(frozen=True)
class LightningCheckpointFile:
    """What one ``.ckpt`` holds that mlspace uses: every ModelCheckpoint state in it (in the
    order the file lists them; several when a run had several ModelCheckpoint callbacks,
    none for a checkpoint written without one or by plain ``torch.save``)."""

    path: str
    epoch: int | None
    global_step: int | None
    lightning_version: str | None
    states: tuple[LightningCheckpointState, ...]

    def state_for(self, folder: str | None = None,
                  files: Iterable[str] = ()) -> LightningCheckpointState | None:
        """The state that describes ``folder`` (default: the folder of this file). With
        several callbacks it is the one whose ``dirpath`` shares the longest path suffix with
        the folder, then the one naming most of ``files`` (paths of the files that are there),
        then one that monitors a metric, then the first."""
        if not self.states:
            return None
        folder_parts = parts(folder if folder is not None else os.path.dirname(self.path))
        present = by_basename(files)

        def rank(state: LightningCheckpointState) -> tuple[int, int, int]:
            suffix = common_suffix(parts(state.dirpath or ""), folder_parts)
            named = sum(1 for _ in matches(state.recorded_paths(), present))
            return suffix, named, state.monitor is not None

        return max(self.states, key=rank)  # max keeps the first of equals


@dataclass(frozen=True)
class FolderState:
    """The ModelCheckpoint state chosen for a folder, and the file it was read from."""

    source: LightningCheckpointFile
    state: LightningCheckpointState


_KEY_MODE = re.compile(r"""['"]mode['"]\s*:\s*['"](min|max)['"]""")
_KEY_MONITOR = re.compile(r"""['"]monitor['"]\s*:\s*'((?:[^'\\]|\\.)*)'""")
_STATE_FIELDS = ("best_model_path", "best_k_models", "best_model_score", "kth_best_model_path",
                 "last_model_path")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Scores:
    """Turns recorded scores into floats, reading at most :data:`MAX_SCORES` elements."""

    def __init__(self, storages: Storages) -> None:
        self._storages = storages
        self._left = MAX_SCORES

    def __call__(self, value: object) -> float | None:
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, float):
            return value
        if isinstance(value, int):
            return float(value) if abs(value) < 2**1000 else None
        if not isinstance(value, TensorRef) or math.prod(value.size) != 1:
            return None
        self._left -= 1
        if self._left < 0:
            raise Malformed("too many scores")
        return self._storages.element(value.storage, value.offset)


def _mode(key_mode: str | None, best: float | None, kth: float | None,
          best_k: tuple[tuple[str, float | None], ...]) -> str | None:
    """The configured mode: from the state key when it says; else from the scores (the best
    is below the k-th for "min"; before top-k fills up, kth_value is still +inf for "min"
    and -inf for "max", as Lightning initialises it)."""
    if key_mode is not None:
        return key_mode
    if kth is not None and not math.isnan(kth):
        if best is not None and not math.isnan(best) and best != kth:
            return "min" if best < kth else "max"
        if best is None and math.isinf(kth):
            return "min" if kth > 0 else "max"
    scores = {score for _, score in best_k if score is not None and not math.isnan(score)}
    if best is not None and len(scores) > 1:
        if best == min(scores):
            return "min"
        if best == max(scores):
            return "max"
    return None


def _state(key: object, value: dict, score: _Scores) -> LightningCheckpointState:
    if isinstance(key, str):
        state_key = key
    elif isinstance(key, Opaque):
        state_key = key.name.rpartition(" ")[2]
    else:
        state_key = "ModelCheckpoint"
    key_text = state_key[:4096]
    mode_match = _KEY_MODE.search(key_text)
    monitor = _text(value.get("monitor"))
    if monitor is None and (found := _KEY_MONITOR.search(key_text)):
        monitor = found.group(1)
    best_k: list[tuple[str, float | None]] = []
    recorded = value.get("best_k_models")
    if isinstance(recorded, dict):
        for path, recorded_score in recorded.items():
            if isinstance(path, str):
                best_k.append((path, score(recorded_score)))
    best = score(value.get("best_model_score"))
    kth = score(value.get("kth_value"))
    top_k = tuple(best_k)
    return LightningCheckpointState(
        state_key=state_key,
        monitor=monitor,
        mode=_mode(mode_match.group(1) if mode_match else None, best, kth, top_k),
        best_model_path=_text(value.get("best_model_path")) or None,
        best_model_score=best,
        current_score=score(value.get("current_score")),
        best_k_models=top_k,
        kth_best_model_path=_text(value.get("kth_best_model_path")) or None,
        kth_value=kth,
        last_model_path=_text(value.get("last_model_path")) or None,
        dirpath=_text(value.get("dirpath")) or None,
    )


def _is_checkpoint_key(key: object) -> bool:
    if isinstance(key, Opaque):
        return key.is_global and key.name.endswith("ModelCheckpoint")
    return isinstance(key, str)


def _states(top: dict, score: _Scores) -> tuple[LightningCheckpointState, ...]:
    states: list[LightningCheckpointState] = []
    callbacks = top.get("callbacks")
    if isinstance(callbacks, dict):
        for key, value in callbacks.items():
            if (isinstance(value, dict) and _is_checkpoint_key(key)
                    and any(name in value for name in _STATE_FIELDS)):
                states.append(_state(key, value, score))
                if len(states) >= MAX_STATES:
                    break
    if not states and ("checkpoint_callback_best_model_path" in top
                       or "checkpoint_callback_best_model_score" in top
                       or "checkpoint_callback_best" in top):  # Lightning 0.7-0.9
        best = score(top.get("checkpoint_callback_best_model_score",
                             top.get("checkpoint_callback_best")))
        states.append(LightningCheckpointState(
            state_key="ModelCheckpoint", monitor=None, mode=None,
            best_model_path=_text(top.get("checkpoint_callback_best_model_path")) or None,
            best_model_score=best, current_score=None, best_k_models=(),
            kth_best_model_path=None, kth_value=None, last_model_path=None, dirpath=None))
    return tuple(states)


def _read(path: str) -> LightningCheckpointFile | None:
    with open_torch_file(path) as (top, storages):
        if not isinstance(top, dict):
            return LightningCheckpointFile(path, None, None, None, ())
        version = top.get("pytorch-lightning_version")
        return LightningCheckpointFile(
            path=path,
            epoch=_int(top.get("epoch")),
            global_step=_int(top.get("global_step")),
            lightning_version=version[:64] if isinstance(version, str) else None,
            states=_states(top, _Scores(storages)),
        )


# ---------------------------------------------------------------------------------------------
# Public API


def read_checkpoint_file(path: str) -> LightningCheckpointFile | None:
    """What ``path`` records, or None when it is not a readable torch checkpoint (not a
    regular file, malformed, out of bounds). A readable checkpoint without a ModelCheckpoint
    state gives a file with no states."""
    try:
        return _read(path)
    except DATA_ERRORS:
        return None


def read_model_checkpoint_state(path: str) -> LightningCheckpointState | None:
    """The ModelCheckpoint state ``path`` records for its own folder (see
    :meth:`LightningCheckpointFile.state_for` for which one when there are several)."""
    found = read_checkpoint_file(path)
    return found.state_for() if found is not None else None


# Lightning's CHECKPOINT_NAME_LAST, with the -vN it adds when the name is taken.
_LAST_NAME = re.compile(r"(?:.*[-_])?last(?:-v\d+)?\.ckpt", re.IGNORECASE)


def _newest_first(paths: Iterable[str]) -> list[str]:
    """``.ckpt`` regular files, ``last*.ckpt`` first, then newest first (by mtime)."""
    found: list[tuple[bool, float, str]] = []
    for path in paths:
        if not path.lower().endswith(".ckpt"):
            continue
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            is_last = _LAST_NAME.fullmatch(os.path.basename(path)) is not None
            found.append((not is_last, -info.st_mtime, path))
    return [path for *_, path in sorted(found)]


def read_folder_state(paths: Iterable[str], *,
                      max_files: int = MAX_FOLDER_FILES) -> FolderState | None:
    """The ModelCheckpoint state of a folder, given the paths of the files in it: read from
    ``last.ckpt`` when it is readable (it is written after the top-k files, so it is the
    latest), else from the newest ``.ckpt`` that holds one; at most ``max_files`` files are
    tried. The state picked is the one that names the most of these files (see
    :meth:`LightningCheckpointFile.state_for`)."""
    listed = list(paths)
    for path in _newest_first(listed)[:max_files]:
        found = read_checkpoint_file(path)
        if found is not None and found.states:
            chosen = found.state_for(os.path.dirname(path), listed)
            if chosen is not None:
                return FolderState(found, chosen)
    return None


def read_folder_records(paths: Iterable[str], *,
                        max_files: int = MAX_FOLDER_FILES) -> list[LightningCheckpointFile]:
    """The records that account for the ``.ckpt`` files of a folder (given the paths of
    the files in it), in the order read: the one :func:`read_folder_state` reads
    (``last.ckpt``, else the newest readable), then the files the records read so far do
    not name, newest first, until one whose record names no file they do not (the records
    agree). Only a file's own record can tell what a file no other record names is: a
    second callback's save written after ``last.ckpt``, a save of an earlier run, or the
    real top-k behind a newest record that names other files. A folder one callback wrote
    costs one read; at most ``max_files`` files are tried. Records with no ModelCheckpoint
    state are left out."""
    listed = list(paths)
    index = by_basename(listed)
    records: list[LightningCheckpointFile] = []
    named: set[str] = set()
    reads = 0
    for path in _newest_first(listed):
        if records and path in named:
            continue
        if reads == max_files:
            break
        reads += 1
        found = read_checkpoint_file(path)
        if found is None or not found.states:
            continue
        names = {here for state in found.states
                 for _, here in matches(state.recorded_paths(), index)}
        agrees = bool(records) and names <= named | {path}
        records.append(found)
        named |= names
        if agrees:
            break
    return records


def iter_recorded_files(state: LightningCheckpointState,
                        candidates: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(recorded path, file here)`` for each path of ``state`` that matches one of
    ``candidates`` (see :func:`~mlspace.classify.readers.recorded_paths.match_recorded_path`),
    best first."""
    yield from matches(state.recorded_paths(), by_basename(candidates))


__all__ = [
    "FolderState", "LightningCheckpointFile", "LightningCheckpointState", "iter_recorded_files",
    "read_checkpoint_file", "read_folder_records", "read_folder_state",
    "read_model_checkpoint_state",
]
