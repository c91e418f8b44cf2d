"""Compressing a log folder into ``<folder>.tar.gz`` beside it, before the folder goes to the
trash. The archive is written under a temporary name and renamed when complete, so a crash
never leaves a truncated archive that looks whole. It is created in the folder descriptor
the cleanup checked (see :mod:`mlspace.act.moves`), so it lands where the folder is."""

from __future__ import annotations

import contextlib
import os
import tarfile

_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
           | getattr(os, "O_CLOEXEC", 0))


def archive_path(folder: str) -> str:
    return folder.rstrip("/") + ".tar.gz"


def make_archive(parent_fd: int, name: str, folder: str) -> str:
    """Pack the folder ``name`` of ``parent_fd`` (whose path is ``folder``; links stored as
    links) and return the archive's path. Refuses when an archive of that name exists."""
    target = archive_path(folder)
    final, partial = f"{name}.tar.gz", f"{name}.tar.gz.partial"
    fd = os.open(partial, _CREATE, 0o644, dir_fd=parent_fd)
    try:
        with os.fdopen(fd, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz") as tar:
                tar.add(folder, arcname=name, recursive=True)
            raw.flush()
            os.fsync(raw.fileno())
        try:  # a link, not a rename: it never replaces an archive that appeared meanwhile
            os.link(partial, final, src_dir_fd=parent_fd, dst_dir_fd=parent_fd,
                    follow_symlinks=False)
        except FileExistsError:
            raise FileExistsError(f"{target} already exists") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(partial, dir_fd=parent_fd)
    return target
