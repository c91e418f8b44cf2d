"""What a Lightning run's own records say about the checkpoints of one folder.

Lightning's ModelCheckpoint callback keeps its state inside every ``.ckpt`` it writes: the
best file and its score, the scores of the top-k files it keeps (``best_k_models``) and the
path of ``last.ckpt`` (ml-layouts.md §2.4). That state is read as data, never unpickled
(:mod:`mlspace.classify.readers.lightning_ckpt`), from as few files as possible: the newest
readable record (``last.ckpt`` first), then only files no record read so far names, until
the records agree (normally one file per folder). The state furthest into training (by its
``global_step``) describes the folder.

From it a series learns:

- the best, when the callback monitors a metric (with no monitor, its ``best_model_path`` is
  merely the newest save: it is protected, but not called the best);
- every file any record read names as best or last, protected whatever else is found: a
  record that is missing, cut short, not a regular file or out of date is skipped, and an
  older record that disagrees still protects what it names;
- the top-k the callbacks keep. With ``save_top_k=k`` every numbered file left in the folder
  is one of the k best: the tool has done the retention, so they are kept as the tool's
  (released only when the user asks for fewer for this series, worst score first). Records
  cannot tell ``save_top_k=-1`` (keep all) from a k not reached yet; both are left to the
  tool;
- the recorded score of each top-k file under the monitored metric, more exact than the
  rounded value a file name may carry, so the top-k can be ranked.

Paths in the state are as the training process saw them; they are matched to the files here
by path suffix.
"""

from __future__ import annotations

import os
from functools import lru_cache

from mlspace.classify.metrics import direction
from mlspace.classify.readers.lightning_ckpt import (
    LightningCheckpointFile,
    LightningCheckpointState,
    iter_recorded_files,
    read_folder_records,
)
from mlspace.classify.tool_facts import FileIdentity, ToolFacts, file_identity, finite, rank_key

#: Folders whose facts are remembered: a rescan (the app scans again after a cleanup or
#: when the disk changes) reads no record again unless one of its files changed.
_REMEMBERED = 1024


def read_lightning_facts(folder: str, paths: list[str]) -> ToolFacts | None:
    """What the records among ``paths`` (the ``.ckpt`` files of ``folder``) say, or None
    when none of them holds a readable ModelCheckpoint state. A big run's ``.ckpt`` takes
    up to a second to read (its pickle lists every tensor), so the answer is remembered
    for as long as every file keeps its inode, size and times."""
    return _facts(folder, tuple(file_identity(path) for path in paths))


@lru_cache(maxsize=_REMEMBERED)
def _facts(folder: str, files: tuple[FileIdentity, ...]) -> ToolFacts | None:
    paths = [path for path, *_ in files]
    records = read_folder_records(paths)
    if not records:
        return None
    # The state furthest into training describes the folder (last.ckpt among equals):
    # file times may tie or lie, a record's global_step does not go back.
    primary = max(records, key=lambda r: r.global_step if r.global_step is not None else -1)
    chosen = primary.state_for(folder, paths)
    if chosen is None:
        return None
    source = os.path.basename(primary.path)
    here = _files_here(chosen, paths)
    mode = chosen.mode or (direction(chosen.monitor) if chosen.monitor else None)
    best, best_reason, value = None, "", None
    if chosen.monitor is not None and chosen.best_model_path in here:
        best = here[chosen.best_model_path]
        value = finite(chosen.best_model_score)
        score = f" {value:.4g}" if value is not None else ""
        best_reason = (f"Lightning ModelCheckpoint state in {source}: best "
                       f"{chosen.monitor}{score}")
    own, ranked, scores = _top_k(chosen, here, mode)
    others = [name for record in records for state in record.states if state is not chosen
              for name in _monitored_top_k(state, paths)]
    top_k = tuple(dict.fromkeys([*own, *others]))
    reason = _top_k_reason(source, chosen, mode, len(own)) if own else ""
    if set(top_k) - set(own):  # another callback's, or another record's: no one order
        ranked = False
        reason = "; ".join(filter(None, [reason, "other records read keep "
                                         + ", ".join(n for n in top_k if n not in own)]))
    return ToolFacts(
        source=source, best=best, best_reason=best_reason, metric=chosen.monitor, value=value,
        mode=mode, named=_named(records, primary, paths), top_k=top_k, top_k_ranked=ranked,
        top_k_reason=reason, scores=scores, files_read=len(records),
    )


def _files_here(state: LightningCheckpointState, paths: list[str]) -> dict[str, str]:
    """Recorded path -> the name of the file here it is."""
    return {recorded: os.path.basename(found)
            for recorded, found in iter_recorded_files(state, paths)}


def _top_k(state: LightningCheckpointState, here: dict[str, str], mode: str | None
           ) -> tuple[tuple[str, ...], bool, dict[str, float]]:
    """The chosen state's top-k files here, best first when every score is known, with
    their finite scores."""
    if state.monitor is None:
        return (), False, {}
    kept = [(here[path], score) for path, score in state.best_k_models if path in here]
    scores = {name: score for name, score in kept if finite(score) is not None}
    ranked = mode is not None and all(score is not None for _, score in kept)
    if ranked:
        kept.sort(key=lambda item: rank_key(item[1], mode or "min"))
    return tuple(dict.fromkeys(name for name, _ in kept)), ranked, scores


def _monitored_top_k(state: LightningCheckpointState, paths: list[str]) -> list[str]:
    if state.monitor is None:
        return []
    here = _files_here(state, paths)
    return [here[path] for path, _ in state.best_k_models if path in here]


def _named(records: list[LightningCheckpointFile], primary: LightningCheckpointFile,
           paths: list[str]) -> frozenset[str]:
    """Every file here that a record read names as its best or its last. Without a
    monitor, ``best_model_path`` is just the newest save of its time: only the primary
    record's counts (an older record's would be one more old save)."""
    named: set[str] = set()
    for record in records:
        for state in record.states:
            here = _files_here(state, paths)
            best = state.best_model_path if state.monitor or record is primary else None
            named.update(here[p] for p in (best, state.last_model_path) if p in here)
    return frozenset(named)


def _top_k_reason(source: str, state: LightningCheckpointState, mode: str | None,
                  count: int) -> str:
    how = f" by {state.monitor}" + (f", {mode}" if mode else "")
    return f"Lightning ModelCheckpoint state in {source}: save_top_k keeps the best {count}{how}"
