"""Right-click a run, keep its best and latest, confirm, then Ctrl+Z: everything is back."""

from __future__ import annotations

from pathlib import Path

from cleanup_helpers import tree_digest
from gui_helpers import (
    clean_checked,
    confirm_when_asked,
    right_click_bar,
    right_click_row,
    show_tab,
)
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QKeySequence
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from mlspace import fmt
from mlspace.ui.main_window import MainWindow


def test_right_click_keep_best_and_latest_then_undo(window: MainWindow, qtbot: QtBot,
                                                    demo_root: Path) -> None:
    before = tree_digest(demo_root)
    run = demo_root / "outputs" / "bert-large-lr3e-4"
    size_before = window.ws.size(window.ws.inventory.snapshot.find(str(run)))
    actions = right_click_row(window, str(run))
    assert not actions[0].isEnabled(), "the first item is a title, never an action"
    keep = next(a for a in actions if a.text().startswith(
        "Keep best 1 + latest 2 of bert-large-lr3e-4"))
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        keep.trigger()
    assert not (run / "checkpoint-1000").exists()
    assert (run / "checkpoint-7000").exists() and (run / "checkpoint-12000").exists()
    assert "to the trash, still on this disk" in window.status.text()
    assert "Free now… deletes them for good" in window.status.text()
    assert "Freed" not in window.status.text()  # nothing left the disk
    entry = window.ws.inventory.snapshot.find(str(run))
    assert window.ws.size(entry) < size_before  # the views updated without a rescan
    names = [window.model.index(r, 0, window.model.index_of(entry)).data()
             for r in range(window.model.rowCount(window.model.index_of(entry)))]
    assert "checkpoint-1000" not in names and "checkpoint-7000" in names
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        qtbot.keyClick(window.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert tree_digest(demo_root) == before
    assert window.ws.size(entry) == size_before
    assert window.undo_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Undo)


def test_cancelling_the_confirmation_moves_nothing(window: MainWindow, demo_root: Path) -> None:
    before = tree_digest(demo_root)
    actions = right_click_row(window, str(demo_root / "profiler"))
    move = next(a for a in actions if a.text() == "Move to trash…")
    confirm_when_asked(window, accept=False)
    move.trigger()
    assert tree_digest(demo_root) == before


def test_suggestions_panel_checks_and_cleans(window: MainWindow, qtbot: QtBot,
                                             demo_root: Path) -> None:
    panel = window.suggestions
    show_tab(window, panel)
    items = panel.suggestion_items()
    assert len(items) == len(window.ws.plan.suggestions) >= 5
    assert not panel.clean_button.isEnabled()
    caches = next(i for i in items if i.text(0).startswith("Remove 3 cached datasets.map()"))
    caches.setCheckState(0, Qt.CheckState.Checked)
    assert panel.clean_button.isEnabled() and "checked" in panel.total.text()
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        qtbot.mouseClick(panel.clean_button, Qt.MouseButton.LeftButton)
    assert not any(p.name.startswith("cache-") for p in (demo_root / "hf_datasets/wikitext")
                   .iterdir())
    assert all(not i.text(0).startswith("Remove 3 cached") for i in panel.suggestion_items())


def test_move_to_trash_is_disabled_on_a_filtered_folder(window: MainWindow) -> None:
    window.search.setText("trace")
    window.filters.apply_search()
    actions = right_click_row(window, str(window.ws.inventory.snapshot.roots[0] + "/profiler"))
    move = next(a for a in actions if a.text().startswith("Move to trash"))
    assert not move.isEnabled()
    assert QPoint  # keeps the import honest for type checkers


