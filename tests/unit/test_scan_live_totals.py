"""While a scan runs, the roots' top-level entries are reported with their sizes so far; the
last report agrees with the finished snapshot (issue 14, item 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from walkers import both_walkers  # noqa: F401 (each test runs with both walkers)

from mlspace.scan import ScanOptions, ScanProgress, scan
from mlspace.scan import scanner as scanner_module
from tests.trees import NON_UTF8_NAME, write


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folders of different sizes and depths, a file at the top and a non-UTF-8 name."""
    root = tmp_path_factory.mktemp("live")
    for run in range(6):
        for step in range(40):
            write(root / "outputs" / f"run-{run}" / f"checkpoint-{step}" / "model.bin",
                  1000 * (run + 1))
    for i in range(300):
        write(root / "data" / "train" / f"{i:05d}.jpg", 200)
    write(root / "notes.txt", 50)
    with open(os.path.join(os.fsencode(root), NON_UTF8_NAME), "wb") as f:
        f.write(b"x" * 5)
    return root


@pytest.mark.parametrize("workers", [1, 2])
def test_last_report_equals_the_snapshot_top_levels(
    project: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scanner_module, "IN_PROCESS_BUDGET", 100)
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 100)
    reports: list[ScanProgress] = []
    snap = scan([project], ScanOptions(workers=workers, live_totals=True),
                progress=reports.append)
    last = {e.name: e for e in reports[-1].growing}
    root = snap.root_entries[0]
    expected = {snap.name(c): c for c in snap.children(root)} | {"": root}
    assert set(last) == set(expected)
    for name, entry in expected.items():
        totals = snap.totals(entry)
        grown = last[name]
        assert grown.root == str(project)
        assert grown.is_dir == snap.is_dir(entry)
        if not name:  # the root: everything below it (its own entry is where the walk starts)
            below = [snap.totals(c) for c in snap.children(root)]
            assert grown.bytes == sum(t.disk_usage for t in below)
            assert grown.files == sum(t.files + t.dirs for t in below)
            continue
        assert grown.bytes == totals.disk_usage, name
        assert grown.apparent_size == totals.apparent_size, name
        assert grown.files == totals.files + totals.dirs, name
    sizes = [e.bytes for e in reports[-1].growing[1:]]
    assert sizes == sorted(sizes, reverse=True)


def test_reports_grow_while_the_scan_runs(project: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # The Python walker's budgets cut this small tree into many chunks; a native scan of
    # it is over before a second report (its reports are checked by the test above).
    monkeypatch.setenv("MLSPACE_WALKER", "python")
    monkeypatch.setattr(scanner_module, "IN_PROCESS_BUDGET", 50)
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 50)
    monkeypatch.setattr(scanner_module, "PROGRESS_INTERVAL", 0)
    reports: list[ScanProgress] = []
    scan([project], ScanOptions(workers=1, live_totals=True), progress=reports.append)
    outputs = [next((e.bytes for e in r.growing if e.name == "outputs"), 0) for r in reports]
    assert outputs == sorted(outputs)
    assert len(set(outputs)) > 3, "the outputs folder was not seen growing"


def test_off_unless_asked(project: Path) -> None:
    reports: list[ScanProgress] = []
    scan([project], ScanOptions(workers=1), progress=reports.append)
    assert reports and all(r.growing == () for r in reports)


def test_only_the_biggest_entries_of_a_flat_root(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from mlspace.scan import live_totals

    monkeypatch.setattr(live_totals, "TOP_ENTRIES", 5)
    for i in range(20):
        write(tmp_path / f"f{i:02d}.bin", 4096 * (i + 1))
    reports: list[ScanProgress] = []
    scan([tmp_path], ScanOptions(workers=1, live_totals=True), progress=reports.append)
    root, *top = reports[-1].growing
    assert root.name == "" and root.bytes == sum(4096 * (i + 1) for i in range(20))
    assert [e.name for e in top] == [f"f{i:02d}.bin" for i in (19, 18, 17, 16, 15)]
