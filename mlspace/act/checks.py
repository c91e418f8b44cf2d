"""Re-checks before an item is moved: it must be as the user saw it, and nothing must be
writing to it. Each check returns the reason to skip, or None."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from mlspace.advise import PlanItem
from mlspace.scan import ScanOptions, scan

#: Anything modified this recently may belong to a running training job.
RECENT_SECONDS = 600.0


def outside_roots(path: str, roots: Iterable[str]) -> str | None:
    real = os.path.realpath(os.path.dirname(path))
    for root in roots:
        base = os.path.realpath(root)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return None
    return "not inside a scanned folder"


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
        totals = scan([item.path], ScanOptions(workers=1)).grand_totals()
        size, newest = totals.apparent_size, totals.newest_mtime
    else:
        size, newest = st.st_size, st.st_mtime
    if size != item.apparent_size or abs(newest - item.mtime) > 1e-3:
        return "changed since the scan"
    if (now or time.time()) - newest < recent_seconds:
        return f"modified in the last {int(recent_seconds // 60)} minutes (a running job?)"
    return None


def open_files() -> set[str]:
    """Every path some process has open (Linux /proc/*/fd); empty where /proc is absent."""
    found: set[str] = set()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"{fd_dir}/{fd}")
            except OSError:
                continue
            if target.startswith("/"):
                found.add(target)
    return found


def in_use(path: str, opened: set[str]) -> str | None:
    prefix = path.rstrip("/") + "/"
    if path in opened or any(p.startswith(prefix) for p in opened):
        return "open in a running process"
    return None
