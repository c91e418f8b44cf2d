"""`mlspace guard` from the command line, on a workspace that is a tmpfs of its own: one
round that frees what the policy allows before the next checkpoint lands, `status` that
says so afterwards, and `--install` that writes a service systemd accepts."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from cli_runner import run_mlspace
from guard_sim import MIB, POLICY, Writer

from mlspace.act import history
from mlspace.guard import state as saved


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args)


def _busy_workspace(disk: Path) -> tuple[Path, Writer]:
    """A run that wrote six 20 MiB checkpoints, one every 4 s, the last just now, on a
    disk with room for less than one more."""
    ws = disk / "ws"
    ws.mkdir()
    (ws / "mlspace-policy.toml").write_text(POLICY.format(keep="60 MiB"))
    writer = Writer(ws / "outputs" / "bert", time.time() - 24, every=4.0)
    for _ in range(6):
        assert writer.write()
    with open(ws / "outputs" / "filler.bin", "wb") as f:
        f.write(b"\0" * (120 * MIB))
    return ws, writer


def test_once_frees_before_the_next_checkpoint_and_status_says_so(disk: Path) -> None:
    ws, writer = _busy_workspace(disk)
    time.sleep(3.2)  # past the policy's recent-write window (0.05 min)
    done = mlspace("guard", "--once", str(ws))
    assert done.returncode == 0, done.stderr
    assert "may free space down to keep_free 60.0 MiB" in done.stdout
    assert "guard: acted" in done.stdout
    assert "freed 60.0 MiB (deleted for good)" in done.stdout, done.stdout
    left = {p.name for p in writer.checkpoints()}
    assert left == {"checkpoint-200", "checkpoint-500", "checkpoint-600"}  # best, newest two
    (record,) = history()
    assert {e["event"] for e in record.events} >= {"purge-begun", "purged"}
    status = mlspace("guard", "status")
    assert f"{disk} · " in status.stdout and "guard: acted" in status.stdout
    assert "freed 60.0 MiB this episode" in status.stdout
    assert writer.write(), "the next checkpoint fits"

    state = saved.load()  # as if the guard had stopped an hour ago
    for disk_state in state.disks.values():
        disk_state.last.update(time=time.time() - 3600, next_round=time.time() - 3000)
    saved.save(state)
    assert "guard: off (last round 1 hour ago)" in mlspace("guard", "status").stdout


def test_without_act_it_warns_and_touches_nothing(disk: Path) -> None:
    ws, writer = _busy_workspace(disk)
    (ws / "mlspace-policy.toml").write_text(
        POLICY.format(keep="60 MiB").replace("act = true", "act = false"))
    done = mlspace("guard", "--once", str(ws))
    assert done.returncode == 0, done.stderr
    assert "watching and warning only" in done.stdout
    assert "will not fit" in done.stdout and "guard: warned" in done.stdout
    assert "  warned (" in done.stdout  # the journal (logger), or stderr without it
    assert len(writer.checkpoints()) == 6 and history() == []


def test_install_writes_a_service_that_verifies(tmp_path: Path) -> None:
    ws = tmp_path / "ws 100%"
    ws.mkdir()
    done = mlspace("guard", "--install", str(ws))
    unit_dir = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user"
    (unit,) = unit_dir.glob("mlspace-guard-*.service")
    text = unit.read_text()
    assert "Type=simple" in text and "Nice=10" in text and "IOSchedulingClass=idle" in text
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    assert f'"guard" "{str(ws).replace("%", "%%")}"' in text
    if shutil.which("systemd-analyze"):
        checked = subprocess.run(["systemd-analyze", "verify", str(unit)],
                                 capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    assert done.returncode in (0, 1)  # 1: no user systemd here to start it; it says how
    if done.returncode:
        assert "systemctl --user enable --now" in done.stdout
