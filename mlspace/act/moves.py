"""Finding the folder an item lives in, through directory file descriptors.

A path is a promise about the moment it is resolved, not the moment a ``rename`` runs: if a
folder on the way is swapped for a symlink in between, a path-based move acts on whatever
the link points at — another user's tree, or raw data outside the scanned root. So every
move and every restore starts from the scanned root and descends one component at a time
with ``O_DIRECTORY | O_NOFOLLOW``; a component that is no longer a real folder stops it.
The move then renames relative to the folder descriptor it holds, after checking that the
entry there is the one the scan saw (same inode, same kind). What is checked is what moves:
a later swap of the item itself can only make the rename take a symlink, never what it
points at.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class MoveRefused(Exception):
    """The item cannot be reached safely; ``str(err)`` says why. Nothing was done to it."""


def containing_root(path: str, roots: Sequence[str]) -> str:
    """The scanned root that holds ``path`` (compared as written: the descent below is what
    makes it true on disk). The root itself is never an item."""
    for root in roots:
        base = root.rstrip(os.sep) or os.sep
        if path.startswith(base.rstrip(os.sep) + os.sep) and path != base:
            return base
    raise MoveRefused("not inside a scanned folder")


def _components(path: str, root: str) -> list[str]:
    rest = path[len(root.rstrip(os.sep)) + 1:]
    parts = [p for p in rest.split(os.sep) if p]
    if not parts or any(p in (".", "..") for p in parts):
        raise MoveRefused("not inside a scanned folder")
    return parts


def _open_child_dir(parent_fd: int, name: str, shown: str, create: bool,
                    owned: bool = False) -> int:
    try:
        fd = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=parent_fd)
        if owned:
            _check_owned(fd, shown)
        return fd
    except FileNotFoundError:
        if not create:
            raise MoveRefused(f"{shown} is no longer there") from None
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            raise MoveRefused(f"{shown} is no longer a folder (a link or a file took its "
                              "place)") from None
        raise MoveRefused(f"{shown} cannot be opened ({err.strerror})") from None
    try:
        os.mkdir(name, 0o700 if owned else 0o755, dir_fd=parent_fd)
    except FileExistsError:
        pass
    except OSError as err:
        raise MoveRefused(f"{shown} cannot be created ({err.strerror})") from None
    return _open_child_dir(parent_fd, name, shown, create=False, owned=owned)


def _check_owned(fd: int, shown: str) -> None:
    """Raise MoveRefused (closing ``fd``) unless the folder is the user's and closed to
    everyone else: what mlspace makes where it keeps the only copy of an item."""
    st = os.fstat(fd)
    if st.st_uid == os.geteuid() and not st.st_mode & 0o077:
        return
    os.close(fd)
    whose = "yours" if st.st_uid == os.geteuid() else f"another user's (uid {st.st_uid})"
    raise MoveRefused(f"{shown} is {whose} with mode {stat.S_IMODE(st.st_mode):o}: mlspace "
                      "keeps archived items only in folders it made for you (mode 700); "
                      "it was not used, and nothing was moved")


@contextmanager
def parent_of(path: str, roots: Sequence[str], *, create: bool = False, owned: bool = False
              ) -> Iterator[tuple[int, str]]:
    """Yield ``(folder fd, name)`` for ``path``: the folder reached from its scanned root
    without following any link below the root. With ``create``, missing folders on the way
    are made (a restore into a tree whose folders were removed since). With ``owned``
    (the cold tier) every folder below the root must be the user's and closed to others,
    and those made are mode 0700."""
    root = containing_root(path, roots)
    parts = _components(path, root)
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError as err:
        raise MoveRefused(f"the scanned folder {root} cannot be opened ({err.strerror})"
                          ) from None
    try:
        shown = root.rstrip(os.sep)
        for part in parts[:-1]:
            shown = f"{shown}{os.sep}{part}"
            nxt = _open_child_dir(fd, part, shown, create, owned)
            os.close(fd)
            fd = nxt
        yield fd, parts[-1]
    finally:
        os.close(fd)


def entry_stat(parent_fd: int, name: str) -> os.stat_result | None:
    """The entry itself (never what a link points at), or None when it is gone."""
    try:
        return os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def same_entry(st: os.stat_result, is_dir: bool, inode: int) -> str | None:
    """Why the entry found is not the one scanned, or None. ``inode`` 0 means unknown."""
    if stat.S_ISLNK(st.st_mode) and is_dir:
        return "is no longer a folder (a link took its place)"
    if stat.S_ISDIR(st.st_mode) != is_dir:
        return "is no longer a folder" if is_dir else "is now a folder"
    if inode and st.st_ino != inode:
        return "was replaced by another item since the scan"
    return None
