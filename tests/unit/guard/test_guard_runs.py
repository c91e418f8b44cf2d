"""Learning the runs cheaply: from the last saved scan when there is one, a quiet round
rescans nothing, a new checkpoint is measured without walking its run, and a run started
later is found from the folder holding runs (a folder that was there is never walked)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from guard_sim import MIB, Writer

from mlspace.guard import rounds, runs
from mlspace.guard.state import GuardState


def _count_scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    scanned: list[str] = []
    real = runs.light_scan

    def counting(folder: str):  # noqa: ANN202 - the inventory
        scanned.append(folder)
        return real(folder)

    monkeypatch.setattr(runs, "light_scan", counting)
    return scanned


def test_rounds_rescan_only_what_changed_and_find_new_runs(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    ws = tmp_path / "ws"
    t0 = time.time() - 1000
    old = Writer(ws / "outputs" / "a", t0, size=MIB)
    for _ in range(4):
        old.write()
    data = ws / "outputs" / "data"
    data.mkdir()
    scanned = _count_scans(monkeypatch)
    state = GuardState()
    rounds.guard_round([str(ws)], {}, state, warn=lambda *a: [])
    assert scanned[0] == str(ws)  # no saved scan: one scan to learn the runs
    assert str(old.run) in state.runs
    scanned.clear()
    rounds.guard_round([str(ws)], {}, state, warn=lambda *a: [])
    assert scanned == [], "a quiet round walks nothing"

    old.write()
    (data / "part-0.bin").write_bytes(b"x")  # a folder that was there: not walked
    rounds.guard_round([str(ws)], {}, state, warn=lambda *a: [])
    assert scanned == [], "a new checkpoint is measured, its run is not walked"
    (seen,) = state.runs[str(old.run)].series.values()
    assert len(seen) == 5 and seen[-1].name.endswith("checkpoint-500")
    assert seen[-1].size >= MIB and seen[-1].mtime == old.now() - old.every

    scanned.clear()
    time.sleep(0.01)
    new = Writer(ws / "outputs" / "b", t0, size=MIB)
    for _ in range(3):
        new.write()
    rounds.guard_round([str(ws)], {}, state, warn=lambda *a: [])
    assert str(new.run) in scanned and str(data) not in scanned
    assert str(new.run) in state.runs


def test_the_runs_are_learned_from_the_last_saved_scan(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    run = Writer(ws / "outputs" / "a", time.time() - 1000, size=MIB)
    for _ in range(4):
        run.write()
    saved = run_mlspace("scan", str(ws), "--save")
    assert saved.returncode == 0, saved.stderr
    scanned = _count_scans(monkeypatch)
    state = GuardState()
    rounds.guard_round([str(ws)], {}, state, warn=lambda *a: [])
    assert str(ws) not in scanned, "the saved scan said where the runs are"
    (seen,) = state.runs[str(run.run)].series.values()
    assert [s.name.rsplit("/", 1)[1] for s in seen] == [f"checkpoint-{n}00" for n in range(1, 5)]
