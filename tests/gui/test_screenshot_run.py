"""``mlspace --demo --screenshot FILE`` (how the README's picture is made, and how a user
shows a colleague what they see) writes the picture and ends cleanly: its window's worker
threads have ended before the app exits, so it never aborts with "QThread: Destroyed while
thread is still running" (exit 134)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n"


def test_a_screenshot_run_saves_the_picture_and_exits_zero(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = subprocess.run([sys.executable, "-m", "mlspace", "--demo", "--screenshot", str(shot)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=240,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"screenshot saved to {shot}" in done.stdout
    assert shot.read_bytes()[:8] == PNG
    assert "Destroyed while thread" not in done.stderr
