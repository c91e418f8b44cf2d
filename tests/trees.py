"""Builders for test trees with the awkward things real disks hold."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

NON_UTF8_NAME = b"caf\xe9-\xff.bin"  # latin-1 bytes: not valid UTF-8


def write(path: Path, size: int = 0, data: bytes | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if data is not None else os.urandom(size))
    return path


def make_awkward_tree(root: Path) -> Path:
    """Hard links, a sparse file, symlinks (file, dir, dangling, loop), a fifo, a non-UTF-8
    name, empty dirs, and a deep nest. Returns root."""
    write(root / "data" / "a.bin", 10_000)
    write(root / "data" / "b.bin", 5_000)
    os.link(root / "data" / "a.bin", root / "data" / "a-hardlink.bin")
    (root / "other").mkdir()
    os.link(root / "data" / "a.bin", root / "other" / "a-second-link.bin")
    with open(root / "sparse.img", "wb") as f:
        f.truncate(1 << 30)  # 1 GiB apparent, nothing allocated
        f.seek(1 << 20)
        f.write(b"x" * 4096)
    os.symlink("data/a.bin", root / "link-to-file")
    os.symlink("data", root / "link-to-dir")
    os.symlink("does/not/exist", root / "dangling")
    os.symlink("loop", root / "loop")
    os.mkfifo(root / "fifo")
    os.makedirs(root / "empty" / "nested-empty")
    with open(os.path.join(os.fsencode(root), NON_UTF8_NAME), "wb") as f:
        f.write(b"12345")
    deep = root / "deep"
    deep.mkdir()
    current = deep
    for i in range(40):
        current = current / f"level{i:02d}"
        current.mkdir()
    write(current / "bottom.txt", 100)
    return root


def make_very_long_path(root: Path, depth: int = 30) -> bytes:
    """A nest deeper than PATH_MAX (4096), built with directory fds. Returns the full path."""
    name = "d" * 200
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        leaf = os.open("leaf.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"bottom")
        os.close(leaf)
    finally:
        os.close(fd)
    return os.fsencode(root) + (b"/" + name.encode()) * depth + b"/leaf.txt"


def du(root: Path, *flags: str) -> int:
    """du -s with the given flags, in bytes."""
    out = subprocess.run(["du", "-s", *flags, str(root)], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def has_du() -> bool:
    return shutil.which("du") is not None
