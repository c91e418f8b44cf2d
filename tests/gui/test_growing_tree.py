"""While a scan runs, the scanning page lists each root's top-level entries with their sizes
so far; a row picked there is the selection when the results open (issue 14, item 12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from mlspace.scan import ScanProgress
from mlspace.scan import scanner as scanner_module
from mlspace.ui.growing_view import NAME, PATH_ROLE, SIZE, SORT_ROLE
from mlspace.ui.main_window import MainWindow
from tests.trees import write


@pytest.fixture
def slow_to_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tree walked in many small chunks, each reported, so the list is seen growing (by
    the Python walker, whose chunks these budgets cut: the native one is done with this
    tree before its second report)."""
    monkeypatch.setenv("MLSPACE_WALKER", "python")
    monkeypatch.setattr(scanner_module, "IN_PROCESS_BUDGET", 40)
    monkeypatch.setattr(scanner_module, "WORKER_BUDGET", 40)
    monkeypatch.setattr(scanner_module, "PROGRESS_INTERVAL", 0)
    root = tmp_path / "ws"
    for run in range(5):
        for step in range(30):
            write(root / "outputs" / f"run-{run}" / f"checkpoint-{step}" / "model.bin", 8192)
    for i in range(200):
        write(root / "data" / f"{i:04d}.jpg", 4096)
    write(root / "train.py", 100)
    return root


def _rows(win: MainWindow) -> dict[str, int]:
    top = win.scanning.growing.topLevelItem(0)
    if top is None:
        return {}
    return {top.child(i).text(NAME): top.child(i).data(SIZE, SORT_ROLE)
            for i in range(top.childCount())}


def test_the_list_grows_and_the_picked_row_stays_selected(qtbot: QtBot,
                                                          slow_to_scan: Path) -> None:
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1024, 700)
    win.show()
    seen: list[dict[str, int]] = []
    picked: list[str | None] = []

    def on_progress(_: ScanProgress) -> None:
        rows = _rows(win)
        seen.append(rows)
        top = win.scanning.growing.topLevelItem(0)
        if "data/" in rows and not picked:
            data = next(top.child(i) for i in range(top.childCount())
                        if top.child(i).text(NAME) == "data/")
            win.scanning.growing.setCurrentItem(data)
        if picked or win.scanning.growing.selected_path():
            picked.append(win.scanning.growing.selected_path())
        assert win.isVisible()

    win.scanner.progress.connect(on_progress)
    with qtbot.waitSignal(win.scan_finished, timeout=60_000):
        win.open_paths([str(slow_to_scan)])
    outputs = [rows.get("outputs/", 0) for rows in seen]
    assert len(set(outputs)) > 3, "the outputs folder was never seen growing"
    assert outputs == sorted(outputs)
    snap = win.ws.inventory.snapshot
    final = seen[-1]
    for name in ("outputs/", "data/", "train.py"):
        entry = snap.find(str(slow_to_scan / name.rstrip("/")))
        assert final[name] == snap.totals(entry).disk_usage, name
    # The row picked while scanning stayed selected through every update, and is the
    # selection of the finished view.
    data = str(slow_to_scan / "data")
    assert picked and set(picked) == {data}
    assert win.ws.selected == snap.find(data)
    assert win.model.entry(win.tree.currentIndex()) == snap.find(data)


def test_each_scan_starts_an_empty_list(qtbot: QtBot, slow_to_scan: Path,
                                        tmp_path: Path) -> None:
    other = tmp_path / "other"
    write(other / "only.bin", 10)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    for root in (slow_to_scan, other):
        with qtbot.waitSignal(win.scan_finished, timeout=60_000):
            win.open_paths([str(root)])
    assert win.scanning.growing.topLevelItemCount() == 1
    assert win.scanning.growing.topLevelItem(0).data(NAME, PATH_ROLE) == str(other)
    assert set(_rows(win)) == {"only.bin"}
