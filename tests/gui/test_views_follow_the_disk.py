"""Every number on screen right after every action (issue 14, items 1-3), on the demo.

After a cleanup or an undo, the tree, the charts, the treemap, the Runs tab and the Details
pane show what a fresh scan of the disk shows, with no F5; a filter changes neither what
Details says the selection is nor which folders are expanded.
"""

from __future__ import annotations

import os
from pathlib import Path

from gui_helpers import confirm_when_asked, show_tab
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from view_truth import assert_agrees_with_disk, expanded_paths, fresh, on_screen, row_size

from mlspace.classify import Category
from mlspace.ui.main_window import MainWindow


def _clean_from_panel(window: MainWindow, qtbot: QtBot, title: str) -> None:
    """Check one suggestion in the Suggestions tab, click "Clean up checked…", confirm."""
    panel = window.suggestions
    show_tab(window, panel)
    item = next(i for i in panel.suggestion_items() if i.text(0).startswith(title))
    item.setCheckState(0, Qt.CheckState.Checked)
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        qtbot.mouseClick(panel.clean_button, Qt.MouseButton.LeftButton)


def _undo(window: MainWindow, qtbot: QtBot) -> None:
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        window.undo_action.trigger()


def _expand(window: MainWindow, *paths: str) -> None:
    for path in paths:
        window.tree.expand(window.model.index_of(window.ws.inventory.snapshot.find(path)))


def _click_bar(qtbot: QtBot, chart: object, row: int, x: float) -> None:
    plot = chart.plot  # type: ignore[attr-defined]
    pos = plot.mapFromScene(plot.getViewBox().mapViewToScene(QPointF(x, row)))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def _click_category(qtbot: QtBot, window: MainWindow, category: Category) -> None:
    chart = window.category_chart
    row = chart.categories.index(category)
    _click_bar(qtbot, chart, row, dict(chart.values())[category] / 2)


def _select_row(qtbot: QtBot, window: MainWindow, path: str) -> None:
    index = window.model.index_of(window.ws.inventory.snapshot.find(path))
    window.tree.scrollTo(index)
    qtbot.mouseClick(window.tree.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.tree.visualRect(index).center())
    assert window.model.path(window.ws.selected) == path


def _details_field(window: MainWindow, name: str) -> str:
    """A field of the Details pane (its table puts each cell on a line of its own)."""
    lines = window.details.toPlainText().splitlines()
    return lines[lines.index(name) + 1]


# ------------------------------------------------------------------------ item 1: sizes
def test_folder_sizes_after_a_cleanup_are_what_the_disk_holds(window: MainWindow, qtbot: QtBot,
                                                              demo_root: Path) -> None:
    """The issue's numbers: on disk, the root, data/ and imagenet-mini/ kept only their
    files (0 bytes: the demo's files are sparse) and src/ lost its own 4 KiB."""
    root = str(demo_root)
    _expand(window, root, f"{root}/data", f"{root}/src", f"{root}/wandb")
    window.apparent_box.click()
    assert not window.ws.apparent
    untouched = {p: row_size(window, p) for p in (f"{root}/data", f"{root}/data/imagenet-mini",
                                                  f"{root}/wandb")}
    _clean_from_panel(window, qtbot, "Remove 1 Python cache folder")
    assert not (demo_root / "src" / "__pycache__").exists()
    truth = fresh(window)
    for path, size in untouched.items():
        assert row_size(window, path) == size > 0, path
    left = [demo_root / "src", demo_root / "src" / "train.py"]  # the folder counts itself
    assert row_size(window, f"{root}/src") == sum(os.lstat(p).st_blocks * 512 for p in left)
    assert row_size(window, root) == sum(size for *_, size in truth.tree[""])
    assert_agrees_with_disk(window)
    window.apparent_box.click()  # and in apparent sizes
    assert_agrees_with_disk(window)
    _undo(window, qtbot)
    assert_agrees_with_disk(window)


def test_charts_and_tree_agree_after_a_cleanup_and_an_undo(window: MainWindow, qtbot: QtBot,
                                                          demo_root: Path) -> None:
    """The category bars add up to the root's row, before and after."""
    def bars_total() -> int:
        return sum(value for _, value in window.category_chart.values())

    assert bars_total() == row_size(window, str(demo_root))
    _clean_from_panel(window, qtbot, "Remove 3 cached datasets.map() results")
    assert bars_total() == row_size(window, str(demo_root))
    assert_agrees_with_disk(window)
    _undo(window, qtbot)
    assert bars_total() == row_size(window, str(demo_root))
    assert_agrees_with_disk(window)


# ------------------------------------------------------------------------ item 2: runs, details
def test_runs_tab_follows_a_cleanup_and_its_undo(window: MainWindow, qtbot: QtBot) -> None:
    show_tab(window, window.runs)

    def bert_large() -> tuple[str, str]:
        runs = window.runs
        item = next(runs.topLevelItem(i) for i in range(runs.topLevelItemCount())
                    if runs.topLevelItem(i).text(0) == "outputs/bert-large-lr3e-4")
        return item.text(1), item.text(2)

    size_before, count_before = bert_large()
    assert count_before == "12"
    _clean_from_panel(window, qtbot, "Keep best 1 + latest 2 of bert-large-lr3e-4")
    show_tab(window, window.runs)
    size_after, count_after = bert_large()
    assert count_after == "3" and size_after != size_before
    assert_agrees_with_disk(window)
    _undo(window, qtbot)
    show_tab(window, window.runs)
    assert bert_large() == (size_before, count_before)
    assert_agrees_with_disk(window)


