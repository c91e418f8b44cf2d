"""One unattended run per tree at a time.

A timer can fire while yesterday's run is still copying to a slow NAS, or the user can run
``apply-policy`` by hand meanwhile. Two runs on the same tree would plan from the same scan
and race for the same items. So a run holds a lock for every tree it works on: an
exclusive ``flock`` on a file in mlspace's data folder named by the tree's real path, and a
shared one on each folder above it, so a run on ``/ws`` and one on ``/ws/sub`` exclude each
other while runs on ``/ws/a`` and ``/ws/b`` do not. The kernel drops the locks when the
process ends, however it ends: a killed run never leaves a stale lock. The lock file says
who holds it, so the second run can tell the user.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from mlspace import trust
from mlspace.config import data_dir
from mlspace.safe_read import Unreadable, read_text


class Busy(Exception):
    """Another mlspace run holds the tree; ``str(err)`` says which and since when."""


def lock_dir() -> Path:
    return data_dir() / "locks"


def _file_for(path: str) -> Path:
    digest = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return lock_dir() / f"{digest}.lock"


def _ancestors(path: str) -> list[str]:
    out = []
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return out
        out.append(parent)
        path = parent


def _plan(roots: Sequence[str]) -> list[tuple[str, bool]]:
    """(path, exclusive) for every lock to take, in one global order (no deadlock)."""
    wanted: dict[str, bool] = {}
    for root in roots:
        real = os.path.realpath(root)
        wanted[real] = True
        for parent in _ancestors(real):
            wanted.setdefault(parent, False)
    return sorted(wanted.items())


def _holder(path: Path) -> str:
    try:
        return read_text(str(path), limit=4096).strip() or "another mlspace run"
    except Unreadable:
        return "another mlspace run"


def _take(path: str, exclusive: bool, deadline: float) -> int:
    lock_file = _file_for(path)
    # Never through a link: the holder's note is written into the file, which truncates it.
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as err:  # a link or a folder in its place, a read-only data folder
        raise Busy(f"cannot lock {path}: {lock_file}: {err.strerror}") from err
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return fd
        except OSError as err:
            if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                os.close(fd)
                raise
        if time.monotonic() >= deadline:
            os.close(fd)
            raise Busy(f"{_holder(lock_file)} is working on {path}; try again when it is "
                       "done (or pass --wait SECONDS)")
        time.sleep(0.2)


@contextlib.contextmanager
def hold(roots: Sequence[str], what: str, wait: float = 0.0) -> Iterator[None]:
    """Hold the trees ``roots`` for the run ``what`` (shown to a second run), waiting up to
    ``wait`` seconds for another run to finish; Busy if it does not."""
    trust.make_folders(lock_dir())  # the user's alone, whatever the umask
    try:  # a lock folder others can write to could hold their links in the lock files' place
        trust.store(lock_dir())
    except Unreadable as err:
        raise Busy(f"cannot lock: {trust.reason(lock_dir(), err)}") from err
    deadline = time.monotonic() + wait
    taken: list[tuple[int, bool]] = []
    try:
        for path, exclusive in _plan(roots):
            fd = _take(path, exclusive, deadline)
            taken.append((fd, exclusive))
            if exclusive:
                note = f"{what} (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})\n"
                os.ftruncate(fd, 0)
                os.pwrite(fd, note.encode("utf-8", "surrogateescape"), 0)
        yield
    finally:
        for fd, exclusive in taken:
            if exclusive:  # the note must not outlive the hold
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
            os.close(fd)
