"""Packing a log folder that holds a FIFO, a device link and a folder link: entries are
stored as what they are, nothing is opened but regular files, nothing hangs."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

from hostile_helpers import answers_quickly

from mlspace.act.archive import make_archive


def test_a_log_folder_with_a_fifo_and_links_packs_without_opening_them(tmp_path: Path) -> None:
    """FIFO, link to /dev/zero, link to a folder outside: stored as entries, not read."""
    logs = tmp_path / "wandb" / "run-1"
    (logs / "files").mkdir(parents=True)
    (logs / "files" / "output.log").write_text("step 0 loss 1.0\n")
    os.mkfifo(logs / "files" / "pipe")
    (logs / "zero").symlink_to("/dev/zero")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("not to be packed")
    (logs / "elsewhere").symlink_to(tmp_path / "outside")
    fd = os.open(logs.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        packed, _ = answers_quickly(make_archive, fd, "run-1", str(logs))
    finally:
        os.close(fd)
    with tarfile.open(packed) as tar:
        members = {m.name: m for m in tar.getmembers()}
        assert members["run-1/files/pipe"].isfifo()
        assert members["run-1/zero"].issym() and members["run-1/zero"].linkname == "/dev/zero"
        assert members["run-1/elsewhere"].issym()
        assert not any("secret" in name for name in members)
        log = tar.extractfile("run-1/files/output.log")
        assert log is not None and log.read() == b"step 0 loss 1.0\n"
    assert not (logs.parent / "run-1.tar.gz.partial").exists()
