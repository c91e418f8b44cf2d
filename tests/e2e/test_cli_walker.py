"""``mlspace scan --verbose`` says which walker scanned; MLSPACE_WALKER chooses it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from cleanup_helpers import mounted
from cli_runner import run_mlspace
from trees import write

from mlspace.scan.native import ENV, native_problem


def _scan(path: Path, walker: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace("scan", str(path), *flags, env={**os.environ, ENV: walker})


@pytest.mark.parametrize("walker", [
    pytest.param("native", marks=pytest.mark.skipif(native_problem() is not None,
                                                    reason=native_problem() or "")),
    "python"])
def test_verbose_names_the_walker_and_the_result_is_the_same(tmp_path: Path,
                                                            walker: str) -> None:
    # On a disk of its own: the disk line the output opens with then moves only with what
    # the test writes, not with whatever else this machine writes between the two scans.
    with mounted(tmp_path / "disk", "8m") as disk:
        for i in range(30):
            write(disk / "ws" / f"d{i % 3}" / f"f{i}", 100 * i)
        quiet = _scan(disk / "ws", walker)
        loud = _scan(disk / "ws", walker, "--verbose", "--workers", "2")
    assert quiet.returncode == loud.returncode == 0, loud.stderr
    # the table is the same (but for how long the scan took), only stderr says more
    took = re.compile(r"\d+(\.\d+)? (ms|s)\b")
    assert " ".join(took.sub("T", loud.stdout).split()) == \
        " ".join(took.sub("T", quiet.stdout).split())
    expected = ("native walker (C extension, threads), 16 threads" if walker == "native"
                else f"Python walker ({ENV}=python), 2 workers")
    assert f"mlspace: walker: {expected}; 34 entries in " in loud.stderr
    assert "walker" not in quiet.stderr


def test_verbose_on_a_saved_scan_says_nothing_was_walked(tmp_path: Path) -> None:
    write(tmp_path / "ws" / "f", 10)
    saved = tmp_path / "scan.parquet"
    assert _scan(tmp_path / "ws", "python", "-o", str(saved)).returncode == 0
    out = _scan(saved, "python", "--verbose")
    assert "opened a saved scan (nothing was walked)" in out.stderr
