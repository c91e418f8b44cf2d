"""The one way mlspace opens a user's file to read it.

A workspace can hold anything under a record's name: a FIFO called ``core`` (opening it
blocks until a writer comes), a symlink called ``refs/pr`` pointing at ``/dev/zero`` (reading
it never ends), a ``trainer_state.json`` that links to a file outside the scanned tree. So
every read of a record, ref, header or marker goes through here, and here only:

- the path is ``lstat``-ed first and anything but a regular file is refused *without being
  opened* (opening a tape device rewinds it; opening a FIFO can block);
- the file is then opened ``O_NONBLOCK | O_NOFOLLOW`` (a symlink is never followed: a
  record is what is in the tree, not what a link points at) and ``fstat``-ed, and the opened
  file must be the one that was ``lstat``-ed (same device and inode), so a swap between the
  two calls is caught;
- its size is capped before reading and the read is capped too (the file may grow).

Failures raise :class:`Unreadable` with a short reason a person can read, never anything
else: callers treat the record as absent and may tell the user why.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Records larger than this are not read (a trainer_state.json with a huge log history).
MAX_RECORD_BYTES = 20 * 2**20

_OPEN_FLAGS = (os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))

_KIND_NAMES = {
    stat.S_IFDIR: "a folder", stat.S_IFLNK: "a symbolic link (not followed)",
    stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


class Unreadable(Exception):
    """The file cannot be used as a record; ``str(err)`` says why, in a few words."""


#: Unreadable's reason when nothing is at the path.
NOT_THERE = "no longer there"


def os_reason(err: OSError) -> str:
    if err.errno == errno.ENOENT:
        return NOT_THERE
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if err.errno == errno.ELOOP:
        return "a symbolic link (not followed)"
    return err.strerror or str(err)


def not_regular(mode: int) -> str | None:
    """Why an entry of this mode is no record ("is a FIFO, not a regular file"), or None."""
    if stat.S_ISREG(mode):
        return None
    return f"is {_KIND_NAMES.get(stat.S_IFMT(mode), 'not a regular file')}, not a regular file"


#: A further check of the opened file's ``fstat`` (mlspace.trust: whose it is); raises
#: Unreadable to refuse it.
Verify = Callable[[os.stat_result], None]


@contextmanager
def open_regular(path: str, *, max_size: int | None = None, dir_fd: int | None = None,
                 verify: Verify | None = None) -> Iterator[tuple[int, os.stat_result]]:
    """Open ``path`` (relative to ``dir_fd`` if given) for reading, as described in the
    module doc, and yield ``(fd, stat)``. Raises :class:`Unreadable`."""
    try:
        before = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as err:
        raise Unreadable(os_reason(err)) from None
    if (why := not_regular(before.st_mode)) is not None:
        raise Unreadable(why)
    if max_size is not None and before.st_size > max_size:
        raise Unreadable(f"larger than {max_size:,} bytes")
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as err:
        raise Unreadable(os_reason(err)) from None
    try:
        info = os.fstat(fd)
        if (why := not_regular(info.st_mode)) is not None:
            raise Unreadable(why)
        if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
            raise Unreadable("was replaced while being opened")
        if max_size is not None and info.st_size > max_size:
            raise Unreadable(f"larger than {max_size:,} bytes")
        if verify is not None:
            verify(info)
        yield fd, info
    finally:
        os.close(fd)


def _read_up_to(fd: int, limit: int) -> bytes:
    blocks, left = [], limit
    try:
        while left > 0 and (block := os.read(fd, min(left, 1 << 20))):
            blocks.append(block)
            left -= len(block)
    except OSError as err:
        raise Unreadable(os_reason(err)) from None
    return b"".join(blocks)


def read_bytes(path: str, limit: int = MAX_RECORD_BYTES, *, dir_fd: int | None = None,
               verify: Verify | None = None) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes."""
    with open_regular(path, max_size=limit, dir_fd=dir_fd, verify=verify) as (fd, _):
        data = _read_up_to(fd, limit + 1)  # one byte more tells a file that grew
    if len(data) > limit:
        raise Unreadable(f"grew past {limit:,} bytes while being read")
    return data


def read_head(path: str, length: int, *, dir_fd: int | None = None) -> bytes:
    """The first ``length`` bytes of a regular file of any size (a header)."""
    with open_regular(path, dir_fd=dir_fd) as (fd, _):
        return _read_up_to(fd, length)


def read_tail(path: str, length: int, *, verify: Verify | None = None) -> bytes:
    """The last ``length`` bytes of a regular file of any size (a Parquet footer's end)."""
    with open_regular(path, verify=verify) as (fd, info):
        try:
            os.lseek(fd, max(0, info.st_size - length), os.SEEK_SET)
        except OSError as err:
            raise Unreadable(os_reason(err)) from None
        return _read_up_to(fd, length)


def read_text(path: str, limit: int = MAX_RECORD_BYTES, *, dir_fd: int | None = None) -> str:
    """:func:`read_bytes`, decoded as UTF-8 (undecodable bytes replaced)."""
    return read_bytes(path, limit, dir_fd=dir_fd).decode("utf-8", "replace")


def iter_blocks(path: str, block_size: int = 1 << 20, *, max_size: int | None = None,
                dir_fd: int | None = None, verify: Verify | None = None) -> Iterator[bytes]:
    """The content of a regular file in blocks (for hashing large files), no more bytes
    than the size it had when opened."""
    with open_regular(path, max_size=max_size, dir_fd=dir_fd, verify=verify) as (fd, info):
        left = info.st_size
        while left > 0:
            block = _read_up_to(fd, min(block_size, left))
            if not block:
                return
            left -= len(block)
            yield block
