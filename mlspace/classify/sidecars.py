"""A tool's hidden bookkeeping beside a person's files: a hidden file named after a file
beside it plus one more suffix (a pipeline's ``.clean.csv.metadata`` beside ``clean.csv``:
when and from what source it was made), a hidden ``dbm`` database (a task runner's
``.doit.db.dat`` with its ``.dir`` and ``.bak``), and the lock a tool takes on a file beside
it (``orion_db.pkl.lock``). All are the tool's state, rebuilt by running the tool again: a
cache, whatever the words of the name beside them say (a sidecar of ``model.npz`` is no
model).

A person does not name their own files so: the leading dot hides them on purpose, and the
name points at what they describe. Only small files are taken (a tool's notes, not a
partial copy of a big file), and only in folders whose context does not already say what
their files are (a dataset's or a checkpoint's hidden parts stay part of it).
"""

from __future__ import annotations

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.rules import CONTEXTS, Context
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: The largest hidden file taken as a tool's note about another.
MAX_SIDECAR_BYTES = 2**20
#: The files of one dbm database (``dbm.dumb``, as ``shelve`` writes it).
_DBM_PARTS = (".dat", ".dir", ".bak")
#: Contexts whose files are judged one by one, where a sidecar is no part of a unit.
_LOOSE = frozenset({Context.GENERIC, Context.RUN, Context.LOG})


def mark_sidecars(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray) -> None:
    """Make every hidden sidecar, hidden dbm database and sibling's lock a cache
    (``categories`` in place)."""
    by_row: dict[int, list[int]] = {}
    locks = snapshot.names_containing(b".lock")
    locks = locks[snapshot.kind[locks] != KIND_DIR]
    for entry in np.union1d(_hidden_files(snapshot), locks).tolist():
        by_row.setdefault(snapshot.parent_row(entry), []).append(entry)
    for row, hidden in by_row.items():
        if row < 0 or CONTEXTS[contexts[row]] not in _LOOSE:
            continue
        names = set(snapshot.child_names(row))
        for entry in hidden:
            name = snapshot.name(entry)
            if int(snapshot.apparent[entry]) <= MAX_SIDECAR_BYTES and (
                    _names_a_sibling(name, names) or _dbm_part(name, names)
                    or _locks_a_sibling(name, names)):
                categories[entry] = Category.CACHE


def _hidden_files(snapshot: Snapshot) -> np.ndarray:
    """Entries that are files whose name starts with a dot, found in the name buffer."""
    buffer = np.frombuffer(snapshot.name_buffer, dtype=np.uint8)
    if not len(buffer):
        return np.zeros(0, dtype=np.int64)
    starts = snapshot.name_offsets[:-1]
    hidden = np.flatnonzero(buffer[np.minimum(starts, len(buffer) - 1)] == ord("."))
    return hidden[snapshot.kind[hidden] != KIND_DIR]


def _names_a_sibling(name: str, names: set[str]) -> bool:
    """``.<sibling>.<suffix>`` beside a visible ``<sibling>``."""
    stem, dot, suffix = name[1:].rpartition(".")
    return bool(dot and stem and suffix) and not stem.startswith(".") and stem in names


def _locks_a_sibling(name: str, names: set[str]) -> bool:
    """``<sibling>.lock`` beside ``<sibling>``: the lock a tool holds while it writes it (a
    search's ``orion_db.pkl.lock``). A project's ``poetry.lock`` locks no file beside it."""
    return name.endswith(".lock") and name[: -len(".lock")] in names


def _dbm_part(name: str, names: set[str]) -> bool:
    """One file of a hidden dbm database whose data and index files are both here."""
    for part in _DBM_PARTS:
        if name.endswith(part):
            stem = name[: -len(part)]
            return len(stem) > 1 and all(stem + p in names for p in _DBM_PARTS[:2])
    return False
