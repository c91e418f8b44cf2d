"""Issue 15 in the app: the Growth tab over the saved scans of the folder shown (a click on a
scan compares it with now: the tree's Change column, the treemap's growth colours), and the
by-owner chart that appears when a scan holds more than one owner's files."""

from __future__ import annotations

import dataclasses
import json
import os
import pwd
import threading
import time
from pathlib import Path

import pytest
from growth_helpers import (
    RUN,
    WAIT_MS,
    compare_with_first_scan,
    kept_workspace,
    new_window,
    scan_grow_scan,
    scan_in,
)
from gui_helpers import click_in_plot, confirm_when_asked, right_click_row, show_tab
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from view_truth import assert_agrees_with_disk

from mlspace import fmt
from mlspace.classify import classify
from mlspace.demo import generate
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_write import write_parquet
from mlspace.scan import ScanOptions, scan
from mlspace.ui.colors import growth_color
from mlspace.ui.main_window import MainWindow
from mlspace.ui.threads import Background
from mlspace.ui.tree_model import CHANGE, VALUE_ROLE

OTHER_UID = 4242  # a uid no user of the test machine has


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """mlspace's data folder (where the history is kept) in the test's own folder."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data


def cell(window: MainWindow, path: str, column: int, role: int = Qt.ItemDataRole.DisplayRole
         ) -> object:
    index = window.model.index_of(window.ws.inventory.snapshot.find(path))
    assert index.isValid(), f"{path} is not shown"
    return window.model.index(index.row(), column, index.parent()).data(role)


def expand(window: MainWindow, path: Path) -> None:
    window.tree.expand(window.model.index_of(window.ws.inventory.snapshot.find(str(path))))


# ---------------------------------------------------------------- growth
def test_the_growth_tab_shows_each_scan_and_compares_the_first_with_now(
        qtbot: QtBot, history: Path, tmp_path: Path) -> None:
    workspace = kept_workspace(tmp_path / "lab")
    window = new_window(qtbot)
    run_size = scan_grow_scan(window, qtbot, workspace)
    assert len(list((history / "mlspace" / "scans").glob("*.parquet"))) == 2  # kept there

    compare_with_first_scan(window, qtbot, scans=2)
    growth = window.growth
    assert growth.markers is not None and len(growth.markers.points()) == 2
    assert "Comparing with the scan of" in growth.comparing.text()

    # The tree: a "Change since …" column naming the new run with its size.
    header = window.tree.header()
    title = window.model.headerData(CHANGE, Qt.Orientation.Horizontal)
    assert title.startswith("Change since ")
    qtbot.waitUntil(lambda: not header.isSectionHidden(CHANGE))  # the columns fit next turn
    run = str(workspace / RUN)
    expand(window, workspace / "outputs")
    assert cell(window, run, CHANGE, VALUE_ROLE) == run_size
    assert cell(window, run, CHANGE) == f"+{fmt.size(run_size)}"
    assert cell(window, str(workspace / "data"), CHANGE) == ""  # unchanged
    assert cell(window, str(workspace / "outputs"), CHANGE, VALUE_ROLE) == run_size
    # Sortable: largest growth first puts the new run above its siblings.
    window.tree.sortByColumn(CHANGE, Qt.SortOrder.DescendingOrder)
    outputs = window.model.index_of(window.ws.inventory.snapshot.find(str(workspace / "outputs")))
    assert window.model.index(0, 0, outputs).data() == "new-run-lr1e-4"

    # The treemap, coloured by growth: the new run all red, an unchanged folder grey.
    show_tab(window, window.treemap)
    treemap = window.treemap
    assert treemap.by_growth.isVisible() and not treemap.legend.isVisible()
    window.ws.set_focus(window.ws.inventory.snapshot.find(str(workspace / "outputs")))
    qtbot.mouseClick(treemap.by_growth, Qt.MouseButton.LeftButton)
    assert treemap.legend.isVisible()
    snap = window.ws.inventory.snapshot
    canvas = treemap.canvas
    qtbot.waitUntil(lambda: canvas.growing and (snap.find(run), 0) in
                    {(e, depth) for _, e, depth in canvas.tiles}, timeout=WAIT_MS)
    color, label = canvas.look_of(snap.find(run))
    assert color.name() == growth_color(1.0).name() and label.endswith(f"+{fmt.size(run_size)}")
    unchanged = snap.find(str(workspace / "outputs" / "bert-large-lr3e-4"))
    assert canvas.look_of(unchanged)[0].name() == growth_color(0.0).name()
    assert_agrees_with_disk(window)

    # A cleanup, then its undo: the change follows the disk like every other number.
    actions = right_click_row(window, str(workspace / RUN / "checkpoint-500"))
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        next(a for a in actions if a.text() == "Move to trash…").trigger()
    qtbot.waitUntil(lambda: window.ws.compared is not None, timeout=WAIT_MS)
    assert cell(window, run, CHANGE, VALUE_ROLE) == os.lstat(workspace / RUN).st_blocks * 512
    assert_agrees_with_disk(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        window.undo_action.trigger()
    qtbot.waitUntil(lambda: window.ws.compared is not None, timeout=WAIT_MS)
    assert cell(window, run, CHANGE, VALUE_ROLE) == run_size
    assert_agrees_with_disk(window)

    show_tab(window, growth)
    qtbot.mouseClick(growth.stop, Qt.MouseButton.LeftButton)
    assert window.ws.compared is None
    qtbot.waitUntil(lambda: header.isSectionHidden(CHANGE))
    assert not treemap.by_growth.isVisibleTo(treemap)


def test_with_no_history_the_tab_says_how_it_builds_up(window: MainWindow, qtbot: QtBot
                                                       ) -> None:
    """The demo is never kept: its Growth tab explains where saved scans come from."""
    growth = window.growth
    show_tab(window, growth)
    qtbot.waitUntil(lambda: not growth.reader.running, timeout=WAIT_MS)
    text = growth.summary.text()
    assert "No saved scans of this folder yet" in text
    assert "mlspace scan PATH --save" in text and "Every scan the app finishes" in text
    assert not growth.plot.isVisible()
    assert window.model.headerData(CHANGE, Qt.Orientation.Horizontal) is None


def test_a_rescan_keeps_comparing_with_the_chosen_scan(qtbot: QtBot, history: Path,
                                                       tmp_path: Path) -> None:
    workspace = kept_workspace(tmp_path / "lab")
    window = new_window(qtbot)
    run_size = scan_grow_scan(window, qtbot, workspace)
    compare_with_first_scan(window, qtbot, scans=2)
    first = window.ws.compared
    with qtbot.waitSignal(window.ws.compare_changed, timeout=WAIT_MS):
        window.rescan_action.trigger()  # the comparison is matched again with the new scan
    qtbot.waitUntil(lambda: window.ws.compared is not None, timeout=WAIT_MS)
    assert window.ws.compared == first
    expand(window, workspace / "outputs")
    assert cell(window, str(workspace / RUN), CHANGE, VALUE_ROLE) == run_size
    assert_agrees_with_disk(window)


def test_the_report_from_the_app_has_the_growth_since_the_previous_scan(
        qtbot: QtBot, history: Path, tmp_path: Path) -> None:
    """The scan shown is kept in the history too: the report compares it with the one
    before, not with itself."""
    workspace = kept_workspace(tmp_path / "lab")
    window = new_window(qtbot)
    run_size = scan_grow_scan(window, qtbot, workspace)
    target = tmp_path / "report.json"
    with qtbot.waitSignal(window.reports.written, timeout=30_000):
        window.reports.export(str(target))
    growth = json.loads(target.read_text())["growth"]
    assert len(growth["scans"]) == 2  # the first scan, and this one
    assert [(c["path"], c["status"]) for c in growth["changes"]] == [
        (str(workspace / RUN), "new")]
    assert growth["delta"] == growth["changes"][0]["delta"] == run_size


# ---------------------------------------------------------------- owners
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="a second owner needs os.chown to another uid, which only root may do")


def give_away(folder: Path, uid: int = OTHER_UID) -> int:
    """Make ``uid`` own a folder and all in it; returns its apparent size (what the owner
    chart shows in apparent mode), every entry counted as a scan counts it."""
    total = 0
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, uid, uid, follow_symlinks=False)
        total += os.lstat(path).st_size
    return total


def _pwd_has(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


@needs_root
def test_an_owner_chart_shows_with_two_owners_and_filters(qtbot: QtBot, tmp_path: Path
                                                          ) -> None:
    assert not _pwd_has(OTHER_UID)
    root = generate(tmp_path / "shared")
    theirs = give_away(root / "data")
    window = new_window(qtbot)
    scan_in(window, qtbot, root)
    chart = window.owner_chart
    assert chart.isVisible() and window.ws.apparent  # the demo opens in apparent sizes
    bars = {chart.label(uid): size for uid, size in chart.values()}
    assert set(bars) == {pwd.getpwuid(0).pw_name, f"uid {OTHER_UID}"}
    assert bars[f"uid {OTHER_UID}"] == theirs
    assert sum(bars.values()) == window.ws.size(window.ws.inventory.snapshot.root_entries[0])
    assert_agrees_with_disk(window)

    row = chart.keys.index(OTHER_UID)
    click_in_plot(qtbot, chart.plot, bars[f"uid {OTHER_UID}"] / 2, row)
    assert window.ws.filter.spec.owners == frozenset({OTHER_UID})
    assert f"owned by uid {OTHER_UID}" in window.filter_label.text()
    top = window.model.index(0, 0)
    names = {window.model.index(r, 0, top).data() for r in range(window.model.rowCount(top))}
    assert names == {"data"}
    assert_agrees_with_disk(window)

    window.activateWindow()  # the window's shortcuts work in the active window
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.tree, Qt.Key.Key_Escape)  # Esc shows everything
    assert window.ws.filter.spec.owners is None and not window.filter_label.isVisible()


def test_one_owner_means_no_owner_chart(window: MainWindow) -> None:
    assert len({uid for uid, _ in window.ws.chart_owners()}) == 1
    assert not window.owner_chart.isVisible()


@needs_root
def test_a_scan_from_another_machine_shows_owners_by_number(qtbot: QtBot, tmp_path: Path
                                                            ) -> None:
    """Its uids may name other people here: the chart shows the numbers."""
    root = generate(tmp_path / "lab")
    give_away(root / "outputs")
    options = ScanOptions(workers=1)
    saved = tmp_path / "lab.parquet"
    write_parquet(str(saved), classify(scan([str(root)], options)),
                  dataclasses.replace(ScanInfo.here(time.time(), options=options),
                                      host="gpu-node3"))
    window = new_window(qtbot)
    scan_in(window, qtbot, saved)
    chart = window.owner_chart
    assert chart.isVisible()
    assert {chart.label(uid) for uid, _ in chart.values()} == {"uid 0", f"uid {OTHER_UID}"}


def test_closing_while_the_history_is_read_does_not_hang(qtbot: QtBot) -> None:
    """The window waits for a worker's call when it closes; its thread is told to end, so
    waiting returns once the call does, and the call's result goes nowhere."""
    background = Background()
    started, returned, results = threading.Event(), threading.Event(), []

    def call() -> None:
        started.set()
        time.sleep(0.3)
        returned.set()

    background.run(call, results.append, results.append)
    assert started.wait(5)
    background.wait()
    assert returned.is_set() and not background.running  # it waited for the call, no more
    QApplication.processEvents()  # what the call's end posted to the GUI thread is delivered
    assert results == []
