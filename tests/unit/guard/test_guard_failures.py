"""The guard under failure: killed -9 in the middle of freeing, a disk filled for real, a
filesystem unmounted under it, and a race lost to the training run. Each ends in a clear
state with nothing lost that the policy did not allow, and a journal undo can follow."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cleanup_helpers import mount_tmpfs, unmount
from guard_sim import MIB, POLICY, Writer
from hostile_helpers import answers_quickly

from mlspace.act import history, undo
from mlspace.act.policy import load
from mlspace.guard import freeing
from mlspace.guard.rounds import GONE, guard_round
from mlspace.guard.state import GuardState

_SLOW_GUARD = """
import sys, time
from mlspace.act import purge, to_trash
from mlspace.act.policy import load
from mlspace.guard.freeing import free
slow = to_trash.trash_item
def trash_item(*args, **kw):
    time.sleep(0.4)  # slow each move, so the test can kill the guard in the middle
    return slow(*args, **kw)
import mlspace.act.executor as executor
executor.trash_item = trash_item
free(sys.argv[1], load(sys.argv[2]), 10 ** 12)
"""


def _workspace(disk: Path, n: int, keep: str = "50 MiB") -> tuple[Path, Writer]:
    ws = disk / "ws"
    ws.mkdir()
    (ws / "mlspace-policy.toml").write_text(POLICY.format(keep=keep))
    writer = Writer(ws / "outputs" / "bert", time.time() - 20000, size=4 * MIB)
    for _ in range(n):
        assert writer.write()
    return ws, writer


def test_killed_mid_action_the_journal_says_what_is_gone_and_undo_brings_the_rest(
        disk: Path) -> None:
    ws, writer = _workspace(disk, 12)
    child = subprocess.Popen([sys.executable, "-c", _SLOW_GUARD, str(ws),
                              str(ws / "mlspace-policy.toml")], env=dict(os.environ))
    journal_dir = Path(os.environ["XDG_DATA_HOME"]) / "mlspace" / "journal"
    deadline = time.time() + 60
    while time.time() < deadline:
        journals = list(journal_dir.glob("*.jsonl")) if journal_dir.exists() else []
        if journals and journals[0].read_text().count('"trashed"') >= 3:
            break
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    child.wait()
    (record,) = history()
    moved = {e["path"] for e in record.trashed}
    assert 3 <= len(moved) < len(record.items), "killed in the middle"
    assert not any(Path(p).exists() for p in moved)
    results = undo(record.id)
    assert {r.path for r in results if r.restored_to} == moved
    assert all(Path(p).exists() for p in moved)
    assert len(writer.checkpoints()) == 12, "nothing was lost"


def test_a_disk_filled_for_real_loses_nothing_and_says_why_it_could_not_free(
        disk: Path) -> None:
    """On a disk with not a block left the trash cannot take even its record of a move
    (the .trashinfo), so nothing can go: the guard says so, and nothing is lost."""
    ws, writer = _workspace(disk, 10)
    policy = load(str(ws / "mlspace-policy.toml"))
    with open(ws / "outputs" / "bert" / "partial.bin", "wb") as f:
        try:
            while True:
                f.write(b"\1" * MIB)
        except OSError:
            pass  # ENOSPC: the disk is full
    assert os.statvfs(disk).f_bavail < 2
    os.utime(ws / "outputs" / "bert" / "partial.bin", (writer.now(), writer.now()))
    warnings: list[tuple] = []
    (r,) = guard_round([str(ws)], {str(ws): policy}, GuardState(), now=writer.now() + 10,
                       warn=lambda *a: warnings.append(a) or ["test"])
    assert r.freed is not None and r.freed.cleaned is not None and r.freed.nothing_safe
    assert r.freed.cleaned.skipped and all("No space left" in o.reason
                                           for o in r.freed.cleaned.skipped)
    assert len(writer.checkpoints()) == 10, "nothing was lost"
    (warning,) = warnings
    assert "could not free anything" in warning[1] and "No space left" in warning[1]
    (record,) = history()
    assert record.trashed == [] and not record.purged


def test_a_filesystem_pulled_away_is_named_and_nothing_is_done(tmp_path: Path) -> None:
    where = tmp_path / "disk"
    mount_tmpfs(where, "64m")
    try:
        ws, writer = _workspace(where, 4)
        policy = load(str(ws / "mlspace-policy.toml"))
        state = GuardState()
        guard_round([str(ws)], {str(ws): policy}, state, now=writer.now(),
                    warn=lambda *a: [])
    finally:
        unmount(where)
    before = [(r.id, len(r.events)) for r in history()]
    (r,) = guard_round([str(ws)], {str(ws): policy}, state, now=writer.now() + 5,
                       warn=lambda *a: [])
    assert r.status == GONE and "unmounted" in r.line and r.freed is None
    assert [(r.id, len(r.events)) for r in history()] == before


def test_a_checkpoint_rewritten_between_plan_and_act_is_skipped(
        disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, writer = _workspace(disk, 6)
    policy = load(str(ws / "mlspace-policy.toml"))
    victim = ws / "outputs" / "bert" / "checkpoint-100" / "model.safetensors"
    planned = freeing.light_scan

    def plan_then_race(folder: str):  # noqa: ANN202 - the inventory the plan is made from
        inv = planned(folder)
        with open(victim, "ab") as f:  # the run rewrites it before the guard acts
            f.write(b"\2" * MIB)
        return inv

    monkeypatch.setattr(freeing, "light_scan", plan_then_race)
    done = freeing.free(str(ws), policy, 10 ** 12, now=writer.now() + 10)
    assert done.cleaned is not None
    skipped = {o.path: o.reason for o in done.cleaned.skipped}
    assert str(victim.parent) in skipped, done.cleaned.outcomes
    assert victim.stat().st_size == 5 * MIB
    assert {o.path for o in done.cleaned.done} == {str(ws / "outputs" / "bert" / n)
                                                  for n in ("checkpoint-300",
                                                            "checkpoint-400")}


def test_a_checkpoint_swapped_for_a_link_between_plan_and_act_is_skipped_and_its_target_kept(
        disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone (or a sync tool) swaps a planned folder for a link to other data: the guard
    moves neither the link nor what it points at."""
    ws, writer = _workspace(disk, 6)
    policy = load(str(ws / "mlspace-policy.toml"))
    swapped = ws / "outputs" / "bert" / "checkpoint-300"
    elsewhere = disk / "elsewhere"
    planned = freeing.light_scan

    def plan_then_swap(folder: str):  # noqa: ANN202 - the inventory the plan is made from
        inv = planned(folder)
        swapped.rename(elsewhere)
        swapped.symlink_to(elsewhere, target_is_directory=True)
        return inv

    monkeypatch.setattr(freeing, "light_scan", plan_then_swap)
    done = freeing.free(str(ws), policy, 10 ** 12, now=writer.now() + 10)
    assert done.cleaned is not None
    assert str(swapped) in {o.path for o in done.cleaned.skipped}, done.cleaned.outcomes
    assert swapped.is_symlink() and (elsewhere / "model.safetensors").stat().st_size == 4 * MIB
    assert {o.path for o in done.cleaned.done} == {str(ws / "outputs" / "bert" / n)
                                                  for n in ("checkpoint-100",
                                                            "checkpoint-400")}


def test_a_fifo_inside_a_planned_checkpoint_neither_blocks_nor_is_counted_as_freed(
        disk: Path) -> None:
    """A named pipe a tool left in an old checkpoint: it is moved and purged with its folder
    (never opened), and what the guard reports freed is what statvfs saw come back."""
    ws, writer = _workspace(disk, 6)
    old = ws / "outputs" / "bert" / "checkpoint-300"
    os.mkfifo(old / "progress.fifo")
    for path in (old / "progress.fifo", old):  # as old as the checkpoint it sits in
        os.utime(path, (writer.t0, writer.t0))
    policy = load(str(ws / "mlspace-policy.toml"))
    before = os.statvfs(disk)
    done = answers_quickly(freeing.free, str(ws), policy, 10 ** 12, writer.now() + 10)
    after = os.statvfs(disk)
    assert done.cleaned is not None and done.cleaned.done, done.cleaned
    assert not old.exists(), done.cleaned.skipped
    assert done.freed == (after.f_bfree - before.f_bfree) * after.f_frsize > 0
