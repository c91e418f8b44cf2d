"""The Suggestions tab follows cleanups, undos, filters and the size mode without losing what
the user did there: check marks and opened suggestions stay, a cleaned suggestion leaves and
comes back at its place on undo, and a suggestion's rows are made when it is opened."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import confirm_when_asked, right_click_row, show_tab, wait_drawn
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from mlspace.filtering import FilterSpec
from mlspace.ui.main_window import MainWindow
from mlspace.ui.suggestions_panel import ID_ROLE, SuggestionsPanel


def _shown(panel: SuggestionsPanel) -> list[tuple[str, str, str, str]]:
    """Each suggestion row as the user reads it: group, title, size, risk."""
    return [(row.parent().text(0), row.text(0), row.text(1), row.text(2))
            for row in panel.suggestion_items()]


def _row(panel: SuggestionsPanel, starts: str) -> QTreeWidgetItem:
    return next(i for i in panel.suggestion_items() if i.text(0).startswith(starts))


def _fresh_panel(window: MainWindow, qtbot: QtBot) -> SuggestionsPanel:
    """A second panel built from nothing on the same workspace: what a rebuild shows."""
    fresh = SuggestionsPanel(window.ws)
    qtbot.addWidget(fresh)
    fresh.refresh()
    return fresh


def test_a_suggestion_lists_its_rows_only_once_opened(window: MainWindow) -> None:
    panel = window.suggestions
    show_tab(window, panel)
    row = _row(panel, "Keep best 1 + latest 2 of bert-large-lr3e-4")
    assert row.childCount() == 0  # nothing made yet, and yet it can be opened
    assert row.childIndicatorPolicy() == QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator
    panel.tree.expandItem(row)
    s = window.ws.plan.by_id(row.data(0, ID_ROLE))
    assert row.childCount() == 1 + len(s.items) + len(s.kept)  # its folder, goes, stays


def test_cleanup_and_undo_keep_checks_and_open_rows(window: MainWindow, qtbot: QtBot,
                                                    demo_root: Path) -> None:
    panel = window.suggestions
    show_tab(window, panel)
    before = _shown(panel)
    checked = _row(panel, "Keep best 1 + latest 2 of bert-large-lr3e-4")
    checked.setCheckState(0, Qt.CheckState.Checked)
    opened = _row(panel, "Remove 3 cached datasets.map()")
    panel.tree.expandItem(opened)
    cleaned = next(i for i in panel.suggestion_items() if i.text(0).startswith("Remove")
                   and i is not opened and i.flags() & Qt.ItemFlag.ItemIsUserCheckable)
    title = cleaned.text(0)
    suggestion = window.ws.plan.by_id(cleaned.data(0, ID_ROLE))
    # cleaned from the tree's menu, so the other checks stay as they are
    offered = next(a for a in right_click_row(window, suggestion.paths[0])
                   if a.text().startswith(suggestion.title))
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        offered.trigger()
    show_tab(window, panel)
    titles = [row[1] for row in _shown(panel)]
    assert title not in titles and len(titles) == len(before) - 1
    assert _shown(panel) == _shown(_fresh_panel(window, qtbot))  # as a rebuild would show
    assert _row(panel, "Keep best 1 + latest 2 of bert-large-lr3e-4").checkState(0) == \
        Qt.CheckState.Checked
    assert _row(panel, "Remove 3 cached datasets.map()").isExpanded()
    assert "checked" in panel.total.text()
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        window.undo_last_cleanup()
    wait_drawn(window)
    assert _shown(panel) == before  # back, at its place, with its size
    assert _row(panel, title).checkState(0) == Qt.CheckState.Unchecked
    assert _row(panel, "Keep best 1 + latest 2 of bert-large-lr3e-4").checkState(0) == \
        Qt.CheckState.Checked


def test_filters_and_size_mode_keep_checks(window: MainWindow, qtbot: QtBot) -> None:
    panel = window.suggestions
    show_tab(window, panel)
    row = _row(panel, "Keep best 1 + latest 2 of bert-large-lr3e-4")
    row.setCheckState(0, Qt.CheckState.Checked)
    panel.tree.expandItem(row)
    window.ws.set_filter(FilterSpec(text="optimizer"))
    wait_drawn(window)
    assert _row(panel, "Keep best 1").checkState(0) == Qt.CheckState.Checked
    disk = _shown(panel)
    window.ws.set_apparent(not window.ws.apparent)
    wait_drawn(window)
    row = _row(panel, "Keep best 1 + latest 2 of bert-large-lr3e-4")
    assert row.checkState(0) == Qt.CheckState.Checked and row.isExpanded()
    s = window.ws.plan.by_id(row.data(0, ID_ROLE))
    assert row.childCount() == 1 + len(s.items) + len(s.kept)
    assert _shown(panel) != disk  # the sizes follow the mode
    assert _shown(panel) == _shown(_fresh_panel(window, qtbot))
