"""Compressing a log folder into ``<folder>.tar.gz`` beside it, before the folder goes to the
trash. The archive is written under a temporary name and renamed when complete, so a crash
never leaves a truncated archive that looks whole."""

from __future__ import annotations

import os
import tarfile


def archive_path(folder: str) -> str:
    return folder.rstrip("/") + ".tar.gz"


def make_archive(folder: str) -> str:
    """Pack ``folder`` (links stored as links) and return the archive's path. Refuses when
    an archive of that name exists."""
    target = archive_path(folder)
    if os.path.lexists(target):
        raise FileExistsError(f"{target} already exists")
    partial = target + ".partial"
    with tarfile.open(partial, "w:gz") as tar:
        tar.add(folder, arcname=os.path.basename(folder.rstrip("/")), recursive=True)
    with open(partial, "rb") as f:
        os.fsync(f.fileno())
    os.replace(partial, target)
    return target
