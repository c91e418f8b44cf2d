"""The Runs tab: sorted by a click on a header (sizes by bytes, names naturally), and a run
chosen there stays chosen when a filter or a cleanup redraws the list."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import clean_checked, open_window, show_tab, wait_drawn
from ml_trees import Recipe, build
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from mlspace.filtering import FilterSpec
from mlspace.paths import natural_key
from mlspace.ui.main_window import MainWindow
from mlspace.ui.runs_view import BYTES_ROLE, CHECKPOINTS, ENTRY_ROLE, RUN, SIZE, RunsView

#: Eleven HF Trainer runs (outputs/run-0 … run-10) of two to four checkpoints each.
RECIPE = Recipe(hf_runs=tuple((2 + n % 3, n % 2, 3.0) for n in range(11)), lightning=None,
                arrow_caches=(), pycache=False, debug=(), augmented=(), dataset_files=0,
                old_logs=False, seed=7)


@pytest.fixture
def runs(qtbot: QtBot, tmp_path: Path) -> tuple[MainWindow, RunsView]:
    win = open_window(qtbot, build(tmp_path / "ws", RECIPE))
    show_tab(win, win.runs)
    return win, win.runs


def _column(view: RunsView, column: int) -> list[str]:
    return [view.topLevelItem(i).text(column) for i in range(view.topLevelItemCount())]


def _click_header(qtbot: QtBot, view: RunsView, section: int) -> None:
    header = view.header()
    x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(x, header.height() // 2))
    wait_drawn(view.window())  # type: ignore[arg-type]


def test_sorted_by_size_then_by_name_naturally(runs: tuple[MainWindow, RunsView],
                                               qtbot: QtBot) -> None:
    window, view = runs
    items = [view.topLevelItem(i) for i in range(view.topLevelItemCount())]
    assert len(items) == 11
    sizes = [item.data(SIZE, BYTES_ROLE) for item in items]
    assert sizes == sorted(sizes, reverse=True)  # the biggest run first
    assert sizes == [window.ws.size(item.data(RUN, ENTRY_ROLE)) for item in items]
    _click_header(qtbot, view, RUN)
    names = _column(view, RUN)
    ascending = view.header().sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert names == sorted(names, key=lambda n: natural_key(n.casefold()),
                           reverse=not ascending)
    _click_header(qtbot, view, RUN)  # a second click turns the order round
    assert _column(view, RUN) == names[::-1]
    in_order = _column(view, RUN) if view.header().sortIndicatorOrder() == \
        Qt.SortOrder.AscendingOrder else names
    assert in_order.index("outputs/run-2") < in_order.index("outputs/run-10")


def test_the_chosen_run_stays_chosen_through_a_filter(runs: tuple[MainWindow, RunsView],
                                                      qtbot: QtBot) -> None:
    window, view = runs
    view.setFixedHeight(140)  # short enough to scroll
    item = view.topLevelItem(view.topLevelItemCount() - 1)
    view.scrollToItem(item)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.visualItemRect(item).center())
    entry = item.data(RUN, ENTRY_ROLE)
    assert window.ws.selected == entry
    scrolled = view.verticalScrollBar().value()
    assert scrolled > 0
    window.ws.set_filter(FilterSpec(text="optimizer"))
    wait_drawn(window)
    current = view.currentItem()
    assert current is not None and current.data(RUN, ENTRY_ROLE) == entry
    assert current.isSelected() and view.verticalScrollBar().value() == scrolled
    assert [view.topLevelItem(i).data(SIZE, BYTES_ROLE)
            for i in range(view.topLevelItemCount())] == \
        sorted((window.ws.size(view.topLevelItem(i).data(RUN, ENTRY_ROLE))
                for i in range(view.topLevelItemCount())), reverse=True)


def _texts(view: RunsView) -> list[tuple[str, ...]]:
    return [tuple(view.topLevelItem(i).text(c) for c in range(view.columnCount()))
            for i in range(view.topLevelItemCount())]


def test_a_cleanup_redraws_the_runs_it_touched_as_a_fresh_list_shows_them(
        runs: tuple[MainWindow, RunsView], qtbot: QtBot) -> None:
    window, view = runs
    retention = next(s for s in window.ws.plan.suggestions
                     if s.policy == "checkpoint-retention")
    run = window.ws.inventory.snapshot.find(retention.folder)
    row = next(view.topLevelItem(i) for i in range(view.topLevelItemCount())
               if view.topLevelItem(i).data(RUN, ENTRY_ROLE) == run)
    count = int(row.text(CHECKPOINTS))
    clean_checked(window, qtbot, [retention])
    show_tab(window, view)  # back to the Runs tab
    row = next(view.topLevelItem(i) for i in range(view.topLevelItemCount())
               if view.topLevelItem(i).data(RUN, ENTRY_ROLE) == run)
    assert int(row.text(CHECKPOINTS)) == count - len(retention.items)
    fresh = RunsView(window.ws)
    qtbot.addWidget(fresh)
    fresh.refresh()
    assert _texts(view) == _texts(fresh)


def test_shown_after_a_filter_it_is_right_at_once(runs: tuple[MainWindow, RunsView]) -> None:
    window, view = runs
    window.tabs.setCurrentWidget(window.treemap)
    window.ws.set_filter(FilterSpec(text="optimizer"))
    wait_drawn(window)
    window.tabs.setCurrentWidget(view)  # the same scan's rows: updated before it paints
    assert [view.topLevelItem(i).data(SIZE, BYTES_ROLE)
            for i in range(view.topLevelItemCount())] == \
        sorted((window.ws.size(run.run.entry) for run in window.ws.runs()), reverse=True)


def test_shown_after_another_scan_it_shows_no_old_row(runs: tuple[MainWindow, RunsView],
                                                      qtbot: QtBot, tmp_path: Path) -> None:
    window, view = runs
    window.tabs.setCurrentWidget(window.treemap)
    other = build(tmp_path / "other", Recipe(hf_runs=((3, 1, 3.0),), lightning=None,
                                             arrow_caches=(), pycache=False, debug=(),
                                             augmented=(), dataset_files=0, old_logs=False,
                                             seed=1))
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.open_paths([str(other)])
    wait_drawn(window)
    window.tabs.setCurrentWidget(view)
    assert view.topLevelItemCount() == 0  # emptied at once, filled on the next turns
    wait_drawn(window)
    assert _column(view, RUN) == ["outputs/run-0"]
    assert view.topLevelItem(0).toolTip(RUN) == str(other / "outputs" / "run-0")


def test_a_runs_menu_offers_only_that_runs_suggestions(window: MainWindow) -> None:
    """A W&B or Lightning run without a checkpoint series offered every suggestion that is
    about no run at all (stale debug dumps, Python caches, datasets caches)."""
    show_tab(window, window.runs)
    view = window.runs
    items = [view.topLevelItem(i) for i in range(view.topLevelItemCount())]
    wandb = next(i for i in items if i.text(RUN).startswith("wandb/"))
    pos = view.visualItemRect(wandb).center()
    QApplication.sendEvent(view.viewport(), QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos)))
    texts = [a.text() for a in window.menus.last.actions()]
    assert texts[0].startswith(wandb.text(RUN).rsplit("/", 1)[-1])
    unrelated = ("stale debug dumps", "Python cache", "datasets.map()")
    assert not [t for t in texts if any(u in t for u in unrelated)], texts
