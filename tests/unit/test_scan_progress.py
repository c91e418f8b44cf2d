"""Progress reports and cancellation."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from walkers import both_walkers  # noqa: F401 (each test runs with both walkers)

from mlspace.scan import ScanOptions, ScanProgress, scan
from mlspace.scan import scanner as scanner_module


@pytest.fixture(scope="module")
def wide_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 25,000 empty files in 125 folders: enough for several progress reports."""
    root = tmp_path_factory.mktemp("wide")
    for d in range(125):
        folder = root / f"class_{d:03d}"
        folder.mkdir()
        for i in range(200):  # os.open: Path.touch() costs an extra utime() a file
            os.close(os.open(folder / f"img_{i:04d}.jpg", os.O_WRONLY | os.O_CREAT, 0o644))
    return root


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_is_reported_rate_limited_and_reaches_the_total(
    wide_tree: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 2000)
    reports: list[tuple[float, ScanProgress]] = []
    snap = scan([wide_tree], ScanOptions(workers=workers),
                progress=lambda p: reports.append((time.monotonic(), p)))
    assert reports, "no progress was reported"
    files = [p.files for _, p in reports]
    assert files == sorted(files)
    assert files[-1] == len(snap) - 1  # every entry but the root itself
    gaps = [b[0] - a[0] for a, b in zip(reports[:-2], reports[1:-1], strict=True)]
    assert all(gap >= scanner_module.PROGRESS_INTERVAL * 0.99 for gap in gaps)
    assert all(p.current_dir.startswith(str(wide_tree)) for _, p in reports)


# The native walker is done with this tree before a first report, or within 20 ms: its
# cancel is tested in test_native_walker, and these run with the Python walker only.
python_walker_only = pytest.mark.parametrize("both_walkers", ["python"], indirect=True)


@python_walker_only
@pytest.mark.parametrize("workers", [1, 2])
def test_cancel_stops_the_scan_quickly(
    wide_tree: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled at the first report, the walk stops within the chunks already under way:
    counted in entries walked after the cancel, not in milliseconds (speed is for
    benchmarks/)."""
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 2000)
    monkeypatch.setattr(scanner_module, "IN_PROCESS_BUDGET", 2000)
    flag = threading.Event()
    seen_at_cancel: list[int] = []

    def on_progress(p: ScanProgress) -> None:
        if not flag.is_set():
            seen_at_cancel.append(p.files)
            flag.set()

    snap = scan([wide_tree], ScanOptions(workers=workers), progress=on_progress,
                cancelled=flag.is_set)
    assert snap.cancelled
    walked_after = len(snap) - 1 - seen_at_cancel[0]
    # at most the chunk walked here and one per worker were under way (2,000 entries each)
    assert 0 <= walked_after <= 2000 * (1 + workers), walked_after
    assert len(snap) < 25_000 / 2  # it did stop early: far from the whole tree


@python_walker_only
def test_cancel_from_another_thread_returns_a_usable_partial_snapshot(wide_tree: Path) -> None:
    flag = threading.Event()
    timer = threading.Timer(0.02, flag.set)
    timer.start()
    snap = scan([wide_tree], ScanOptions(workers=1), cancelled=flag.is_set)
    timer.join()
    totals = snap.grand_totals()
    assert snap.cancelled
    assert totals.files + totals.dirs == len(snap)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads Linux /proc")
def test_worker_processes_leave_ctrl_c_to_the_command() -> None:
    """Ctrl+C reaches the whole process group: the workers ignore it (the command stops
    them and says so in one line) instead of each printing a KeyboardInterrupt traceback."""
    def ignores_ctrl_c(pid: int) -> bool:
        status = Path(f"/proc/{pid}/status").read_text()
        ignored = int(next(line.split()[1] for line in status.splitlines()
                           if line.startswith("SigIgn:")), 16)
        return bool(ignored & (1 << (signal.SIGINT - 1)))

    pool = scanner_module._ProcessPool(ScanOptions(workers=2))
    try:
        pids = [p.pid for p in pool.pool._pool]  # type: ignore[attr-defined]
        assert len(pids) == 2
        deadline = time.monotonic() + 10  # a worker runs its initializer once started
        while not all(map(ignores_ctrl_c, pids)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert all(map(ignores_ctrl_c, pids))
    finally:
        pool.close()
