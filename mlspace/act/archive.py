"""Compressing a log folder into ``<folder>.tar.gz`` beside it, before the folder goes to the
trash. The archive is written under a temporary name and renamed when complete, so a crash
never leaves a truncated archive that looks whole. It is created in the folder descriptor
the cleanup checked (see :mod:`mlspace.act.moves`), so it lands where the folder is."""

from __future__ import annotations

import contextlib
import os
import tarfile
from collections.abc import Iterator

from mlspace.safe_read import open_regular

_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
           | getattr(os, "O_CLOEXEC", 0))


def archive_path(folder: str) -> str:
    return folder.rstrip("/") + ".tar.gz"


class NotSmaller(Exception):
    """The archive would take as much as the folder: packing frees nothing (nothing is left
    behind)."""

    def __init__(self, archive_bytes: int) -> None:
        super().__init__(f"the archive takes {archive_bytes} bytes")
        self.archive_bytes = archive_bytes


def make_archive(parent_fd: int, name: str, folder: str, below: int | None = None
                 ) -> tuple[str, int]:
    """Pack the folder ``name`` of ``parent_fd`` (whose path is ``folder``; links stored as
    links); return the archive's path and what it takes on disk. Refuses when an archive of
    that name exists, and (NotSmaller) when it would take ``below`` bytes or more."""
    target = archive_path(folder)
    final, partial = f"{name}.tar.gz", f"{name}.tar.gz.partial"
    fd = os.open(partial, _CREATE, 0o644, dir_fd=parent_fd)
    try:
        with os.fdopen(fd, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz") as tar:
                _pack(tar, folder, name)
            raw.flush()
            os.fsync(raw.fileno())
            size = os.fstat(raw.fileno()).st_blocks * 512
        if below is not None and size >= below:
            raise NotSmaller(size)
        try:  # a link, not a rename: it never replaces an archive that appeared meanwhile
            os.link(partial, final, src_dir_fd=parent_fd, dst_dir_fd=parent_fd,
                    follow_symlinks=False)
        except FileExistsError:
            raise FileExistsError(f"{target} already exists") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(partial, dir_fd=parent_fd)
    return target, size


def _pack(tar: tarfile.TarFile, folder: str, name: str) -> None:
    """Add ``folder`` as ``name``: links as links, FIFOs and devices as entries (never
    opened), regular files read through :mod:`mlspace.safe_read` (a file swapped for a FIFO
    after it was listed cannot block the packing; it fails it, and the folder stays)."""
    for path, arcname in _entries(folder, name):
        info = tar.gettarinfo(path, arcname)
        if not info.isreg():
            tar.addfile(info)
            continue
        with open_regular(path) as (fd, st), os.fdopen(os.dup(fd), "rb") as content:
            if st.st_size != info.size:
                raise OSError(f"{path} changed while being packed")
            tar.addfile(info, content)


def _entries(folder: str, name: str) -> Iterator[tuple[str, str]]:
    """Every path of the folder (itself first, each folder before what it holds) with its
    name in the archive; links to folders are entries, never entered."""
    yield folder, name
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        inside = os.path.relpath(top, folder)
        for child in sorted(dirs + files):
            yield os.path.join(top, child), os.path.normpath(os.path.join(name, inside, child))
