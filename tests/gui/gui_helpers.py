"""Driving the real widgets as a person would: right-click a tree row, confirm a cleanup,
click a chart."""

from __future__ import annotations

import time
from pathlib import Path

from pyqtgraph import PlotWidget
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.main_window import MainWindow
from mlspace.ui.suggestions_panel import ID_ROLE


def wait_drawn(window: MainWindow, timeout_s: float = 10.0) -> None:
    """Run the event loop until every view has redrawn what the last change asked: they
    redraw one per turn of the event loop (mlspace.ui.redraws)."""
    deadline = time.monotonic() + timeout_s
    QApplication.processEvents()
    while window.ws.redraws.pending:
        assert time.monotonic() < deadline, "the views did not finish redrawing"
        QTest.qWait(5)


def open_window(qtbot: QtBot, root: Path | str) -> MainWindow:
    """A main window at the default size, showing a finished scan of ``root``, drawn."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 820)
    window.show()
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.open_paths([str(root)])
    wait_drawn(window)  # and what waits for the views (the Growth tab's history)
    return window


def show_tab(window: MainWindow, page: QWidget) -> None:
    """Bring a tab to the front as a click on it does, and wait until it is drawn: a tab
    that must make its rows anew fills on the turns after it shows."""
    window.tabs.setCurrentWidget(page)
    wait_drawn(window)


def right_click_row(window: MainWindow, path: str) -> list:  # noqa: ANN202
    snap = window.ws.inventory.snapshot
    index = window.model.index_of(snap.find(path))
    window.tree.scrollTo(index)
    pos = window.tree.visualRect(index).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                              window.tree.viewport().mapToGlobal(pos))
    QApplication.sendEvent(window.tree.viewport(), event)
    return window.menus.last.actions()


def confirm_when_asked(window: MainWindow, accept: bool = True) -> None:
    def press() -> None:
        dialog = getattr(window, "last_dialog", None)
        if isinstance(dialog, ConfirmCleanup) and dialog.isVisible():
            (dialog.confirm.click if accept else dialog.reject)()
        else:
            QTimer.singleShot(20, press)

    QTimer.singleShot(20, press)


def check_only(window: MainWindow, suggestions: list) -> None:
    """In the Suggestions tab, check these suggestions and uncheck all others (some start
    checked), as a person clicks their boxes."""
    panel = window.suggestions
    show_tab(window, panel)
    wanted = {s.id for s in suggestions}
    for item in panel.suggestion_items():
        if item.flags() & Qt.ItemFlag.ItemIsUserCheckable:
            item.setCheckState(0, Qt.CheckState.Checked if item.data(0, ID_ROLE) in wanted
                               else Qt.CheckState.Unchecked)
    assert {s.id for s in panel.checked()} == wanted, [s.title for s in panel.checked()]


def clean_checked(window: MainWindow, qtbot: QtBot, suggestions: list,
                  timeout_ms: int = 30_000) -> None:
    """Check these suggestions in the Suggestions tab, click "Clean up checked…", confirm
    the dialog, and wait until the window shows the result, as a person would."""
    check_only(window, suggestions)
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=timeout_ms):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)


def click_in_plot(qtbot: QtBot, plot: PlotWidget, x: float, y: float) -> None:
    """Click a pyqtgraph plot where the data point (x, y) is drawn, as a person would."""
    scene_point = plot.getViewBox().mapViewToScene(QPointF(x, y))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton,
                     pos=plot.mapFromScene(scene_point))


def right_click_bar(window: MainWindow, qtbot: QtBot, category: object) -> list[str]:
    """Right-click the middle of a category's bar in the category chart; the menu's texts."""
    chart = window.category_chart
    row = chart.categories.index(category)
    width = dict(chart.values())[category]
    plot = chart.plot
    pos = plot.mapFromScene(plot.getViewBox().mapViewToScene(QPointF(width / 2, row)))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.RightButton, pos=pos)
    return [a.text() for a in window.menus.last.actions()]
