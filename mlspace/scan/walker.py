"""The per-process directory walk: lists directories and records every entry in compact columns.

This is the hot loop of mlspace. It runs in the scanning process itself or in worker processes,
so everything it produces is plain, picklable data (``array`` columns and byte strings), and
the per-entry work is held to one ``stat`` and a handful of ``append`` calls: no object per
file, no path string per file, no function call that can be avoided.

A walk is given a list of directories to start from and an *entry budget*. It lists
directories depth first until the stack is empty or the budget is spent, and hands back the
directories it did not reach as ``pending`` so a coordinator can give them to another worker.
That keeps work balanced across processes and lets progress and cancellation be handled
between walks.

Directory references: an entry recorded in this walk is referred to by its local index
(``>= 0``); a directory the coordinator handed in (already recorded elsewhere) by
``-1 - global_index``. The coordinator resolves both when it merges the chunk.
"""

from __future__ import annotations

import errno
import os
from array import array
from collections.abc import Callable
from itertools import islice
from typing import NamedTuple

#: ``st_mode >> 12`` of a directory; the kind column stores that shifted file-type value.
KIND_DIR = 0o040000 >> 12
KIND_FILE = 0o100000 >> 12
KIND_SYMLINK = 0o120000 >> 12

#: Link counts are stored in 16 bits (2 bytes a file matter at millions of files); only a
#: directory with 65,533+ subdirectories has more, and for directories the count is unused.
NLINK_CAP = 0xFFFF

#: A folder whose path would be longer is recorded but not listed: a bound on hostile depths
#: (the paths of folders waiting to be listed stay bounded), far past any real tree and
#: eight times the kernel's PATH_MAX. The native walker has the same bound.
MAX_PATH_BYTES = 32 * 1024
TOO_DEEP = "nested too deep to list (its path is over 32 KiB)"

#: How many directory entries are stat-ed between two looks at the cancel flag.
_CANCEL_CHECK_EVERY = 4096

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


class DirTask(NamedTuple):
    """A directory to list: its path, its reference (see module doc) and its root's device."""

    path: str
    ref: int
    root_dev: int


class WalkChunk:
    """What one walk recorded, in entry order. Columns are parallel, one item per entry.
    (A plain class: made at start-up, a dataclass costs more to define than it saves.)"""

    def __init__(self) -> None:
        self.names: list[bytes] = []  # one b"\0"-joined block per listed dir
        self.kind = array("B")  # st_mode >> 12
        self.size = array("q")  # st_size (apparent)
        self.blocks = array("q")  # st_blocks (512-byte units)
        self.mtime = array("q")  # whole seconds (st_mtime's floor)
        self.ino = array("Q")
        self.nlink = array("H")  # capped at NLINK_CAP
        self.uid = array("I")  # st_uid, the owner
        # one row per listed directory, flattened: (ref, first child index, child count,
        # st_dev)
        self.dirs = array("q")
        self.dir_paths: list[str] = []  # the path of each listed directory
        self.pending: list[DirTask] = []
        self.errors: list[tuple[str, str]] = []
        self.other_filesystems: list[str] = []
        self.last_dir = ""

    def __len__(self) -> int:
        return len(self.kind)


def describe_error(err: OSError) -> str:
    """A short, human message for an OSError, without the path (the path is recorded apart)."""
    if err.errno == errno.ENOENT:
        return "vanished during the scan"
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if err.errno == errno.ELOOP:
        return "too many levels of symbolic links"
    return err.strerror or str(err)


