"""The issue's simulation: a training run writes a 20 MiB checkpoint every 2 s into a
256 MiB tmpfs, rotation off, over a backlog of old checkpoints the policy may free; the
guard runs one round before each checkpoint (a compressed clock: the files carry the
simulated times). The run never meets ENOSPC while safe space remains, the newest two and
the recorded best are never touched, and when nothing safe is left the guard warns once
and does nothing else."""

from __future__ import annotations

import os
import time
from pathlib import Path

from cleanup_helpers import tree_digest
from guard_sim import MIB, POLICY, Writer

from mlspace.act import execute, history, purge
from mlspace.act.policy import load
from mlspace.advise import advise
from mlspace.classify import classify
from mlspace.guard.freeing import free
from mlspace.guard.rounds import ACTED, WARNED, guard_round
from mlspace.guard.state import GuardState
from mlspace.scan import scan


def _workspace(disk: Path, keep: str = "50 MiB") -> tuple[Path, object]:
    ws = disk / "ws"
    ws.mkdir()
    (ws / "mlspace-policy.toml").write_text(POLICY.format(keep=keep))
    return ws, load(str(ws / "mlspace-policy.toml"))


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def test_the_run_never_fills_the_disk_and_its_best_and_newest_stay(disk: Path) -> None:
    ws, policy = _workspace(disk)
    writer = Writer(ws / "outputs" / "bert", time.time() - 20000)
    for _ in range(6):  # the backlog: 120 MiB the policy may free (the best among them)
        assert writer.write()
    state, warnings = GuardState(), []
    seen_best = writer.best.stat().st_ino
    statuses = set()
    for _ in range(40):  # 800 MiB written into 256 MiB
        for r in guard_round([str(ws)], {str(ws): policy}, state, now=writer.now() - 1,
                             warn=lambda *a: warnings.append(a) or ["test"]):
            statuses.add(r.status)
        newest = writer.checkpoints()[-2:]
        assert writer.write(), f"ENOSPC with {_free(disk) // MIB} MiB free"
        for kept in newest:
            assert (kept / "model.safetensors").stat().st_size == 20 * MIB
        assert writer.best.stat().st_ino == seen_best
        assert (writer.best / "model.safetensors").stat().st_size == 20 * MIB
    assert writer.enospc == 0
    assert ACTED in statuses
    assert len(warnings) == 1, "one warning per episode"
    purged = [e for r in history() for e in r.events if e["event"] == "purged"]
    assert len(purged) >= 40 - 8, "the guard freed what the run wrote past the disk"
    assert str(writer.best) not in {e["path"] for e in purged}


def test_with_nothing_safe_left_it_warns_once_and_does_nothing_else(disk: Path) -> None:
    ws, policy = _workspace(disk)
    writer = Writer(ws / "outputs" / "bert", time.time() - 20000, best_step=100)
    for _ in range(3):  # the best, and the newest two: nothing the policy may free
        assert writer.write()
    raw = ws / "data" / "raw"
    raw.mkdir(parents=True)
    with open(raw / "shard-000.tar", "wb") as f:  # raw data fills most of the disk
        f.write(b"\0" * (180 * MIB))
    before = tree_digest(ws)
    state, warnings = GuardState(), []
    rounds = []
    for n in range(3):
        rounds += guard_round([str(ws)], {str(ws): policy}, state, now=writer.now() - 1 + n,
                              warn=lambda *a: warnings.append(a) or ["test"])
    assert len(warnings) == 1
    assert "Nothing is left that the guard may free" in warnings[0][1]
    assert "will not fit" in rounds[0].line
    assert {r.status for r in rounds} == {WARNED}
    assert tree_digest(ws) == before
    assert history() == []


def test_with_keep_free_met_it_warns_of_the_trend_and_frees_nothing(disk: Path) -> None:
    ws, policy = _workspace(disk, keep="10 MiB")
    writer = Writer(ws / "outputs" / "bert", time.time() - 20000)
    for _ in range(5):  # old checkpoints the policy could free
        assert writer.write()
    state, warnings = GuardState(), []
    now = time.time()
    guard_round([str(ws)], {str(ws): policy}, state, now=now,
                warn=lambda *a: warnings.append(a) or ["test"])
    (ws / "log.bin").write_bytes(b"\1" * (20 * MIB))  # 20 MiB a minute: full in minutes
    (r,) = guard_round([str(ws)], {str(ws): policy}, state, now=now + 60,
                       warn=lambda *a: warnings.append(a) or ["test"])
    assert r.status == WARNED and r.freed is None
    (warning,) = warnings
    assert "is filling up" in warning[0] and "Nothing is left" not in warning[1]
    assert history() == [] and len(writer.checkpoints()) == 5


def test_what_mlspace_already_trashed_goes_first_oldest_first_and_no_more(disk: Path) -> None:
    ws, policy = _workspace(disk)
    writer = Writer(ws / "outputs" / "bert", time.time() - 20000, size=4 * MIB)
    for _ in range(8):
        assert writer.write()
    plan = advise(classify(scan([str(ws)])))
    moved = execute(plan.suggestions, plan.roots, recent_seconds=0)
    trashed = purge.in_trash()
    assert len(trashed) == len(moved.done) >= 3
    done = free(str(ws), policy, _free(disk) + 5 * MIB, now=writer.now())
    assert done.cleaned is None, "the trash was enough: no suggestion was touched"
    assert done.from_trash is not None
    assert [p.path for p in done.from_trash.purged] == [p.path for p in trashed[:2]]
    assert done.freed >= 5 * MIB
    assert [p.path for p in purge.in_trash()] == [p.path for p in trashed[2:]]
