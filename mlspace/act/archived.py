"""What is archived now: the pointers (symlinks or stubs) archive runs left at items' paths,
with where each archived copy lives and what it took on this disk.

A scan sees only the pointer (a link of a few bytes, or a small JSON file), so the sizes
and places come from the journal of the run that archived the item: the item as scanned
before it moved, and the step that left the pointer. An item brought back or undone since
has a later event in that journal and is no longer listed. The app matches these with the
scan's entries (the tree's Details, the "archived" total, *Bring back* on right-click).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mlspace.act.journal import LINKED, history


@dataclass(frozen=True)
class ArchivedItem:
    path: str  # the item's own path
    pointer: str  # what stands for it there: the symlink (the path itself) or the stub
    dest: str  # the archived copy
    tier: str  # the cold tier's folder the run used
    disk_usage: int  # what it took on this disk before it moved (as scanned)
    apparent_size: int
    cleanup_id: str  # the archive run (its undo brings it back)

    @property
    def where(self) -> str:
        """The archived copy's place, short enough for a line: the tier, then the name
        ("/mnt/archive/…/checkpoint-500"); in full when it is not below the tier."""
        inside = self.dest.startswith(self.tier.rstrip(os.sep) + os.sep)
        return f"{self.tier.rstrip(os.sep)}{os.sep}…{os.sep}{os.path.basename(self.dest)}" \
            if inside else self.dest


def archived_items() -> list[ArchivedItem]:
    """Every item an archive run of this user left a pointer for and that was not brought
    back since, newest run first (a path archived twice counts once: the newer run)."""
    found: dict[str, ArchivedItem] = {}
    for record in history():
        if record.kind != "tier":
            continue
        for item in record.items:
            last = record.state(item["path"])
            if last is None or last["event"] != LINKED or not last.get("link") \
                    or item["path"] in found:
                continue
            found[item["path"]] = ArchivedItem(
                item["path"], str(last["link"]), str(last.get("dest") or item.get("dest")),
                str(record.meta.get("tier") or ""), int(item.get("disk_usage", 0)),
                int(item.get("apparent_size", 0)), record.id)
    return list(found.values())
