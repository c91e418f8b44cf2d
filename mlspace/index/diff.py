"""What changed between two scans of the same folders: totals, categories, the folders that
explain the change, and runs that came, went, grew or shrank (``mlspace diff``).

Folders are matched by their path below the scanned folder when each scan has one root (so
a workspace scanned on two machines, or moved, still compares), else by absolute path.
Everything is compared by size on disk, and again by apparent size. The folders named are
those that explain the change, each saying something the others do not, so that their
changes add up to the total: a new (or removed) folder is named, and nothing inside it (all
of that is new too); a folder that grew or shrank is named only where files directly in it
changed, not when its subfolders' changes add up to all of its own (they are named instead).
So adding a run names the run, not also its parents or its checkpoints.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mlspace.classify import ORDER, Category, Inventory, Run
from mlspace.index.info import ScanInfo
from mlspace.scan import Snapshot

GROWN, SHRUNK, NEW, REMOVED = "grown", "shrunk", "new", "removed"
DIFF_VERSION = 1


@dataclass(frozen=True)
class Side:
    """One of the two scans compared, and how to name it."""

    inventory: Inventory
    info: ScanInfo | None = None
    id: str | None = None  # a history id
    file: str | None = None  # the saved scan's file
    fresh: bool = False  # scanned for this comparison


def diff(old: Side, new: Side) -> dict[str, object]:
    """The comparison as the JSON document of ``mlspace diff --format json``: by size on
    disk, and the same comparison by apparent size under ``apparent`` (sparse files change
    what they hold while their size on disk stays near nothing)."""
    key_old, key_new = key_functions(old.inventory.snapshot.roots,
                                     new.inventory.snapshot.roots)
    folders = (
        {key_old(p): row for row, p in enumerate(old.inventory.snapshot.dir_paths)},
        {key_new(p): row for row, p in enumerate(new.inventory.snapshot.dir_paths)},
    )
    runs = ({key_old(r.path): r for r in old.inventory.runs},
            {key_new(r.path): r for r in new.inventory.runs})
    compare = _Comparison(old.inventory, new.inventory, folders, runs)
    return {
        "version": DIFF_VERSION,
        "from": _describe(old),
        "to": _describe(new),
        **compare.by(apparent=False),
        "apparent": compare.by(apparent=True),
    }


@dataclass(frozen=True)
class _Comparison:
    """Two inventories and their folders and runs matched by key, compared by either size."""

    old: Inventory
    new: Inventory
    folders: tuple[dict[str, int], dict[str, int]]  # key -> folder row, old and new
    runs: tuple[dict[str, Run], dict[str, Run]]  # key -> run, old and new

    def by(self, apparent: bool) -> dict[str, object]:
        measure = "apparent_size" if apparent else "disk_usage"
        before_cats, after_cats = self.old.category_totals(), self.new.category_totals()
        return {
            "totals": _change(getattr(self.old.snapshot.grand_totals(), measure),
                              getattr(self.new.snapshot.grand_totals(), measure)),
            "categories": {c.id: _change(getattr(before_cats[c], measure),
                                         getattr(after_cats[c], measure)) for c in ORDER},
            "changes": _folder_changes(self.old, self.new, *self.folders, apparent),
            "runs": _run_changes(*self.runs, measure),
        }


def _change(before: int, after: int) -> dict[str, int]:
    return {"before": before, "after": after, "delta": after - before}


def _describe(side: Side) -> dict[str, object]:
    info = side.info
    when = info.finished if info is not None and info.finished else None
    return {
        "id": side.id,
        "file": side.file,
        "fresh": side.fresh,
        "roots": list(side.inventory.snapshot.roots),
        "host": info.host if info is not None and info.host else None,
        "scanned": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(when))
        if when else None,
    }


def key_functions(old_roots: Sequence[str], new_roots: Sequence[str]
                  ) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """How paths are matched: below the root when each scan has one, else as they are."""
    if len(old_roots) == 1 and len(new_roots) == 1:
        return _below(old_roots[0]), _below(new_roots[0])
    return (lambda p: p), (lambda p: p)


def match_folders(old: Snapshot, new: Snapshot) -> np.ndarray:
    """Per folder row of ``new``, the row of the same folder in ``old`` (-1: it was not
    there), matched as ``diff`` matches them."""
    key_old, key_new = key_functions(old.roots, new.roots)
    rows = {key_old(p): row for row, p in enumerate(old.dir_paths)}
    return np.fromiter((rows.get(key_new(p), -1) for p in new.dir_paths), dtype=np.int64,
                       count=len(new.dir_paths))


def _below(root: str) -> Callable[[str], str]:
    prefix = root.rstrip("/") + "/"
    return lambda path: "." if path == root else path[len(prefix):]


def _parent(key: str) -> str | None:
    if key in (".", "/"):
        return None
    head = os.path.dirname(key)
    return head if head else "."


def _folder_changes(old: Inventory, new: Inventory, before: dict[str, int],
                    after: dict[str, int], apparent: bool) -> list[dict[str, object]]:
    old_sizes, new_sizes = (
        (inv.snapshot.dir_apparent if apparent else inv.snapshot.dir_disk).tolist()
        for inv in (old, new))
    changed: dict[str, tuple[str, int, int]] = {}
    for key in before.keys() | after.keys():
        was = old_sizes[before[key]] if key in before else 0
        now = new_sizes[after[key]] if key in after else 0
        if key not in before:
            changed[key] = (NEW, was, now)
        elif key not in after:
            changed[key] = (REMOVED, was, now)
        elif now != was:
            changed[key] = (GROWN if now > was else SHRUNK, was, now)
    by_children: dict[str | None, int] = {}
    for key, (_, was, now) in changed.items():
        parent = _parent(key)
        by_children[parent] = by_children.get(parent, 0) + now - was
    named = []
    for key, (status, was, now) in changed.items():
        if status in (NEW, REMOVED):
            above = changed.get(_parent(key) or "")
            if above is not None and above[0] == status:
                continue  # inside a folder that is all new (or all gone) too
        elif by_children.get(key, 0) == now - was:
            continue  # its subfolders' changes add up to all of it: they are named instead
        path = new.snapshot.dir_paths[after[key]] if key in after \
            else old.snapshot.dir_paths[before[key]]
        named.append((-abs(now - was), path, key, status, was, now))
    return [{"path": path,
             "category": _category(old, new, before.get(key), after.get(key), apparent).id,
             "before": was, "after": now, "delta": now - was, "status": status}
            for _, path, key, status, was, now in sorted(named)]


def _category(old: Inventory, new: Inventory, old_row: int | None, new_row: int | None,
              apparent: bool) -> Category:
    """The category whose size changed most in the folder."""
    width = len(Category)
    old_sizes, new_sizes = ((inv.dir_category_apparent if apparent else inv.dir_category_disk)
                            for inv in (old, new))
    was = old_sizes[old_row] if old_row is not None else np.zeros(width, np.int64)
    now = new_sizes[new_row] if new_row is not None else np.zeros(width, np.int64)
    return Category(int(np.argmax(np.abs(now - was))))


def _run_changes(before: dict[str, Run], after: dict[str, Run], measure: str
                 ) -> list[dict[str, object]]:
    named = []
    for key in before.keys() | after.keys():
        was = getattr(before[key], measure) if key in before else 0
        now = getattr(after[key], measure) if key in after else 0
        if key not in before:
            status = NEW
        elif key not in after:
            status = REMOVED
        elif now != was:
            status = GROWN if now > was else SHRUNK
        else:
            continue
        path = after[key].path if key in after else before[key].path
        named.append((-abs(now - was), path, status, was, now))
    return [{"path": path, "status": status, "before": was, "after": now}
            for _, path, status, was, now in sorted(named)]
