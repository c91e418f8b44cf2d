"""Helpers for cleanup tests: hash a whole tree, find what the trash holds, mount a second
filesystem."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mlspace.act.tier import Tier


def tier_at(cold: Path, link: str = "symlink") -> Tier:
    """The cold tier in ``cold`` (a mounted tmpfs, as a NAS or a second disk would be:
    archiving onto the scanned disk is refused), for the host "box"."""
    return Tier(str(cold), link=link, host="box")


def tree_digest(root: Path) -> dict[str, str]:
    """Relative path -> content hash (files), link target (symlinks) or "dir"; with mtimes,
    so a restore must bring back the very same files, not copies."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if os.path.islink(path):
                out[rel] = "link:" + os.readlink(path)
            elif os.path.isdir(path):
                out[rel] = "dir"
            else:
                out[rel] = _sparse_aware_hash(path) + f"@{st.st_size}@{st.st_mtime_ns}"
    return out


def _sparse_aware_hash(path: str) -> str:
    """Hash of a file's data regions and where they lie: holes read as zeros, so this
    equals comparing every byte, without reading gigabytes of zeros of sparse files."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError:  # no more data: the rest is a hole
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            digest.update(f"{start}:{end}:".encode())
            os.lseek(fd, start, os.SEEK_SET)
            remaining = end - start
            while remaining:
                chunk = os.read(fd, min(remaining, 1 << 20))
                if not chunk:
                    break
                digest.update(chunk)
                remaining -= len(chunk)
            offset = end
    finally:
        os.close(fd)
    return digest.hexdigest()


def trash_contents(home: Path) -> tuple[list[str], list[str]]:
    trash = home / ".local" / "share" / "Trash"
    files = sorted(os.listdir(trash / "files")) if (trash / "files").exists() else []
    infos = sorted(os.listdir(trash / "info")) if (trash / "info").exists() else []
    return files, infos


def mount_tmpfs(where: Path, size: str, options: str = "") -> None:
    """Mount a small tmpfs at ``where`` (another filesystem, as a NAS or a second disk
    would be), with more mount ``options`` (``ro``: read-only, as a NAS exported so; a
    ``mode``); skip the test where that is not possible (not root, no mount)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    refused = try_mount_tmpfs(where, size, options)
    if refused is not None:
        pytest.skip(f"cannot mount a tmpfs here: {refused}")


def try_mount_tmpfs(where: Path, size: str, options: str = "") -> str | None:
    """Mount a tmpfs at ``where`` (made when missing); None when mounted, else why not."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return "mounting a tmpfs needs root"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(filter(None, [
        f"size={size}", options])), "tmpfs", str(where)],
                          capture_output=True, text=True)
    return None if done.returncode == 0 else done.stderr.strip()


def unmount(where: Path) -> None:
    subprocess.run(["umount", "-l", str(where)], check=False)


@contextmanager
def mounted(where: Path, size: str = "256m", options: str = "") -> Iterator[Path]:
    """A tmpfs at ``where`` for the length of the block (the test is skipped where none
    can be mounted)."""
    mount_tmpfs(where, size, options)
    try:
        yield where
    finally:
        unmount(where)


# Fixtures of the tests that act on files, each on a filesystem of its own, so that what
# the disk gets back can be measured with statvfs, free of whatever else this machine
# writes to its own disk meanwhile. A conftest registers them by importing them.
@pytest.fixture
def cold(tmp_path: Path) -> Iterator[Path]:
    """A 256 MiB tmpfs as the cold tier."""
    with mounted(tmp_path / "cold") as where:
        yield where


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 MiB tmpfs for the workspace: its trash is the volume's .Trash-UID."""
    with mounted(tmp_path / "disk") as where:
        yield where
