"""The history keeps what a person would call a scan. The app rescans by itself after an
archive, a bring-back or an undo, and F5 minutes later looks at the same folder again: six
such scans in six minutes were six of the 30 Growth points kept per folder. Now a scan the
app keeps replaces the one it kept of the same folders less than 30 minutes before (never
the one being compared with); `mlspace scan --save` keeps every scan it is asked to."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hostile_helpers import assert_clean_run, mlspace_cli
from pytestqt.qtbot import QtBot
from workspaces import hf_run

from mlspace.classify import classify
from mlspace.index import history
from mlspace.index.growth import growth_points
from mlspace.index.info import ScanInfo
from mlspace.scan import scan
from mlspace.ui.main_window import MainWindow

WAIT_MS = 30_000


def _window(qtbot: QtBot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 820)
    window.show()
    return window


def _rescan(window: MainWindow, qtbot: QtBot) -> None:
    with qtbot.waitSignal(window.scan_finished, timeout=WAIT_MS):
        window.rescan_action.trigger()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "lab"
    hf_run(root)
    return root


def test_six_rescans_in_a_row_are_one_growth_point(qtbot: QtBot, workspace: Path) -> None:
    window = _window(qtbot)
    with qtbot.waitSignal(window.scan_finished, timeout=WAIT_MS):
        window.open_paths([str(workspace)])
    for n in range(5):
        (workspace / f"notes-{n}.txt").write_text("x" * 5000)  # the folder changes a bit
        time.sleep(1.05)  # history ids count seconds
        _rescan(window, qtbot)
    kept = history.entries(str(workspace))
    assert len(kept) == 1
    assert kept[0].files == window.ws.inventory.snapshot.grand_totals().files  # the last
    assert [p.id for p in growth_points([str(workspace)])] == [kept[0].id]


def test_the_scan_compared_with_stays_through_rescans(qtbot: QtBot, workspace: Path) -> None:
    """Compare with the scan kept when the folder was opened, then rescan twice: F5 keeps
    comparing with that scan, so it stays; the rescans replace each other."""
    window = _window(qtbot)
    with qtbot.waitSignal(window.scan_finished, timeout=WAIT_MS):
        window.open_paths([str(workspace)])
    growth = window.growth
    window.tabs.setCurrentWidget(growth)
    qtbot.waitUntil(lambda: len(growth.points) == 1, timeout=WAIT_MS)
    [first] = growth.points
    with qtbot.waitSignal(window.ws.compare_changed, timeout=WAIT_MS):
        growth.compare(first)
    for _ in range(2):
        time.sleep(1.05)
        _rescan(window, qtbot)
    qtbot.waitUntil(lambda: window.ws.compared is not None, timeout=WAIT_MS)
    assert window.ws.compared.id == first.id
    ids = [e.id for e in history.entries(str(workspace))]
    assert len(ids) == 2 and ids[0] == first.id


def test_looks_half_an_hour_apart_are_kept_each(workspace: Path) -> None:
    inventory = classify(scan([str(workspace)]))
    now = time.time()
    for minutes_ago in (120, 80, 45, 25, 0):  # the app's scans of one morning
        finished = now - minutes_ago * 60
        history.save(inventory, ScanInfo("host", "user", finished - 5, finished), rescan=True)
    kept = [round((now - e.finished) / 60) for e in history.entries(str(workspace))]
    # Each came less than 30 minutes after the one before: one look, kept as its last.
    assert kept == [120, 80, 0]


def test_scans_saved_on_the_command_line_are_each_kept(workspace: Path) -> None:
    for _ in range(3):
        assert_clean_run(mlspace_cli("scan", str(workspace), "--save", "-o", os.devnull))
        time.sleep(1.05)
    assert len(history.entries(str(workspace))) == 3
