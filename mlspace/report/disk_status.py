"""The disk line: for each filesystem holding a scanned folder, how full it is, how much is
free, how much the plan can safely give back, and how much waits in trash folders on it
(mlspace's own items apart)::

    /scratch — 97% full · 12.0 GiB free · 35.0 GiB reclaimable (safe) · 4.1 GiB in mlspace's trash

The CLI (scan, inventory, plan, clean), the reports and the app's window all show it from
here, so they say the same. Free space is what an ordinary user may still write (``df``'s
Avail), with the blocks kept for root named beside it. What sits in the trash is measured
by walking the trash folders of that filesystem, never by adding up what was meant to go.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from mlspace import fmt
from mlspace.act import purge
from mlspace.advise.model import SAFE, Plan
from mlspace.disks import FileSystem, filesystem_of, trash_places
from mlspace.guard.state import load as guard_state
from mlspace.guard.view import GuardView, view_of
from mlspace.scan import ScanOptions, scan


@dataclass(frozen=True)
class DiskStatus:
    fs: FileSystem
    roots: tuple[str, ...]  # the scanned folders on this filesystem
    in_trash: int  # bytes in the trash folders on it (everyone's items of this user)
    mlspace_trash: int  # of those, what mlspace's cleanups moved there
    reclaimable_safe: int  # what the plan's safe suggestions free on it
    reclaimable: int  # what all of its suggestions free on it
    mlspace_items: tuple[purge.PurgeItem, ...] = ()  # what mlspace has in the trash on it
    guard: GuardView | None = None  # what `mlspace guard` last saw of this disk

    def line(self) -> str:
        fs = self.fs
        parts = [f"{fs.mount} — {fs.percent_full:.0f}% full",
                 f"{fmt.size(fs.available)} free" + (
                     f" ({fmt.size(fs.reserved)} more kept for root)" if fs.reserved else "")]
        if self.reclaimable_safe:
            parts.append(f"{fmt.size(self.reclaimable_safe)} reclaimable (safe)")
        elif self.reclaimable:
            parts.append(f"{fmt.size(self.reclaimable)} reclaimable after review")
        if self.mlspace_trash:
            parts.append(f"{fmt.size(self.mlspace_trash)} in mlspace's trash")
        other = self.in_trash - self.mlspace_trash
        if other > 0:
            parts.append(f"{fmt.size(other)} more in the trash")
        return " · ".join(parts)

    def record(self) -> dict[str, object]:
        """Stable JSON keys (``disks`` in scan, inventory and plan JSON, and reports)."""
        fs = self.fs
        return {"line": self.line(), "mount": fs.mount, "roots": list(self.roots), "size": fs.size,
                "used": fs.used, "free": fs.available, "reserved_for_root": fs.reserved,
                "percent_full": round(fs.percent_full, 1), "in_trash": self.in_trash,
                "in_mlspace_trash": self.mlspace_trash,
                "reclaimable_safe": self.reclaimable_safe, "reclaimable": self.reclaimable,
                "guard": None if self.guard is None else
                {"status": self.guard.status, "forecast": self.guard.forecast,
                 "acting": self.guard.acting}}


def _trash_bytes(folder: str) -> int:
    """What a trash folder's items take on disk (0 when it is not there)."""
    files = os.path.join(folder, "files")
    if not os.path.isdir(files) or os.path.islink(files):
        return 0
    return scan([files], ScanOptions(workers=1)).grand_totals().disk_usage


def _on(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def disk_status(roots: Sequence[str], plan: Plan | None = None) -> list[DiskStatus]:
    """One status per filesystem holding one of ``roots`` that is on this machine, in the
    order of the roots."""
    by_device: dict[int, tuple[FileSystem, list[str]]] = {}
    for root in roots:
        fs = filesystem_of(root)
        if fs is not None:
            by_device.setdefault(fs.device, (fs, []))[1].append(root)
    mine = purge.in_trash()
    guarded = guard_state()
    out = []
    for fs, on_it in by_device.values():
        folders = {str(p.folder) for p in trash_places(os.path.join(on_it[0], "x"))}
        own = tuple(i for i in mine
                    if os.path.dirname(os.path.dirname(i.trash_file)) in folders)
        trashed = sum(i.disk_usage for i in own)
        suggestions = plan.suggestions if plan else ()
        safe = sum(i.disk_usage for s in suggestions if s.risk == SAFE for i in s.items
                   if _on(i.path, on_it))
        every = sum(i.disk_usage for s in suggestions for i in s.items if _on(i.path, on_it))
        in_trash = sum(_trash_bytes(f) for f in folders)
        out.append(DiskStatus(fs, tuple(on_it), max(in_trash, trashed), trashed, safe, every,
                              own, view_of(fs.mount, guarded)))
    return out
