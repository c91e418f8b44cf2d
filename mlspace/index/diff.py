"""What changed between two scans of the same folders: totals, categories, the folders that
explain the change, and runs that came, went, grew or shrank (``mlspace diff``).

Folders are matched by their path below the scanned folder when each scan has one root (so
a workspace scanned on two machines, or moved, still compares), else by absolute path.
Every listed folder is compared by its size on disk. The folders named are those that
explain the change, each saying something the others do not, so that their changes add up to
the total: a new (or removed) folder is named, and nothing inside it (all of that is new
too); a folder that grew or shrank is named only where files directly in it changed, not
when its subfolders' changes add up to all of its own (they are named instead). So adding a
run names the run, not also its parents or its checkpoints.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mlspace.classify import ORDER, Category, Inventory
from mlspace.index.info import ScanInfo

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
    """The comparison as the JSON document of ``mlspace diff --format json``."""
    key_old, key_new = _key_functions(old.inventory, new.inventory)
    before_total = old.inventory.snapshot.grand_totals().disk_usage
    after_total = new.inventory.snapshot.grand_totals().disk_usage
    before_cats, after_cats = old.inventory.category_totals(), new.inventory.category_totals()
    return {
        "version": DIFF_VERSION,
        "from": _describe(old),
        "to": _describe(new),
        "totals": _change(before_total, after_total),
        "categories": {c.id: _change(before_cats[c].disk_usage, after_cats[c].disk_usage)
                       for c in ORDER},
        "changes": _folder_changes(old.inventory, new.inventory, key_old, key_new),
        "runs": _run_changes(old.inventory, new.inventory, key_old, key_new),
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


def _key_functions(old: Inventory, new: Inventory
                   ) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """How paths are matched: below the root when each scan has one, else as they are."""
    old_roots, new_roots = old.snapshot.roots, new.snapshot.roots
    if len(old_roots) == 1 and len(new_roots) == 1:
        return _below(old_roots[0]), _below(new_roots[0])
    return (lambda p: p), (lambda p: p)


def _below(root: str) -> Callable[[str], str]:
    prefix = root.rstrip("/") + "/"
    return lambda path: "." if path == root else path[len(prefix):]


def _parent(key: str) -> str | None:
    if key in (".", "/"):
        return None
    head = os.path.dirname(key)
    return head if head else "."


def _folder_changes(old: Inventory, new: Inventory, key_old: Callable[[str], str],
                    key_new: Callable[[str], str]) -> list[dict[str, object]]:
    before = {key_old(p): row for row, p in enumerate(old.snapshot.dir_paths)}
    after = {key_new(p): row for row, p in enumerate(new.snapshot.dir_paths)}
    old_disk, new_disk = old.snapshot.dir_disk.tolist(), new.snapshot.dir_disk.tolist()
    changed: dict[str, tuple[str, int, int]] = {}
    for key in before.keys() | after.keys():
        was = old_disk[before[key]] if key in before else 0
        now = new_disk[after[key]] if key in after else 0
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
             "category": _category(old, new, before.get(key), after.get(key)).id,
             "before": was, "after": now, "delta": now - was, "status": status}
            for _, path, key, status, was, now in sorted(named)]


def _category(old: Inventory, new: Inventory, old_row: int | None, new_row: int | None
              ) -> Category:
    """The category whose size changed most in the folder."""
    width = len(Category)
    was = old.dir_category_disk[old_row] if old_row is not None else np.zeros(width, np.int64)
    now = new.dir_category_disk[new_row] if new_row is not None else np.zeros(width, np.int64)
    return Category(int(np.argmax(np.abs(now - was))))


def _run_changes(old: Inventory, new: Inventory, key_old: Callable[[str], str],
                 key_new: Callable[[str], str]) -> list[dict[str, object]]:
    before = {key_old(r.path): r for r in old.runs}
    after = {key_new(r.path): r for r in new.runs}
    named = []
    for key in before.keys() | after.keys():
        was = before[key].disk_usage if key in before else 0
        now = after[key].disk_usage if key in after else 0
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
