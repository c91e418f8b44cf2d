"""Moving to the OS trash and back.

On Linux (and other freedesktop systems) mlspace moves items itself, exactly as the
freedesktop.org Trash specification says: the home trash (``$XDG_DATA_HOME/Trash``) for
items on the home filesystem, the volume's ``.Trash/$uid`` or ``.Trash-$uid`` otherwise,
with a ``.trashinfo`` record (original path, deletion date) that file managers understand.
Doing it here rather than through send2trash tells mlspace where each item went, which
undo needs. An item is only ever renamed into a trash on its own filesystem: never copied
across devices, never deleted.

On a shared volume (cluster scratch: world-writable, sticky) another user can create the
trash folder's name before you do. So a trash folder is used only when it is a real folder,
not a link, owned by you and closed to others (mode 0700 for the per-volume folders, as the
specification asks); the volume's ``.Trash`` only when it is a real, sticky folder. Any
other is passed over with the reason, and nothing is done to it. All work inside a trash
folder goes through descriptors of the folders that were checked.

On macOS and Windows items go to the system trash through send2trash; putting them back is
done from the Finder or the Recycle Bin.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from mlspace.act.folder_times import FolderTimes
from mlspace.act.moves import parent_of
from mlspace.disks import TrashPlace, home_trash, lstat_device, trash_places
from mlspace.safe_read import Unreadable, read_text

CAN_RESTORE = sys.platform.startswith("linux") or sys.platform.startswith("freebsd")

_DIR_FLAGS = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_CLOEXEC", 0))


class TrashUnavailable(Exception):
    """No trash can take this path: nothing was done to it."""


@dataclass(frozen=True)
class TrashedItem:
    trash_file: str  # where the item is now
    info_file: str  # its .trashinfo record


#: What a message about a move to the trash adds: the trash lies on the item's own
#: filesystem, so the disk has the space back only once the item is freed from it.
SPACE_BACK_WHEN_EMPTIED = ("the disk gets the space back once it is freed from the trash "
                           "(Free now, or by itself after the trash's retention)")


def trash_holding(trash_file: str) -> str | None:
    """The trash folder an item moved into lies in (``TRASH/files/NAME``), or None where
    it is not such a path (the system trash of macOS and Windows)."""
    files = os.path.dirname(trash_file)
    if not os.path.isabs(trash_file) or os.path.basename(files) != "files":
        return None
    return os.path.dirname(files)


def trash_dirs_for(path: str) -> list[Path]:
    return [c.folder for c in trash_places(path)]


def _open_owned_dir(parent_fd: int, name: str, private: bool) -> int:
    """Open (creating it 0700 if missing) a folder that must be ours; raise
    TrashUnavailable with the reason otherwise."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o700, dir_fd=parent_fd)
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            raise TrashUnavailable(f"{name} is a symbolic link or not a folder") from None
        raise TrashUnavailable(f"{name} cannot be opened ({err.strerror})") from None
    st = os.fstat(fd)
    reason = None
    if st.st_uid != os.getuid():
        reason = f"{name} belongs to another user (uid {st.st_uid})"
    elif private and st.st_mode & 0o077:
        reason = f"{name} is open to other users (mode {stat.S_IMODE(st.st_mode):o}, not 700)"
    if reason is not None:
        os.close(fd)
        raise TrashUnavailable(reason)
    return fd


@dataclass
class OpenTrash:
    folder: Path
    files_fd: int
    info_fd: int


@contextlib.contextmanager
def _open_trash(candidate: TrashPlace) -> Iterator[OpenTrash]:
    """The checked ``files/`` and ``info/`` folders of one trash, as descriptors."""
    folder = candidate.folder
    try:
        if not candidate.private:  # the home trash may sit below a linked data folder
            folder.parent.mkdir(parents=True, exist_ok=True)
        parent_fd = os.open(folder.parent, _DIR_FLAGS if candidate.private
                            else os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as err:
        raise TrashUnavailable(f"{folder.parent} cannot be opened ({err.strerror})") from None
    fds: list[int] = []
    try:
        if folder.parent.name == ".Trash" and not os.fstat(parent_fd).st_mode & stat.S_ISVTX:
            raise TrashUnavailable(f"{folder.parent} is not sticky")
        fds.append(_open_owned_dir(parent_fd, folder.name, candidate.private))
        fds.append(_open_owned_dir(fds[0], "files", private=False))
        fds.append(_open_owned_dir(fds[0], "info", private=False))
        yield OpenTrash(folder, fds[1], fds[2])
    except OSError as err:
        raise TrashUnavailable(f"{folder} cannot be used ({err.strerror})") from None
    finally:
        for fd in (parent_fd, *fds):
            os.close(fd)


@contextlib.contextmanager
def _trash_for(path: str, device: int) -> Iterator[OpenTrash]:
    """The first usable trash for an item on ``device``; TrashUnavailable listing why each
    candidate was passed over."""
    refused = []
    for candidate in trash_places(path):
        try:
            with _open_trash(candidate) as opened:
                if os.fstat(opened.files_fd).st_dev != device:
                    refused.append(f"{candidate.folder} is on another filesystem")
                    continue
                yield opened
                return
        except TrashUnavailable as err:
            refused.append(f"{candidate.folder}: {err}")
    raise TrashUnavailable("no trash folder can be used on the filesystem of "
                           f"{path} ({'; '.join(refused) or 'none found'})")


def check_trash_available(path: str) -> None:
    """Raise TrashUnavailable if no trash on this path's filesystem can take it."""
    if not CAN_RESTORE:
        return
    device = lstat_device(os.path.dirname(os.path.abspath(path)))
    with _trash_for(path, device if device is not None else -1):
        pass


def _volume_top(folder: Path) -> Path:
    return folder.parent if folder.name.startswith(".Trash-") else folder.parent.parent


def _info_text(path: str, folder: Path) -> str:
    top = _volume_top(folder)
    shown = path
    if folder != home_trash() and path.startswith(str(top).rstrip("/") + "/"):
        shown = os.path.relpath(path, top)  # the spec's relative form on other volumes
    quoted = urllib.parse.quote(os.fsencode(shown), safe="/")
    return (f"[Trash Info]\nPath={quoted}\n"
            f"DeletionDate={time.strftime('%Y-%m-%dT%H:%M:%S')}\n")


def _write_info(info_fd: int, name: str, text: str) -> bool:
    """Create ``name`` in the info folder; False if the name is taken. A write that fails
    (a full disk) leaves no empty record behind."""
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=info_fd)
    except FileExistsError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=info_fd)
        raise
    return True