def open_directory(path: str) -> int:
    """Open a directory for listing; fall back to hopping component by component when the
    path is longer than the kernel accepts in one call (deeply nested trees)."""
    try:
        return os.open(path, _OPEN_FLAGS)
    except OSError as err:
        if err.errno != errno.ENAMETOOLONG:
            raise
    parts = [p for p in path.split("/") if p]
    fd = os.open("/" if path.startswith("/") else ".", _OPEN_FLAGS)
    try:
        for part in parts:
            nxt = os.open(part, _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0), dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def walk(
    tasks: list[DirTask],
    budget: int,
    *,
    cross_filesystems: bool = False,
    exclude: Callable[[str, str], object] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> WalkChunk:
    """List ``tasks`` and everything below them, until done or ``budget`` entries are recorded.

    ``exclude(dir_prefix, name)`` is truthy for entries to leave out entirely. ``cancelled()``
    is polled every few thousand entries; when it turns true the walk stops and returns what
    it has, with the directories it did not list in ``pending``.
    """
    chunk = WalkChunk()
    names_blocks = chunk.names
    kind_append = chunk.kind.append
    size_append = chunk.size.append
    blocks_append = chunk.blocks.append
    mtime_append = chunk.mtime.append
    ino_append = chunk.ino.append
    nlink_append = chunk.nlink.append
    uid_append = chunk.uid.append
    dirs_extend = chunk.dirs.extend
    dir_paths_append = chunk.dir_paths.append
    errors = chunk.errors
    stack = list(reversed(tasks))
    recorded = 0

    while stack:
        if recorded >= budget or (cancelled is not None and cancelled()):
            break
        task = stack.pop()
        path, ref, root_dev = task.path, task.ref, task.root_dev
        chunk.last_dir = path
        try:
            fd = open_directory(path)
        except OSError as err:
            errors.append((path, describe_error(err)))
            continue
        prefix = path if path.endswith("/") else path + "/"
        first = recorded
        names: list[str] = []
        names_append = names.append
        subdirs: list[DirTask] = []
        try:
            dev = os.fstat(fd).st_dev
            with os.scandir(fd) as listing:
                while True:
                    batch = list(islice(listing, _CANCEL_CHECK_EVERY))
                    if not batch:
                        break
                    for entry in batch:
                        name = entry.name
                        if exclude is not None and exclude(prefix, name):
                            continue
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError as err:
                            errors.append((prefix + name, describe_error(err)))
                            continue
                        kind = st.st_mode >> 12
                        names_append(name)
                        kind_append(kind)
                        size_append(st.st_size)
                        blocks_append(st.st_blocks)
                        mtime_append(st.st_mtime_ns // 1_000_000_000)
                        ino_append(st.st_ino)
                        uid_append(st.st_uid)
                        try:
                            nlink_append(st.st_nlink)
                        except OverflowError:  # directories with 65k+ subdirectories
                            nlink_append(NLINK_CAP)
                        if kind == KIND_DIR:
                            if st.st_dev != root_dev and not cross_filesystems:
                                chunk.other_filesystems.append(prefix + name)
                            elif _too_long(prefix, name):
                                errors.append((prefix + name, TOO_DEEP))
                            else:
                                subdirs.append(
                                    DirTask(prefix + name, first + len(names) - 1, root_dev)
                                )
                    if cancelled is not None and cancelled():
                        break
        except OSError as err:
            # Listing failed part way (e.g. the directory was removed): keep what was read.
            errors.append((path, describe_error(err)))
        finally:
            os.close(fd)
        if names:
            names_blocks.append("\0".join(names).encode("utf-8", "surrogateescape"))
        dirs_extend((ref, first, len(names), dev))
        dir_paths_append(path)
        recorded += len(names)
        stack.extend(reversed(subdirs))

    chunk.pending = list(reversed(stack))
    return chunk


def _too_long(prefix: str, name: str) -> bool:
    """Whether the path prefix + name is over MAX_PATH_BYTES bytes (encoded only when its
    length in characters comes near: a character is at most 4 bytes)."""
    if 4 * (len(prefix) + len(name)) <= MAX_PATH_BYTES:
        return False
    return len(os.fsencode(prefix + name)) > MAX_PATH_BYTES


def walk_in_worker(
    tasks: list[DirTask], budget: int, cross_filesystems: bool, exclude_patterns: tuple[str, ...]
) -> WalkChunk:
    """Entry point for worker processes: rebuilds the exclude matcher (not picklable) and walks."""
    from mlspace.scan.exclude import compile_excludes

    return walk(
        tasks,
        budget,
        cross_filesystems=cross_filesystems,
        exclude=compile_excludes(exclude_patterns),
    )
