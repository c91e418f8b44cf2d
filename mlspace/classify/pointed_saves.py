"""Saves a pointer names: in a folder of checkpoints, a ``latest`` file whose text is the
name of a subfolder says that subfolder is one save, the newest (DeepSpeed's tags, a model
store's ``<model>/<tag>/`` with ``<model>/latest``: BentoML's models and bentos). Its
siblings that hold the same names are the older saves of the same series.

Without this, a tag folder named by a random id is just more of the folder of checkpoints,
and its files (a model's ``model.yaml``, a packaged service's source) are loose files that
no series protects. The pointer is read through mlspace.safe_read, at most POINTER_BYTES.
"""

from __future__ import annotations

import os
import re

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.evidence import holds_run_records
from mlspace.classify.folder_units import make_unit
from mlspace.classify.readers.records import read_text
from mlspace.classify.rules import CONTEXTS, CompiledRules, Context
from mlspace.classify.structure import repeated_member_sets
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: Files whose text names the newest save beside them.
POINTERS = ("latest", "latest_universal")
POINTER_BYTES = 4096


def mark_pointed_saves(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray,
                       dir_rules: np.ndarray, compiled: CompiledRules) -> None:
    """Make each pointed save, and each sibling holding the same names, one checkpoint
    (in place). Only subfolders no rule named are judged: a rule's verdict stands."""
    rule = compiled.evidence["evidence-pointed-saves"]
    for row, pointers in _folders_with_pointers(snapshot, contexts).items():
        subfolders = _plain_subfolders(snapshot, row, contexts, dir_rules)
        pointed = _pointed(snapshot.dir_path(row), pointers, subfolders)
        if pointed is None or not _holds_checkpoint_file(snapshot, subfolders[pointed],
                                                         categories):
            continue
        members = frozenset(snapshot.child_names(subfolders[pointed]))
        for name, sub in subfolders.items():
            if name == pointed or frozenset(snapshot.child_names(sub)) == members:
                make_unit(snapshot, sub, categories, contexts, dir_rules, rule,
                          Context.CHECKPOINT_UNIT)


def _folders_with_pointers(snapshot: Snapshot, contexts: np.ndarray) -> dict[int, list[str]]:
    """Folders of checkpoints holding a pointer file, with the pointers' names: found in
    the scan's name buffer, so a tree of many checkpoint folders costs no listing each."""
    entries = snapshot.names_containing(b"latest")
    out: dict[int, list[str]] = {}
    for entry in entries.tolist():
        name = snapshot.name(entry)
        if name not in POINTERS or snapshot.kind[entry] == KIND_DIR:
            continue
        row = snapshot.parent_row(entry)
        if row >= 0 and CONTEXTS[contexts[row]] == Context.CHECKPOINTS:
            out.setdefault(row, []).append(name)
    return out


def _plain_subfolders(snapshot: Snapshot, row: int, contexts: np.ndarray,
                      dir_rules: np.ndarray) -> dict[str, int]:
    """Subfolders of ``row`` that took the folder's context and no rule of their own."""
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    span = np.arange(first, first + count)
    dirs = span[snapshot.kind[span] == KIND_DIR]
    rows = snapshot.rows_of(dirs)
    out = {}
    for entry, sub in zip(dirs.tolist(), rows.tolist(), strict=True):
        if sub >= 0 and dir_rules[sub] < 0 and CONTEXTS[contexts[sub]] == Context.CHECKPOINTS:
            out[snapshot.name(entry)] = sub
    return out


def _pointed(folder: str, pointers: list[str], subfolders: dict[str, int]) -> str | None:
    """The subfolder a pointer's text names, if any."""
    for pointer in pointers:
        text = read_text(os.path.join(folder, pointer), limit=POINTER_BYTES)
        name = (text or "").strip().rstrip("/").rsplit("/", 1)[-1]
        if name in subfolders:
            return name
    return None


def mark_numbered_saves(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray,
                        dir_rules: np.ndarray, compiled: CompiledRules) -> None:
    """In a folder of checkpoints, numbered subfolders no rule named that hold the same names,
    a checkpoint file among them (an experiment tracker's ``checkpoints/<step>/`` with its
    ``model.pth`` and ``info.json``), are the saves of one series: each is one checkpoint,
    so what lies beside the weights is part of the save, not a file of its own to dedupe."""
    rule = compiled.evidence["evidence-numbered-saves"]
    plain = np.flatnonzero((contexts == Context.CHECKPOINTS) & (dir_rules < 0))
    parents = snapshot.dir_parent[plain]
    for parent in np.unique(parents[parents >= 0]).tolist():
        if CONTEXTS[contexts[parent]] != Context.CHECKPOINTS:
            continue
        subfolders = _plain_subfolders(snapshot, parent, contexts, dir_rules)
        saves = repeated_member_sets({name: frozenset(snapshot.child_names(sub))
                                      for name, sub in subfolders.items()
                                      if _STEP_NAMED.fullmatch(name)})
        for name in saves:
            if _holds_checkpoint_file(snapshot, subfolders[name], categories) and \
                    not holds_run_records(snapshot, subfolders[name], categories, contexts):
                make_unit(snapshot, subfolders[name], categories, contexts, dir_rules, rule,
                          Context.CHECKPOINT_UNIT)


#: A save folder named by a whole step: ``300``, ``step_300``, ``ckpt-0042``. Not
#: ``lr-0.05``: a run of a sweep, named by its setting, is no save of a series.
_STEP_NAMED = re.compile(r"(?:[A-Za-z]+[_\-]?)?\d+")


def _holds_checkpoint_file(snapshot: Snapshot, row: int, categories: np.ndarray) -> bool:
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    span = np.arange(first, first + count)
    files = span[snapshot.kind[span] != KIND_DIR]
    return bool(np.any(categories[files] == Category.CHECKPOINT))