def trash_entry(parent_fd: int, name: str, path: str) -> TrashedItem:
    """Move the entry ``name`` of the open folder ``parent_fd`` (whose path is ``path``) to
    the trash, as the entry itself (a symlink moves as the link), and say where it went."""
    device = os.fstat(parent_fd).st_dev
    with _trash_for(path, device) as trash:
        for n in range(1, 10_000):
            stored = name if n == 1 else f"{name}.{n}"
            record = _info_text(path, trash.folder)
            if not _write_info(trash.info_fd, f"{stored}.trashinfo", record):
                continue
            if _exists(trash.files_fd, stored):
                os.unlink(f"{stored}.trashinfo", dir_fd=trash.info_fd)
                continue
            try:
                os.rename(name, stored, src_dir_fd=parent_fd, dst_dir_fd=trash.files_fd)
            except OSError:
                os.unlink(f"{stored}.trashinfo", dir_fd=trash.info_fd)
                raise
            return TrashedItem(str(trash.folder / "files" / stored),
                               str(trash.folder / "info" / f"{stored}.trashinfo"))
    raise TrashUnavailable(f"the trash holds too many items named {name}")


def _exists(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def move_to_trash(path: str, roots: Sequence[str]) -> TrashedItem | None:
    """Move one path inside ``roots`` to the trash (reached as :mod:`moves` describes);
    return where it went (None where the platform's trash cannot be read back)."""
    if not CAN_RESTORE:
        from send2trash import send2trash

        send2trash(path)
        return None
    with parent_of(path, roots) as (parent_fd, name):
        return trash_entry(parent_fd, name, path)


# ------------------------------------------------------------------------- reading back
def original_path(info_file: str) -> str | None:
    """The ``Path=`` a .trashinfo record gives, made absolute."""
    try:
        text = read_text(info_file, limit=64 * 1024)
    except Unreadable:
        return None
    for line in text.splitlines():
        if line.startswith("Path="):
            value = os.fsdecode(urllib.parse.unquote_to_bytes(line[len("Path="):]))
            if not os.path.isabs(value):  # relative to the volume's top dir
                value = os.path.join(_volume_top(Path(info_file).parent.parent), value)
            return value
    return None


def _all_trashed(path: str) -> list[TrashedItem]:
    """Every item in the trash whose record says it came from ``path``."""
    found = []
    for folder in trash_dirs_for(path):
        info_dir = folder / "info"
        if not info_dir.is_dir() or info_dir.is_symlink():
            continue
        stem = os.path.basename(path.rstrip("/"))
        for info in info_dir.glob(f"{glob_escape(stem)}*.trashinfo"):
            if original_path(str(info)) == path:
                found.append(TrashedItem(str(folder / "files" / info.name[:-len(".trashinfo")]),
                                         str(info)))
    return found


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def locate(path: str, exclude: set[str] | None = None) -> TrashedItem | None:
    """The newest trashed item that came from ``path`` (ignoring the records in
    ``exclude``, which were there before)."""
    candidates = [i for i in _all_trashed(path) if i.info_file not in (exclude or set())
                  and os.path.lexists(i.trash_file)]
    if not candidates:
        return None
    return max(candidates, key=lambda i: os.lstat(i.info_file).st_mtime)


def opened(item: TrashedItem) -> contextlib.AbstractContextManager[OpenTrash]:
    """The checked ``files/`` and ``info/`` folders of the trash holding ``item``."""
    folder = Path(item.trash_file).parent.parent
    return _open_trash(TrashPlace(folder, private=folder != home_trash()))


def restore(item: TrashedItem, destination: str, roots: Sequence[str],
            times: FolderTimes | None = None) -> int | None:
    """Move a trashed item back to ``destination`` (which must not exist), reached from its
    scanned root without following links, and drop its record. Same filesystem, so this
    is a rename: byte-identical, links and times kept. With ``times`` the folder gets its
    time back as well (mlspace.act.folder_times); the time set, or None."""
    with opened(item) as trash, \
            parent_of(destination, roots, create=True) as (parent_fd, name):
        files = Path(item.trash_file)
        if _exists(parent_fd, name):
            raise FileExistsError(destination)
        untouched = os.fstat(parent_fd)
        os.rename(files.name, name, src_dir_fd=trash.files_fd, dst_dir_fd=parent_fd)
        with contextlib.suppress(OSError):
            os.unlink(Path(item.info_file).name, dir_fd=trash.info_fd)
        return times.put_back(parent_fd, untouched) if times is not None else None
