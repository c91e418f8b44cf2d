"""`-o` naming something that is not a plain file: a FIFO (or /dev/null, /dev/stdout) is
written into, never replaced by a file; a link to a file keeps being a link."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from pathlib import Path

from cli_runner import run_mlspace

from mlspace.demo import generate


def _mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args, timeout=120)


def test_an_output_fifo_is_written_into_not_replaced(tmp_path: Path) -> None:
    """`scan -o FIFO` (as `-o /dev/null` would be): the FIFO stays a FIFO and gets the data."""
    root = generate(tmp_path / "ws")
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = _mlspace("scan", str(root), "--format", "json", "-o", str(fifo))
    reader.join(30)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received and received[0].startswith(b"{")


def test_an_output_link_stays_a_link(tmp_path: Path) -> None:
    """`-o link-to-report.md`: the report lands in the linked file; the link is kept."""
    root = generate(tmp_path / "ws")
    real = tmp_path / "reports" / "latest.md"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "report.md"
    link.symlink_to(real)
    result = _mlspace("report", str(root), "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and real.read_text().startswith("## Disk usage")
