"""Both walkers, for the scan-level tests: the native one (the C extension) and the Python one
(the reference).

A test module that imports ``both_walkers`` (``from walkers import both_walkers  # noqa:
F401``) runs each of its tests once per walker; the rest of the suite runs with the default
(the native walker wherever it is built). That keeps CI to one run of the suite while every
scan-level test sees both walkers.

``canonical`` turns a snapshot into plain data that does not depend on the order folders were
walked in, so two snapshots are the same scan exactly when their canonical forms are equal.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from mlspace.scan import Snapshot
from mlspace.scan.native import ENV, native_problem

WALKERS = ["native", "python"]


def walker_params() -> list[Any]:
    """The walkers as pytest params; the native one is skipped, saying why, where it is not
    built (then mlspace itself scans with the Python walker)."""
    problem = native_problem()
    return [pytest.param("native", marks=pytest.mark.skipif(problem is not None,
                                                            reason=problem or "")),
            "python"]


@pytest.fixture(autouse=True, params=walker_params())
def both_walkers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test of the module that imports this runs with each walker."""
    monkeypatch.setenv(ENV, request.param)
    return request.param


def canonical(snap: Snapshot) -> dict[str, Any]:
    """Everything a snapshot says, keyed by path: each entry's columns and, for a listed
    folder, its totals and its children's names in the order listed."""
    entries: dict[bytes, tuple[Any, ...]] = {}
    listed = {int(e): row for row, e in enumerate(snap.dir_entry.tolist())}
    for entry in range(len(snap)):
        path = os.fsencode(snap.path(entry))
        row = listed.get(entry)
        folder = None
        if row is not None:
            folder = (snap.totals(entry), int(snap.dir_dev[row]), snap.dir_paths[row],
                      [snap.name_bytes(c) for c in snap.children(entry)])
        assert path not in entries, f"{path!r} recorded twice"
        entries[path] = (int(snap.kind[entry]), int(snap.apparent[entry]),
                         int(snap.blocks[entry]), int(snap.mtime[entry]), int(snap.ino[entry]),
                         int(snap.nlink[entry]), int(snap.uid[entry]),
                         bool(snap.counted[entry]), folder)
    return {
        "roots": snap.roots,
        "entries": entries,
        "errors": sorted((e.path, e.message) for e in snap.errors),
        "other_filesystems": sorted(snap.other_filesystems),
        "cancelled": snap.cancelled,
        "widths": tuple(str(getattr(snap, name).dtype)
                        for name in ("blocks", "mtime", "apparent", "ino", "uid")),
        "grand": snap.grand_totals(),
    }


def differences(a: dict[str, Any], b: dict[str, Any], limit: int = 8) -> list[str]:
    """What differs between two canonical forms, in words (for assertion messages)."""
    out = [f"{key}: {a[key]!r} != {b[key]!r}" for key in a if key != "entries" and a[key] != b[key]]
    for path in sorted(set(a["entries"]) | set(b["entries"])):
        left, right = a["entries"].get(path), b["entries"].get(path)
        if left != right:
            out.append(f"{path!r}: {left!r} != {right!r}")
        if len(out) >= limit:
            break
    return out
