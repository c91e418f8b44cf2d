"""Actions that mean nothing are disabled (Rescan and Cancel with nothing open), and a
cleanup that had to stop half-way (its journal could not be written) says so."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from cleanup_helpers import mounted, tree_digest
from gui_helpers import confirm_when_asked, open_window, right_click_row
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from mlspace.act.journal import journal_dir
from mlspace.demo import generate
from mlspace.scan import ScanOptions
from mlspace.ui.main_window import MainWindow


def test_rescan_and_cancel_only_when_they_mean_something(qtbot: QtBot, demo_root: Path) -> None:
    """Nothing open: Rescan and Cancel are disabled; scanning: only Cancel; done: only Rescan."""
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    assert not win.rescan_action.isEnabled() and not win.cancel_action.isEnabled()
    with qtbot.waitSignal(win.scan_finished, timeout=30_000):
        win.open_paths([str(demo_root)])
        assert win.cancel_action.isEnabled() and not win.rescan_action.isEnabled()
    assert win.rescan_action.isEnabled() and not win.cancel_action.isEnabled()


def test_a_cleanup_stopped_by_its_journal_says_so(qtbot: QtBot,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk under the journal fills after the first items: a warning, and once space is
    made, Ctrl+Z brings back every file as it was. The journal's folder is a tmpfs of one
    page (4 KiB): the plan (about 3 KiB for this run) fits, two or so items' lines after
    it, then the kernel says ENOSPC. The workspace sits at a short path of fixed length,
    so that what the journal holds does not depend on where pytest keeps its folders."""
    workspace = Path(tempfile.mkdtemp(prefix="mlspace-j", dir="/tmp"))
    try:
        demo_root = generate(workspace / "ws")
        run = demo_root / "outputs" / "bert-large-lr3e-4"
        before = tree_digest(demo_root)
        with mounted(journal_dir(), "4k", "mode=0700") as journal_disk:
            window = open_window(qtbot, demo_root)
            warnings: list[str] = []
            monkeypatch.setattr(QMessageBox, "warning",
                                lambda parent, title, text: warnings.append(text))
            keep = next(a for a in right_click_row(window, str(run))
                        if a.text().startswith("Keep best 1 + latest 2 of bert-large-lr3e-4"))
            confirm_when_asked(window)
            with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
                keep.trigger()
            assert len(warnings) == 1 and "stopped early" in warnings[0]
            assert "No space left on device" in warnings[0] and "Ctrl+Z" in warnings[0]
            left = [p for p in run.iterdir() if p.name.startswith("checkpoint-")]
            assert 3 < len(left) < 12  # some moved (of 9), the rest was not attempted
            # the user makes room on that disk, then presses Ctrl+Z
            subprocess.run(["mount", "-o", "remount,size=1m", str(journal_disk)], check=True)
            with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
                window.undo_action.trigger()
            assert warnings == warnings[:1], warnings
        assert tree_digest(demo_root) == before
    finally:
        shutil.rmtree(workspace)


def test_a_folder_opened_mid_scan_replaces_that_scan(qtbot: QtBot, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropping another folder while a scan runs: the first scan stops and its results
    never show, the second one's do, and the first one's thread ends on its own."""
    from mlspace.scan import scanner as scanner_module
    from tests.trees import write

    monkeypatch.setattr(scanner_module, "IN_PROCESS_BUDGET", 50)
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 50)
    first, second = tmp_path / "first", tmp_path / "second"
    for i in range(3000):
        write(first / f"d{i % 60}" / f"{i}.bin", 10)
    write(second / "only.bin", 10)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    shown: list[tuple[str, ...]] = []
    win.scan_finished.connect(lambda: shown.append(win.ws.inventory.snapshot.roots))
    with qtbot.waitSignal(win.scanner.progress, timeout=60_000):
        win.open_paths([str(first)])
    with qtbot.waitSignal(win.scan_finished, timeout=60_000):
        win.open_paths([str(second)])
    qtbot.waitUntil(lambda: not win.scanner._retired, timeout=60_000)
    qtbot.wait(200)
    assert shown == [(str(second),)]
    assert win.windowTitle().endswith(str(second))
    assert not win.scanner.running and win.rescan_action.isEnabled()


def test_closing_mid_scan_ends_the_scan_thread(qtbot: QtBot, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the window while a scan runs: its thread has ended when close returns (a
    running QThread destroyed would abort the app).

    The real scan is held at its first progress report until it is cancelled, so the scan is
    still running when the window closes however fast the walker is (the native walker once
    finished 3000 files before the test could look, and the test failed in CI)."""
    import time

    from mlspace.scan import scanner as scanner_module
    from mlspace.ui import scan_controller
    from tests.trees import write

    real_scan = scan_controller.scan

    def held_scan(paths: list[str], options: ScanOptions, *,
                  progress: Callable[[object], None],
                  cancelled: Callable[[], bool]) -> object:
        def report_then_hold(update: object) -> None:
            progress(update)
            deadline = time.monotonic() + 60
            while not cancelled() and time.monotonic() < deadline:
                time.sleep(0.01)
        return real_scan(paths, options, progress=report_then_hold, cancelled=cancelled)

    monkeypatch.setattr(scan_controller, "scan", held_scan)
    monkeypatch.setattr(scanner_module, "IN_PROCESS_BUDGET", 50)
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 50)
    for i in range(300):
        write(tmp_path / "big" / f"d{i % 60}" / f"{i}.bin", 10)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.scanner.progress, timeout=60_000):
        win.open_paths([str(tmp_path / "big")])
    thread = win.scanner._thread
    assert thread is not None and thread.isRunning()
    win.close()
    assert not thread.isRunning()