def test_export_report_from_the_app(window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    """Written in the background: the window says so, then says where it went."""
    target = tmp_path / "report.md"
    with qtbot.waitSignal(window.reports.written, timeout=30_000):
        window.reports.export(str(target))
        assert window.status.text() == f"Writing the report to {target}…"
    assert window.status.text() == f"Report written to {target}"
    assert window.suggestions.export_button.text() == "Export this plan…"
    # In the size mode shown: the demo's, apparent (it said 168 KiB against 68.9 GiB) ...
    assert window.ws.apparent
    text = target.read_text()
    assert "| Category | Apparent | Share | Files |" in text
    biggest = max(window.ws.plan.suggestions, key=lambda s: s.apparent_bytes)
    assert f"({fmt.size(biggest.apparent_bytes)}, {biggest.risk}): " in text
    window.apparent_box.click()  # ... and on disk once the window shows that
    assert not window.ws.apparent
    with qtbot.waitSignal(window.reports.written, timeout=30_000):
        window.reports.export(str(target))
    assert "| Category | On disk | Share | Files |" in target.read_text()


def test_a_report_that_cannot_be_written_says_why(window: MainWindow, qtbot: QtBot,
                                                  tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "report.html"
    with qtbot.waitSignal(window.reports.written, timeout=30_000):
        window.reports.export(str(target))
    assert window.status.text().startswith("Could not write the report: FileNotFoundError")
    assert not target.exists()


def test_history_lists_cleanups_and_undoes_one(window: MainWindow, qtbot: QtBot,
                                               demo_root: Path) -> None:
    before = tree_digest(demo_root)
    caches = next(s for s in window.ws.plan.suggestions if s.policy == "datasets-cache")
    clean_checked(window, qtbot, [caches])
    window.history_action.trigger()
    dialog = window.history_dialog
    newest = dialog.table.topLevelItem(0)
    assert newest.text(2) == "Remove 3 cached datasets.map() results"
    assert (newest.text(1), newest.text(5)) == ("Cleanup", "3 in the trash")
    dialog.table.setCurrentItem(newest)
    assert dialog.undo_button.isEnabled()
    assert window.ws.apparent  # the demo's: what moved is said in apparent sizes too
    assert (newest.text(3), newest.text(4)) == (fmt.size(caches.apparent_bytes), "—")  # freed
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    assert tree_digest(demo_root) == before
    window.history_action.trigger()
    undone = window.history_dialog.table.topLevelItem(0)
    # What it moved when it ran, not the 0 B still out:
    assert (undone.text(3), undone.text(5)) == (fmt.size(caches.apparent_bytes), "undone")


def test_right_click_a_category_bar_offers_its_suggestions(window: MainWindow, qtbot: QtBot
                                                           ) -> None:
    from mlspace.classify import Category

    texts = right_click_bar(window, qtbot, Category.CHECKPOINT)
    assert texts[0].startswith("Checkpoints — ") and not window.menus.last.actions()[0].isEnabled()
    assert any(t.startswith("Keep best 1 + latest 2 of bert-large-lr3e-4") for t in texts)
    assert "Show only Checkpoints" in texts


def test_right_click_a_run_offers_its_suggestions(window: MainWindow) -> None:
    show_tab(window, window.runs)
    runs = window.runs
    item = next(runs.topLevelItem(i) for i in range(runs.topLevelItemCount())
                if runs.topLevelItem(i).text(0) == "outputs/bert-large-lr3e-4")
    pos = runs.visualItemRect(item).center()
    QApplication.sendEvent(runs.viewport(), QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, pos, runs.viewport().mapToGlobal(pos)))
    texts = [a.text() for a in window.menus.last.actions()]
    assert texts[0].startswith("bert-large-lr3e-4 — ")
    assert any(t.startswith("Keep best 1 + latest 2 of bert-large-lr3e-4") for t in texts)


def test_charts_drop_what_was_moved_to_the_trash(window: MainWindow, qtbot: QtBot) -> None:
    from mlspace.classify import Category

    before = dict(window.category_chart.values())[Category.CACHE]
    ages_before = int(window.age_chart.table().sum())
    caches = next(s for s in window.ws.plan.suggestions if s.policy == "datasets-cache")
    clean_checked(window, qtbot, [caches])
    after = dict(window.category_chart.values())[Category.CACHE]
    assert after == before - caches.apparent_bytes
    assert int(window.age_chart.table().sum()) == ages_before - caches.apparent_bytes


def test_folder_colours_follow_what_was_moved_to_the_trash(window: MainWindow, qtbot: QtBot,
                                                          demo_root: Path) -> None:
    """A folder is coloured by the category holding most of its space: after a cleanup
    that is what is left in it, counted afresh, without a rescan."""
    from mlspace.classify import Category
    from mlspace.ui.colors import category_color
    from mlspace.ui.tree_model import CATEGORY, VALUE_ROLE

    snap = window.ws.inventory.snapshot
    folder = snap.find(str(demo_root / "src"))

    def shown() -> Category:
        index = window.model.index_of(folder)
        category = Category(window.model.index(index.row(), CATEGORY, index.parent()).data(
            VALUE_ROLE))
        assert index.data(Qt.ItemDataRole.DecorationRole) == category_color(category)
        return category

    def left_in_folder() -> Category:  # what the folder holds now, file by file
        space = dict.fromkeys(Category, 0)
        for entry in snap.subtree(folder):
            if not window.ws.removed[entry] and snap.counted[entry]:
                space[window.ws.inventory.category(entry)] += int(snap.apparent[entry])
        return max(space, key=space.__getitem__)

    window.ws.set_apparent(True)
    before = shown()
    assert before == left_in_folder() == Category.CACHE  # __pycache__ outweighs the code
    caches = next(s for s in window.ws.plan.suggestions if s.policy == "python-caches")
    clean_checked(window, qtbot, [caches])
    assert shown() == left_in_folder() != before
    window.undo_last_cleanup()
    qtbot.waitUntil(lambda: shown() == before, timeout=30_000)
