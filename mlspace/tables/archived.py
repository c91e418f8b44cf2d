"""The scan's entries that stand for archived items: the link or stub an archive run left,
still there now, matched with what the journals say was archived (the scan sees only a
few bytes of pointer)."""

from __future__ import annotations

from mlspace.act.archived import ArchivedItem, archived_items
from mlspace.scan.walker import KIND_SYMLINK
from mlspace.tables.now import DiskNow


def archived_in(now: DiskNow) -> dict[int, ArchivedItem]:
    """By entry, the archived item each link or stub on disk now stands for."""
    def make() -> dict[int, ArchivedItem]:
        snap = now.snapshot
        found = {}
        for item in archived_items():
            entry = snap.find(item.pointer)
            is_link = item.pointer == item.path
            if entry >= 0 and not now.removed[entry] and \
                    (int(snap.kind[entry]) == KIND_SYMLINK) == is_link:
                found[entry] = item
        return found
    return now.once("archived", make)


def archived_total(now: DiskNow, apparent: bool) -> int:
    """What those archived items took on this disk before they moved, in the size mode
    (the "archived" total beside the categories, not counted in them)."""
    return sum(i.apparent_size if apparent else i.disk_usage for i in archived_in(now).values())
