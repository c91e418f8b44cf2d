"""Moving to the OS trash and back.

On Linux (and other freedesktop systems) mlspace moves items itself, exactly as the
freedesktop.org Trash specification says: the home trash (``$XDG_DATA_HOME/Trash``) for
items on the home filesystem, the volume's ``.Trash/$uid`` or ``.Trash-$uid`` otherwise,
with a ``.trashinfo`` record (original path, deletion date) that file managers understand.
Doing it here rather than through send2trash tells mlspace where each item went, which
undo needs, and reads the trash location at call time. An item is only ever renamed into a
trash on its own filesystem: never copied across devices, never deleted.
On macOS and Windows items go to the system trash through send2trash; putting them back is
done from the Finder or the Recycle Bin.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

CAN_RESTORE = sys.platform.startswith("linux") or sys.platform.startswith("freebsd")


class TrashUnavailable(Exception):
    """No trash can take this path: nothing was done to it."""


@dataclass(frozen=True)
class TrashedItem:
    trash_file: str  # where the item is now
    info_file: str  # its .trashinfo record


def home_trash() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data_home) / "Trash"


def _mount_point(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.ismount(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def _device(path: str | Path) -> int | None:
    try:
        return os.lstat(path).st_dev
    except OSError:
        return None


def _home_trash_device() -> int | None:
    """The device of the home trash, or of its nearest existing parent."""
    folder = home_trash()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return _device(folder)


def trash_dirs_for(path: str) -> list[Path]:
    """Where an item at ``path`` may go, best first (freedesktop spec): the home trash when
    on the home filesystem, else the volume's shared ``.Trash/$uid`` (only if that is a real,
    sticky folder) and the per-user ``.Trash-$uid``."""
    parent = os.path.dirname(os.path.abspath(path))
    if _device(parent) == _home_trash_device():
        return [home_trash()]
    top = Path(_mount_point(parent))
    uid = os.getuid()
    dirs = []
    shared = top / ".Trash"
    with contextlib.suppress(OSError):
        st = os.lstat(shared)
        if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
            dirs.append(shared / str(uid))
    dirs.append(top / f".Trash-{uid}")
    return dirs


def _usable_trash(path: str) -> Path:
    """The trash folder to use for ``path``, created if needed; TrashUnavailable if none."""
    for folder in trash_dirs_for(path):
        try:
            for sub in (folder / "files", folder / "info"):
                sub.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            continue
        if os.access(folder / "files", os.W_OK) and os.access(folder / "info", os.W_OK) \
                and _device(folder / "files") == _device(os.path.dirname(path)):
            return folder
    raise TrashUnavailable(f"no trash folder can be used on the filesystem of {path}")


def check_trash_available(path: str) -> None:
    """Raise TrashUnavailable if no trash on this path's filesystem can take it."""
    if CAN_RESTORE:
        _usable_trash(path)


def _info_text(path: str, folder: Path) -> str:
    top = folder.parent if folder.name.startswith(".Trash-") else folder.parent.parent
    shown = path
    if folder != home_trash() and path.startswith(str(top).rstrip("/") + "/"):
        shown = os.path.relpath(path, top)  # the spec's relative form on other volumes
    quoted = urllib.parse.quote(os.fsencode(shown), safe="/")
    return (f"[Trash Info]\nPath={quoted}\n"
            f"DeletionDate={time.strftime('%Y-%m-%dT%H:%M:%S')}\n")


def move_to_trash(path: str) -> TrashedItem | None:
    """Move one path (a symlink as the link itself) to the trash; return where it went
    (None where the platform's trash cannot be read back)."""
    if not CAN_RESTORE:
        from send2trash import send2trash

        send2trash(path)
        return None
    folder = _usable_trash(path)
    base = os.path.basename(path.rstrip("/"))
    for n in range(1, 10_000):
        name = base if n == 1 else f"{base}.{n}"
        info = folder / "info" / f"{name}.trashinfo"
        try:
            fd = os.open(info, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(_info_text(path, folder))
            f.flush()
            os.fsync(f.fileno())
        target = folder / "files" / name
        if os.path.lexists(target):
            os.unlink(info)
            continue
        try:
            os.rename(path, target)
        except OSError:
            os.unlink(info)
            raise
        return TrashedItem(str(target), str(info))
    raise TrashUnavailable(f"the trash holds too many items named {base}")


def _all_trashed(path: str) -> list[TrashedItem]:
    """Every item in the trash whose record says it came from ``path``."""
    found = []
    for folder in trash_dirs_for(path):
        info_dir = folder / "info"
        if not info_dir.is_dir():
            continue
        stem = os.path.basename(path.rstrip("/"))
        for info in info_dir.glob(f"{glob_escape(stem)}*.trashinfo"):
            original = _original_path(info, folder)
            if original == path:
                found.append(TrashedItem(str(folder / "files" / info.name[:-len(".trashinfo")]),
                                         str(info)))
    return found


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _original_path(info: Path, trash_folder: Path) -> str | None:
    try:
        text = info.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("Path="):
            raw = urllib.parse.unquote_to_bytes(line[len("Path="):])
            value = os.fsdecode(raw)
            if not os.path.isabs(value):  # relative to the volume's top dir
                top = trash_folder.parent if trash_folder.name.startswith(".Trash-") \
                    else trash_folder.parent.parent
                value = os.path.join(top, value)
            return value
    return None


def locate(path: str, exclude: set[str] | None = None) -> TrashedItem | None:
    """The newest trashed item that came from ``path`` (ignoring the records in
    ``exclude``, which were there before)."""
    candidates = [i for i in _all_trashed(path) if i.info_file not in (exclude or set())
                  and os.path.lexists(i.trash_file)]
    if not candidates:
        return None
    return max(candidates, key=lambda i: os.lstat(i.info_file).st_mtime)


def restore(item: TrashedItem, destination: str) -> None:
    """Move a trashed item back to ``destination`` (which must not exist) and drop its
    record. Same filesystem, so this is a rename: byte-identical, links and times kept."""
    if os.path.lexists(destination):
        raise FileExistsError(destination)
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    os.rename(item.trash_file, destination)
    with contextlib.suppress(OSError):
        os.unlink(item.info_file)
