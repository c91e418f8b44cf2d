"""The main window's commands: every menu entry and shortcut, connected to what it does,
then laid out in the menu bar and the toolbar (mlspace.ui.window_menus).

The actions are the window's own attributes (``window.rescan_action``...): its helpers and
the tests reach them there. What each does is the window's, or one of its helpers' (saving
a scan, exporting a report, the tree's copy path); this module only wires them. It knows
the window through :class:`CommandWindow`, below it, so the window imports this and this
never imports the window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMessageBox

from mlspace.ui.window_menus import about_text, apparent_box, fill_menu_bar, main_toolbar

if TYPE_CHECKING:
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QToolBar

    from mlspace.ui.archive_actions import ArchiveActions
    from mlspace.ui.recent_folders import RecentFolders
    from mlspace.ui.report_export import ReportExport
    from mlspace.ui.save_scan import SaveScan
    from mlspace.ui.tree_pane import TreePane
    from mlspace.ui.treemap_view import TreemapView


class CommandWindow(Protocol):
    """What the commands reach of the main window (mlspace.ui.main_window.MainWindow, a
    QMainWindow: the actions' Qt parent), and the actions they leave on it."""

    saving: SaveScan
    reports: ReportExport
    tiering: ArchiveActions
    recent: RecentFolders
    tree: TreePane
    treemap: TreemapView
    search: QLineEdit
    min_size: QComboBox
    open_action: QAction
    open_scan_action: QAction
    save_scan_action: QAction
    demo_action: QAction
    rescan_action: QAction
    export_action: QAction
    cancel_action: QAction
    quit_action: QAction
    copy_path_action: QAction
    open_fm_action: QAction
    clear_filter_action: QAction
    up_action: QAction
    undo_action: QAction
    history_action: QAction
    settings_action: QAction
    about_action: QAction
    apparent_action: QAction
    apparent_box: QCheckBox
    toolbar: QToolBar

    def choose_folder(self) -> None: ...
    def choose_saved_scan(self) -> None: ...
    def open_demo(self) -> None: ...
    def rescan(self) -> None: ...
    def cancel_scan(self) -> None: ...
    def close(self) -> bool: ...
    def clear_filters(self) -> None: ...
    def undo_last_cleanup(self) -> None: ...
    def show_history(self) -> None: ...
    def set_apparent(self, apparent: bool) -> None: ...


def make_actions(window: CommandWindow) -> None:
    """Every command as an action of the window, with its shortcut."""
    parent = cast(QMainWindow, window)

    def action(text: str, slot: Callable[[], object],
               shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None
               ) -> QAction:
        act = QAction(text, parent)
        act.triggered.connect(slot)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        parent.addAction(act)
        return act

    window.open_action = action("&Open folder…", window.choose_folder,
                                QKeySequence.StandardKey.Open)
    window.open_scan_action = action("Open &scan…", window.choose_saved_scan, "Ctrl+Shift+O")
    window.save_scan_action = action("&Save scan…", window.saving.choose_file,
                                     QKeySequence.StandardKey.Save)
    window.demo_action = action("Open the &demo workspace", window.open_demo)
    window.rescan_action = action("&Rescan", window.rescan, "F5")
    window.export_action = action("&Export report…", window.reports.choose_file,
                                  "Ctrl+Shift+E")
    window.cancel_action = action("&Cancel scan", window.cancel_scan, "Ctrl+.")
    window.quit_action = action("&Quit", window.close, QKeySequence.StandardKey.Quit)
    window.copy_path_action = action("&Copy path", window.tree.copy_selected_path,
                                     QKeySequence.StandardKey.Copy)
    window.open_fm_action = action("Open in file &manager",
                                   window.tree.open_selected_in_file_manager, "Ctrl+E")
    window.clear_filter_action = action("Show &everything", window.clear_filters, "Escape")
    window.up_action = action("&Up one folder (treemap)", window.treemap.go_up, "Backspace")
    window.undo_action = action("&Undo last cleanup", window.undo_last_cleanup,
                                QKeySequence.StandardKey.Undo)
    window.history_action = action("Cleanup &history…", window.show_history)
    window.settings_action = action("&Settings…", lambda: window.tiering.show_settings())
    window.about_action = action("&About mlspace", lambda: QMessageBox.about(
        parent, "About mlspace", about_text()))
    window.apparent_action = QAction("&Apparent sizes", parent, checkable=True)
    window.apparent_action.setShortcut(QKeySequence("Ctrl+Shift+A"))
    window.apparent_action.toggled.connect(window.set_apparent)
    parent.addAction(window.apparent_action)


def lay_out_commands(window: CommandWindow) -> None:
    """The toolbar (with the size-mode switch, the search and the size filter) and the menu
    bar, of the actions :func:`make_actions` made."""
    parent = cast(QMainWindow, window)
    window.apparent_box = apparent_box(window.apparent_action)
    window.toolbar = main_toolbar([window.open_action, window.rescan_action],
                                  [[window.apparent_box], [window.search, window.min_size]])
    parent.addToolBar(window.toolbar)
    fill_menu_bar(parent.menuBar(), (
        ("&File", (window.open_action, window.open_scan_action, window.recent.menu,
                   window.demo_action, window.rescan_action, window.cancel_action,
                   window.save_scan_action, window.export_action, None, window.quit_action)),
        ("&Edit", (window.undo_action, window.history_action, window.settings_action, None,
                   window.copy_path_action, window.open_fm_action)),
        ("&View", (window.apparent_action, window.clear_filter_action, window.up_action)),
        ("&Help", (window.about_action,)),
    ))
