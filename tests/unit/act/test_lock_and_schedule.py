"""One run per tree (nested trees exclude each other, siblings do not, a killed holder
frees it), and the timer's unit files verify with systemd's own checker."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mlspace.act import lock, schedule


def test_a_second_run_on_the_same_or_a_nested_tree_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    with lock.hold([str(tmp_path / "ws")], "first run"):
        for tree in ("ws", "ws/sub"):
            with pytest.raises(lock.Busy, match="first run .*is working on"), \
                    lock.hold([str(tmp_path / tree)], "second run"):
                pass
        with lock.hold([str(tmp_path / "other")], "a run elsewhere"):
            pass
    with lock.hold([str(tmp_path / "ws" / "sub")], "inner"), \
            lock.hold([str(tmp_path / "other")], "sibling"), \
            pytest.raises(lock.Busy), lock.hold([str(tmp_path / "ws")], "outer"):
        pass


def test_a_killed_holder_frees_the_tree_and_waiting_works(tmp_path: Path) -> None:
    code = ("import sys, time; from mlspace.act import lock\n"
            "with lock.hold([sys.argv[1]], 'child'):\n"
            "    print('held', flush=True); time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(lock.Busy, match="child"), lock.hold([str(tmp_path)], "me", 0.5):
            pass
        assert time.monotonic() - started >= 0.5
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    with lock.hold([str(tmp_path)], "me", wait=2):
        pass


def test_timer_units_verify_and_quote_odd_folder_names(tmp_path: Path) -> None:
    odd = tmp_path / "100% $HOME \"ws\""
    odd.mkdir()
    units = schedule.units([str(odd)], str(tmp_path / "p.toml"), "weekly")
    for name, text in units.items():
        (tmp_path / name).write_text(text)
    service = next(t for n, t in units.items() if n.endswith(".service"))
    assert "100%% $$HOME \\\"ws\\\"" in service and "--yes" in service
    assert "OnCalendar=weekly" in units[f"{schedule.unit_name([str(odd)])}.timer"]
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    assert schedule.verify(tmp_path, list(units)) is None


def test_the_cron_line_runs_the_same_command(tmp_path: Path) -> None:
    line = schedule.cron_line([str(tmp_path / "my ws")], None, "daily")
    when, command = line[:9], line[10:]
    assert when == "0 3 * * *"
    argv = shlex.split(command)
    assert argv[:4] == [sys.executable, "-m", "mlspace", "apply-policy"]
    assert argv[-1] == str(tmp_path / "my ws") and "--yes" in argv
    assert os.path.isabs(argv[argv.index("--report") + 1])
