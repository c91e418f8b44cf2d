"""Classify an imported scan (an ncdu export) from its names alone, reading nothing.

Classification reads a few records by path where they exist: trainer_state.json and other
pointers for the best and latest checkpoint, the ELF header of a ``core`` file, a symlink's
target, a hub cache's refs. For an import those paths are not this scan's files: they may
not exist here, or be other, newer files, and a saved scan must not touch the disk. So the
snapshot is classified under paths inside ``/dev/null``, where every open fails at once
(ENOTDIR) and each reader says "no record", then the results are named by the real paths.
The last component of each root is kept, since folder names take part in classification.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from mlspace.classify import Inventory, classify
from mlspace.classify.rules import CompiledRules
from mlspace.scan import Snapshot

#: A file, so nothing is ever below it: any path that starts with it fails to open.
NOWHERE = "/dev/null"


def classify_offline(snapshot: Snapshot, rules: CompiledRules | None = None) -> Inventory:
    """The inventory of ``snapshot`` as names, sizes and kinds tell it, records unread."""
    detached = _moved(snapshot, lambda path: NOWHERE + path)
    inventory = classify(detached, rules)
    return _renamed(inventory, snapshot)


def _moved(snapshot: Snapshot, move: Any) -> Snapshot:
    """The same snapshot with its roots (and so every path) moved by ``move``."""
    roots = len(snapshot.root_entries)
    offsets = snapshot.name_offsets.astype(np.int64)
    moved_roots = [move(r) for r in snapshot.roots]
    head = b"".join(r.encode("utf-8", "surrogateescape") + b"\0" for r in moved_roots)
    buffer = head + bytes(snapshot.name_buffer)[offsets[roots]:]
    shift = len(head) - int(offsets[roots])
    root_offsets = np.cumsum([0] + [len(r.encode("utf-8", "surrogateescape")) + 1
                                    for r in moved_roots])
    new_offsets = np.r_[root_offsets[:-1], offsets[roots:] + shift]
    return dataclasses.replace(
        snapshot, roots=tuple(moved_roots), name_buffer=memoryview(buffer).toreadonly(),
        name_offsets=new_offsets.astype(snapshot.name_offsets.dtype),
        dir_paths=tuple(move(p) for p in snapshot.dir_paths),
        errors=(), other_filesystems=())


def _renamed(inventory: Inventory, snapshot: Snapshot) -> Inventory:
    """The inventory with every path, id and name back under the real roots."""
    def back(value: object) -> object:
        if isinstance(value, str):
            return value.replace(NOWHERE, "", 1) if NOWHERE in value else value
        if isinstance(value, tuple):
            return tuple(back(v) for v in value)
        return value

    def each(values: tuple) -> tuple:
        return tuple(dataclasses.replace(v, **{f.name: back(getattr(v, f.name))
                                               for f in dataclasses.fields(v)})
                     for v in values)

    return dataclasses.replace(inventory, snapshot=snapshot,
                               artifacts=each(inventory.artifacts),
                               series=each(inventory.series), runs=each(inventory.runs),
                               hub_detached=each(inventory.hub_detached))