def test_details_let_go_of_what_went_to_the_trash(window: MainWindow, qtbot: QtBot,
                                                  demo_root: Path) -> None:
    core = str(demo_root / "core.81234")
    _select_row(qtbot, window, core)
    assert "core.81234" in window.details.toPlainText()
    index = window.model.index_of(window.ws.selected)
    pos = window.tree.visualRect(index).center()
    QApplication.sendEvent(window.tree.viewport(), QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, pos, window.tree.viewport().mapToGlobal(pos)))
    move = next(a for a in window.menus.last.actions() if a.text() == "Move to trash…")
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        move.trigger()
    assert not Path(core).exists()
    assert "core.81234" not in window.details.toPlainText()
    assert window.ws.selected == -1
    assert_agrees_with_disk(window)


def test_details_of_a_folder_after_a_cleanup_inside_it(window: MainWindow, qtbot: QtBot,
                                                       demo_root: Path) -> None:
    run = str(demo_root / "outputs" / "bert-large-lr3e-4")
    _expand(window, str(demo_root), str(demo_root / "outputs"))
    _select_row(qtbot, window, run)
    files_before = _details_field(window, "Files")
    _clean_from_panel(window, qtbot, "Keep best 1 + latest 2 of bert-large-lr3e-4")
    assert window.model.path(window.ws.selected) == run
    assert _details_field(window, "Files") != files_before
    assert_agrees_with_disk(window)


# ------------------------------------------------------------------------ item 3: filters
def test_details_say_what_the_selection_is_under_any_filter(window: MainWindow, qtbot: QtBot,
                                                            demo_root: Path) -> None:
    checkpoint = str(demo_root / "outputs" / "bert-large-lr3e-4" / "checkpoint-7000")
    _expand(window, str(demo_root), str(demo_root / "outputs"),
            str(demo_root / "outputs" / "bert-large-lr3e-4"))
    _select_row(qtbot, window, checkpoint)
    assert _details_field(window, "Category") == "Checkpoints"
    _click_category(qtbot, window, Category.DEBUG)
    assert window.ws.filter.spec.categories == frozenset({Category.DEBUG})
    assert _details_field(window, "Category") == "Checkpoints"
    assert_agrees_with_disk(window)
    window.clear_filter_action.trigger()
    current = window.tree.currentIndex()  # its row is marked again once it is shown again
    assert current.isValid() and window.model.path(window.model.entry(current)) == checkpoint
    chart = window.age_chart
    bucket, (_, lo, hi) = next((b, seg) for b, segs in enumerate(chart.stacks) for seg in segs
                               if seg[0] == Category.AUGMENTED)
    _click_bar(qtbot, chart, bucket, (lo + hi) / 2)
    assert window.ws.filter.spec.categories == frozenset({Category.AUGMENTED})
    assert _details_field(window, "Category") == "Checkpoints"
    assert_agrees_with_disk(window)


def test_expanded_folders_stay_expanded_through_filters(window: MainWindow, qtbot: QtBot,
                                                        demo_root: Path) -> None:
    root = str(demo_root)
    opened = {root, f"{root}/outputs", f"{root}/outputs/bert-large-lr3e-4", f"{root}/data",
              f"{root}/profiler"}
    _expand(window, *opened)
    assert expanded_paths(window) == opened
    _click_category(qtbot, window, Category.CHECKPOINT)  # profiler and data are hidden
    assert expanded_paths(window) == {root, f"{root}/outputs",
                                      f"{root}/outputs/bert-large-lr3e-4"}
    assert_agrees_with_disk(window)
    _click_category(qtbot, window, Category.CHECKPOINT)  # again: everything, as it was
    assert expanded_paths(window) == opened
    window.search.setText("trace")
    qtbot.waitUntil(lambda: window.ws.filter.spec.text == "trace", timeout=3000)
    assert expanded_paths(window) == {root, f"{root}/profiler"}
    window.clear_filter_action.trigger()
    assert window.search.text() == ""
    assert expanded_paths(window) == opened


def test_a_rescan_keeps_the_view(window: MainWindow, qtbot: QtBot, demo_root: Path) -> None:
    root = str(demo_root)
    opened = {root, f"{root}/outputs", f"{root}/profiler"}
    _expand(window, *opened)
    _select_row(qtbot, window, f"{root}/profiler")
    window.search.setText("trace")
    qtbot.waitUntil(lambda: window.ws.filter.spec.text == "trace", timeout=3000)
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.rescan_action.trigger()
    assert window.ws.filter.spec.text == "trace" and window.search.text() == "trace"
    assert window.model.path(window.ws.selected) == f"{root}/profiler"
    window.clear_filter_action.trigger()
    assert expanded_paths(window) == opened
    assert on_screen(window) == fresh(window)
