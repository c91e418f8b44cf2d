"""Disk facts: for a path, its filesystem (mount point, size, used, free, the blocks kept for
root), where its trash folders lie, and how free space changes around an action.

This sits low in the house, below advice and acting, because both need the same facts:
advice asks whether the cold tier shares a disk with the scanned folders (archiving there
would free nothing), acting measures what the disk really got back. Every "freed" number
mlspace shows is a :class:`FreeSpace` difference of ``statvfs`` before and after, never a
sum of the sizes it meant to remove: a trash on the same disk, a hard link kept elsewhere
or a file still held open keeps the blocks, and only the filesystem knows.

A folder on a network mount whose server is gone blocks every ``stat``; :func:`device_of`
asks from a daemon thread and waits briefly, so planning on the GUI thread never freezes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: How long a question to a disk that may not answer waits (seconds).
PATIENCE = 0.3

_lock = threading.Lock()
_pending: dict[str, threading.Event] = {}  # folders whose stat has not returned yet


def _stat_device(path: str) -> int:
    return os.stat(path).st_dev


def device_of(path: str, patience: float = PATIENCE) -> int | None:
    """``path``'s device, or None when it is not there or does not answer in time. A folder
    that has not answered is not asked again until that stat returns, so a dead mount holds
    one thread, not one per question."""
    with _lock:
        if path in _pending:
            return None
        done = threading.Event()
        _pending[path] = done
    answer: list[int] = []

    def ask() -> None:
        try:
            answer.append(_stat_device(path))
        except OSError:
            pass
        finally:
            with _lock:
                _pending.pop(path, None)
            done.set()

    threading.Thread(target=ask, name="mlspace-device-of", daemon=True).start()
    done.wait(patience)
    return answer[0] if answer else None


def same_disk_as(root: str, scanned: Sequence[str]) -> str | None:
    """A scanned folder on the same filesystem as ``root`` (moving there frees nothing),
    or None; also None when ``root`` does not answer at once."""
    device = device_of(root)
    if device is None:
        return None
    return next((f for f in scanned if device_of(f) == device), None)


def mount_point(path: str) -> str:
    """The mount point of the filesystem holding ``path`` (the top folder of its volume)."""
    path = os.path.abspath(path)
    while not os.path.ismount(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def lstat_device(path: str | Path) -> int | None:
    try:
        return os.lstat(path).st_dev
    except OSError:
        return None


# -------------------------------------------------------------------------------- trash
def home_trash() -> Path:
    """The freedesktop home trash, ``$XDG_DATA_HOME/Trash``."""
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data_home) / "Trash"


def home_trash_device() -> int | None:
    """The device of the home trash, or of its nearest existing parent."""
    folder = home_trash()
    while folder != folder.parent:
        device = lstat_device(folder)  # a folder that cannot be read counts as absent
        if device is not None:
            return device
        folder = folder.parent
    return lstat_device(folder)


@dataclass(frozen=True)
class TrashPlace:
    """A trash folder an item on some filesystem may go to (freedesktop Trash spec)."""

    folder: Path
    private: bool  # a per-volume folder: must be the user's and closed to others (0700)


def trash_places(path: str) -> list[TrashPlace]:
    """Where an item at ``path`` may go, best first: the home trash when on the home
    filesystem, else the volume's shared ``.Trash/$uid`` (only if ``.Trash`` is a real,
    sticky folder) and the per-user ``.Trash-$uid``. Whether a place can be trusted is
    checked when it is opened (mlspace.act.trash)."""
    parent = os.path.dirname(os.path.abspath(path))
    if lstat_device(parent) == home_trash_device():
        return [TrashPlace(home_trash(), private=False)]
    top = Path(mount_point(parent))
    uid = os.getuid()
    out = []
    with contextlib.suppress(OSError):
        st = os.lstat(top / ".Trash")
        if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
            out.append(TrashPlace(top / ".Trash" / str(uid), private=True))
    out.append(TrashPlace(top / f".Trash-{uid}", private=True))
    return out


# --------------------------------------------------------------------------- free space
@dataclass(frozen=True)
class FileSystem:
    """One filesystem as ``statvfs`` sees it, in bytes."""

    mount: str
    device: int
    size: int  # every block
    free: int  # blocks not in use, those kept for root included
    available: int  # what an ordinary user may still write

    @property
    def used(self) -> int:
        return self.size - self.free

    @property
    def reserved(self) -> int:
        """Blocks kept for root (ext4's 5%): free, but not for the user."""
        return max(self.free - self.available, 0)

    @property
    def percent_full(self) -> float:
        """As ``df`` counts it: used against what the user could ever use."""
        usable = self.used + self.available
        return 100.0 * self.used / usable if usable else 0.0


def filesystem_of(path: str) -> FileSystem | None:
    """The filesystem holding ``path``, or None when it cannot be asked."""
    try:
        st = os.statvfs(path)
        device = os.stat(path).st_dev
    except OSError:
        return None
    return FileSystem(mount_point(path), device, st.f_blocks * st.f_frsize,
                      st.f_bfree * st.f_frsize, st.f_bavail * st.f_frsize)


def filesystems_of(paths: Iterable[str]) -> list[FileSystem]:
    """Each filesystem holding one of ``paths``, once, in the order first met."""
    seen: dict[int, FileSystem] = {}
    for path in paths:
        fs = filesystem_of(path)
        if fs is not None and fs.device not in seen:
            seen[fs.device] = fs
    return list(seen.values())


def available_bytes(dir_fd: int) -> int:
    """Space an ordinary user may still write on the open folder's filesystem."""
    st = os.statvfs(dir_fd)
    return st.f_bavail * st.f_frsize


_LIBC = ctypes.CDLL(None, use_errno=True)


def _flush(path: str) -> None:
    """Ask the filesystem to finish what it owes (ext4, XFS and btrfs free the blocks of a
    removed file at their next commit, and statvfs says so only then)."""
    syncfs = getattr(_LIBC, "syncfs", None)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        if syncfs is not None:
            syncfs(fd)
        else:  # pragma: no cover - not Linux
            os.sync()
    finally:
        os.close(fd)


class FreeSpace:
    """Free space of the filesystems of some folders, measured when made and again by
    :meth:`freed`: what an action really gave back (negative when something else wrote
    more meanwhile)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths: dict[int, str] = {}
        for path in paths:
            fs = filesystem_of(path)
            if fs is not None:
                self._paths.setdefault(fs.device, path)
        self.before = self._measure(flush=True)

    def _measure(self, flush: bool) -> dict[int, int]:
        out = {}
        for device, path in self._paths.items():
            if flush:
                _flush(path)
            with contextlib.suppress(OSError):
                st = os.statvfs(path)
                out[device] = st.f_bfree * st.f_frsize
        return out

    def freed(self) -> int:
        """Free space now less free space then, summed over the filesystems."""
        after = self._measure(flush=True)
        return sum(after[d] - self.before[d] for d in after if d in self.before)
