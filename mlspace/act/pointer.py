"""What stands at an archived item's path: a symlink to the archived copy (the default:
code that loads ``outputs/run/checkpoint-500`` keeps working, from the slower disk), or a
small ``NAME.mlspace-archived.json`` stub beside the missing name (for trees where a link
would mislead a tool, or that are synced somewhere the tier is not mounted).

Both are written and removed through the folder descriptor the move checked, and only a
pointer that says it leads to the very archived copy is ever removed: anything else found
at that name belongs to the user.
"""

from __future__ import annotations

import json
import os
import stat
import time

from mlspace.classify.archived import STUB_SUFFIX
from mlspace.safe_read import Unreadable, read_text

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
    | getattr(os, "O_CLOEXEC", 0)


class PointerChanged(Exception):
    """Something other than mlspace's pointer to this archived copy stands at the path."""


def leave(parent_fd: int, name: str, path: str, dest: str, mode: str, cleanup_id: str) -> str:
    """Leave a pointer to ``dest`` for the item ``name`` (path ``path``) that just moved;
    return the pointer's path. Raises OSError (the name taken again, a full disk)."""
    if mode == "symlink":
        os.symlink(dest, name, dir_fd=parent_fd)
        return path
    doc = {"mlspace_archived": 1, "original": path, "archived_to": dest,
           "cleanup": cleanup_id, "time": time.time(),
           "bring_back": f"mlspace bring-back {path + STUB_SUFFIX}"}
    fd = os.open(name + STUB_SUFFIX, _CREATE, 0o644, dir_fd=parent_fd)
    try:
        os.write(fd, (json.dumps(doc, indent=1) + "\n").encode("utf-8", "surrogateescape"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path + STUB_SUFFIX


def target(path: str) -> str | None:
    """Where the pointer at ``path`` (an archived item's own path, or its stub) says the
    archived copy is; None when there is no pointer."""
    original = path[:-len(STUB_SUFFIX)] if path.endswith(STUB_SUFFIX) else path
    try:
        st = os.lstat(original)
    except OSError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        return os.readlink(original)
    try:
        doc = json.loads(read_text(original + STUB_SUFFIX, limit=64 * 1024))
    except (Unreadable, ValueError):
        return None
    where = doc.get("archived_to") if isinstance(doc, dict) else None
    return where if isinstance(where, str) else None


def original_of(path: str) -> str:
    """The archived item's own path, given it or its stub."""
    return path[:-len(STUB_SUFFIX)] if path.endswith(STUB_SUFFIX) else path


def present(parent_fd: int, name: str, dest: str) -> bool:
    """Is mlspace's pointer to ``dest`` there for ``name``?"""
    return _symlink_to(parent_fd, name, dest) or _stub_to(parent_fd, name, dest)


def remove(parent_fd: int, name: str, dest: str) -> None:
    """Remove the pointer to ``dest`` left for ``name``. Nothing there is fine; anything
    else at the name raises PointerChanged and is left alone."""
    if _symlink_to(parent_fd, name, dest):
        os.unlink(name, dir_fd=parent_fd)
    elif _stub_to(parent_fd, name, dest):
        if _kind(parent_fd, name) is not None:
            raise PointerChanged("a new item stands at the archived item's path")
        os.unlink(name + STUB_SUFFIX, dir_fd=parent_fd)
    elif _kind(parent_fd, name) is not None:
        raise PointerChanged("the link at this path was replaced; it no longer leads to the "
                             "archived copy")


def _kind(parent_fd: int, name: str) -> int | None:
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def _symlink_to(parent_fd: int, name: str, dest: str) -> bool:
    if _kind(parent_fd, name) != stat.S_IFLNK:
        return False
    return os.readlink(name, dir_fd=parent_fd) == dest


def _stub_to(parent_fd: int, name: str, dest: str) -> bool:
    try:
        doc = json.loads(read_text(name + STUB_SUFFIX, limit=64 * 1024, dir_fd=parent_fd))
    except (Unreadable, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("archived_to") == dest
