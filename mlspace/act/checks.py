"""Re-checks before an item is moved: it must be as the user saw it, and nothing must be
writing to it. Each check returns the reason to skip, or None."""

from __future__ import annotations

import bisect
import contextlib
import os
import time

from mlspace.act.moves import MoveRefused, containing_root
from mlspace.advise import AdviceSettings, PlanItem
from mlspace.safe_read import Unreadable, read_text
from mlspace.scan import ScanOptions, scan
from mlspace.scan.hardlinks import freed_totals

#: Anything modified this recently may belong to a running training job.
RECENT_SECONDS = AdviceSettings().recent_seconds


def before_move(item: PlanItem, roots: list[str] | tuple[str, ...], busy: list[str],
                recent_seconds: float = RECENT_SECONDS) -> str | None:
    """Why the item must not move now, or None: it must lie inside a scanned folder, be as
    scanned, not be written in the last minutes, and not be in use."""
    try:
        containing_root(item.path, roots)
    except MoveRefused as err:
        return str(err)
    return changed_since_scan(item, recent_seconds) or in_use(item.path, busy)


def changed_since_scan(item: PlanItem, recent_seconds: float = RECENT_SECONDS,
                       now: float | None = None) -> str | None:
    """Compares size and newest modification with what was scanned (for a folder, its whole
    subtree, rescanned now) and refuses anything written in the last minutes."""
    try:
        st = os.lstat(item.path)
    except FileNotFoundError:
        return "no longer there"
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if item.is_dir:
        if not os.path.isdir(item.path) or os.path.islink(item.path):
            return "is no longer a folder"
        fresh = scan([item.path], ScanOptions(workers=1))
        # Counted as the plan counted it: hard-linked files kept by a link outside the
        # folder are left out (in the whole scan, some were counted elsewhere).
        size = freed_totals(fresh, fresh.root_entries[0])[1]
        newest = fresh.grand_totals().newest_mtime
    else:
        # whole seconds, as the scan keeps modification times
        size, newest = st.st_size, st.st_mtime_ns // 1_000_000_000
    if size != item.apparent_size or abs(newest - item.mtime) > 1e-3:
        return "changed since the scan"
    if (now or time.time()) - newest < recent_seconds:
        return f"modified in the last {int(recent_seconds // 60)} minutes (a running job?)"
    return None


def paths_in_use() -> list[str]:
    """The real paths some process is using (Linux /proc), sorted: files open through a
    descriptor, files mapped into memory (safetensors and numpy memmaps close their
    descriptor after mapping), and working folders. Empty where /proc is absent. The kernel
    gives these without symlinks, so they are compared with real paths."""
    found: set[str] = set()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        base = f"/proc/{pid}"
        with contextlib.suppress(OSError):
            found.add(os.readlink(f"{base}/cwd"))
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"{base}/fd"):
                with contextlib.suppress(OSError):
                    found.add(os.readlink(f"{base}/fd/{fd}"))
        found.update(_mapped_files(f"{base}/maps"))
    return sorted(p for p in found if p.startswith("/"))


def _mapped_files(maps: str) -> set[str]:
    """Paths of the files mapped in one /proc/PID/maps (lines: range perms offset dev inode
    path; the path may hold spaces)."""
    try:
        text = read_text(maps, limit=64 * 2**20)
    except Unreadable:
        return set()
    out = set()
    for line in text.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[4] != "0":
            out.add(fields[5])
    return out


def in_use(path: str, busy: list[str]) -> str | None:
    """Why ``path`` (a file, or a folder and all below it) must not move now, or None."""
    try:
        real = os.path.realpath(path)
    except OSError:  # a folder on the way was swapped while being resolved
        return "changed while being checked"
    inside = real.rstrip("/") + "/"
    exact, below = bisect.bisect_left(busy, real), bisect.bisect_left(busy, inside)
    if (exact < len(busy) and busy[exact] == real) or \
            (below < len(busy) and busy[below].startswith(inside)):
        return "in use by a running process (open, memory-mapped, or its working folder)"
    return None
