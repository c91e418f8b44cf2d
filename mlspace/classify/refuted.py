"""Folders whose name guessed wrong: what they hold says they are not what the name said.

A folder rule decides from the name before the folder's files are listed (a folder is
judged in its parent's listing). For a few names that is a guess another field uses too:
``traces/`` holds profiler traces in deep learning and a sampler's posterior traces in
Bayesian statistics (``traces/pooled.nc``). Such a rule lists, under ``refuted_by``, the
suffixes of files its folders never hold; once the whole tree is listed, a folder holding
one anywhere below it is judged again as if no rule had named it, and its files by their
own names, so that the evidence passes can look at what they are. A profiler folder made
one unit to remove whole would otherwise take the model or the chain with it.
"""

from __future__ import annotations

import numpy as np

from mlspace.classify.name_rules import file_codes
from mlspace.classify.rules import (
    CONTEXTS,
    CORE_DUMP,
    INHERITED,
    MEDIA,
    TRACKER_DB,
    WEAK,
    CompiledRules,
    Context,
)
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: Codes resolved per folder or by header before this pass runs: kept as they were.
_LATE_CODES = frozenset({MEDIA, CORE_DUMP, TRACKER_DB})


def refute_folders(snapshot: Snapshot, codes: np.ndarray, contexts: np.ndarray,
                   dir_rules: np.ndarray, compiled: CompiledRules) -> list[int]:
    """Judge again, in place, each folder whose rule a file below it refutes: the folder
    and its subfolders take the context their parent hands down, their rule none, and their
    files the codes of their own names there. Returns the folder rows judged again."""
    refuting = {i: rule.refuted_by for i, rule in enumerate(compiled.dir_rules)
                if rule.refuted_by}
    if not refuting:
        return []
    rows = np.flatnonzero(np.isin(dir_rules, list(refuting))).tolist()
    changed: list[int] = []
    for row in rows:
        suffixes = tuple(refuting[int(dir_rules[row])])
        entry = int(snapshot.dir_entry[row])
        below = list(snapshot.subtree(entry))
        if not any(snapshot.kind[e] != KIND_DIR and snapshot.name(e).lower().endswith(suffixes)
                   for e in below[1:]):
            continue
        parent = int(snapshot.dir_parent[row])
        handed = INHERITED[CONTEXTS[contexts[parent]]] if parent >= 0 else Context.GENERIC
        for folder in (snapshot.row_of(e) for e in below):
            if folder >= 0:
                contexts[folder], dir_rules[folder] = handed, -1
                _recode_files(snapshot, folder, codes, handed, compiled)
                changed.append(folder)
    return changed


def _recode_files(snapshot: Snapshot, row: int, codes: np.ndarray, ctx: Context,
                  compiled: CompiledRules) -> None:
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    span = np.arange(first, first + count)
    files = span[snapshot.kind[span] != KIND_DIR]
    if not len(files):
        return
    names = [snapshot.name(int(e)) for e in files.tolist()]
    fresh = file_codes(names, compiled.file_tables[ctx], ctx)
    for entry, code in zip(files.tolist(), fresh, strict=True):
        if int(codes[entry]) & ~WEAK not in _LATE_CODES and code & ~WEAK not in _LATE_CODES:
            codes[entry] = code
