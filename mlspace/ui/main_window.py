"""The main window: welcome page, scanning page, and the workspace views side by side."""

from __future__ import annotations

import html
import os
import time
from functools import partial

from PySide6.QtCore import QItemSelectionModel, Qt, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.advise import KeptItem, Suggestion
from mlspace.demo import is_demo
from mlspace.index.sniff import saved_scan_format
from mlspace.scan import ScanOptions, ScanProgress
from mlspace.ui.archive_actions import ArchiveActions
from mlspace.ui.charts import AgeChart, CategoryChart, OwnerChart
from mlspace.ui.cleanup_controller import CleanupController, CleanupResult
from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.columns import FitColumns
from mlspace.ui.details import DetailsPanel
from mlspace.ui.disk_bar import DiskBar
from mlspace.ui.filter_bar import FilterBar
from mlspace.ui.free_space import FreeSpaceActions, cleanup_words
from mlspace.ui.fresh_plan import Replanned
from mlspace.ui.growth_view import GrowthView
from mlspace.ui.journal_follow import JournalFollower, named, own_run
from mlspace.ui.read_again import ReadAgain
from mlspace.ui.recent_folders import RecentFolders
from mlspace.ui.report_export import ReportExport
from mlspace.ui.runs_view import RunsView
from mlspace.ui.saved_scans import (
    SaveController,
    ScanSource,
    ask_scan_to_open,
    ask_where_to_save,
)
from mlspace.ui.scan_controller import ScanController
from mlspace.ui.selection_menus import SelectionMenus
from mlspace.ui.share_delegate import ShareBarDelegate
from mlspace.ui.start_pages import ScanningPage, WelcomePage
from mlspace.ui.status_line import StatusLine
from mlspace.ui.suggestions_panel import SuggestionsPanel
from mlspace.ui.tree_model import CHANGE, NAME, OPTIONAL_COLUMNS, SHARE, SIZE, TreeModel
from mlspace.ui.treemap_view import TreemapView
from mlspace.ui.window_settings import settings
from mlspace.ui.workspace import Workspace

WELCOME, SCANNING, VIEWS = range(3)
#: The app's scans report the roots' top-level entries as they grow (the scanning page).
LIVE_SCAN = ScanOptions(live_totals=True, behind_window=True)


def about_text() -> str:
    """What the About dialog says: the version, and which walker scans (the native one, or
    the Python one and why), since that decides how fast a scan is."""
    from mlspace import __version__
    from mlspace.scan.native import walker_description

    return (f"<b>mlspace {__version__}</b><p>Shows where the disk went in ML workspaces and "
            f"gives it back safely.</p><p>Scans with the {html.escape(walker_description())}."
            "</p>")


class MainWindow(QMainWindow):
    scan_finished = Signal()  # a scan is shown: every view has drawn it
    cleanup_finished = Signal()  # a cleanup or undo is shown: every view has drawn it
    freed_finished = Signal()  # a purge is done and the disk line shows what it freed

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("mlspace")
        self.setAcceptDrops(True)
        self.ws = Workspace(self)
        self.scanner = ScanController(self)
        self.cleaner = CleanupController(self)
        self.tiering = ArchiveActions(self)  # the cold tier: settings, archive, bring back
        self.saver = SaveController(self)
        self.menus = SelectionMenus(self)  # right-click on the selection or a category bar
        self.reports = ReportExport(self)  # built and written off the GUI thread
        self.source: ScanSource | None = None  # where the scan shown comes from
        self.demo_paths: set[str] = set()
        self._scan_started = 0.0
        self._keep_view = False  # the scan running is a rescan that keeps the view
        self._cleaning: list[Suggestion] = []  # what the running cleanup was asked to do
        self._stayed: tuple[KeptItem, ...] = ()  # what it left of a saved scan's plan
        self.read_again = ReadAgain(self)  # a saved scan's plan, planned from the disk
        self._after_rescan = ""  # a cleanup's message, shown when its rescan is done
        self._expanded: set[int] = set()  # the tree's expanded folders (entries)

        self.recent = RecentFolders(self)
        self.recent.chosen.connect(lambda path: self.open_paths([path]))
        self.welcome = WelcomePage(self.recent.label)
        self.welcome.open_requested.connect(self.choose_folder)
        self.welcome.demo_requested.connect(self.open_demo)
        self.scanning = ScanningPage()
        self.scanning.cancel_requested.connect(self.cancel_scan)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.stack.addWidget(self.scanning)
        self.stack.addWidget(self._views_page())
        self.setCentralWidget(self.tiering.banner.around(self.stack))
        self._make_actions()
        self.journal = JournalFollower(self)  # what Ctrl+Z undoes; runs made outside
        self._update_scan_actions()
        self._make_toolbar()
        self._make_menus()
        self.status = StatusLine()
        self.statusBar().addWidget(self.status, 1)
        self.disk_bar.told.connect(self.status.setText)  # Guard this disk… says what it did
        self.freeing = FreeSpaceActions(self)  # Free … now…, and the trash's retention

        self.scanner.progress.connect(self._on_progress)
        self.scanner.finished.connect(self._on_finished)
        self.scanner.failed.connect(self._on_failed)
        self.scanner.refused.connect(self._on_refused)
        self.saver.saved.connect(self._on_saved)
        self.cleaner.cleaned.connect(self._on_cleaned)
        self.cleaner.undone.connect(self._on_undone)
        self.cleaner.failed.connect(self._on_failed)
        self.cleaner.failed.connect(lambda _: self.journal.resume())
        self.cleaner.progress.connect(
            lambda done, total, path: self.status.setText(
                f"Moving to the trash: {done}/{total} {os.path.basename(path)}"))
        self.ws.selection_changed.connect(self._sync_tree_selection)
        self._restore_settings()
        self.recent.refresh()
        self.tiering.start(settings())
        # A broken config.toml may have meant another retention: nothing is freed then.
        self.freeing.start(0 if self.tiering.config_problem else self.ws.user.trash_days)
        self.journal.start()

    # ------------------------------------------------------------------ pages
    def _views_page(self) -> QWidget:
        self.model = TreeModel(self.ws)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(SIZE, Qt.SortOrder.DescendingOrder)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._tree_menu)
        self.tree.setItemDelegateForColumn(SHARE, ShareBarDelegate(self.tree))
        self.tree_columns = FitColumns(self.tree, NAME, optional=OPTIONAL_COLUMNS,
                                       last_resort=(CHANGE,))
        self.tree.header().moveSection(CHANGE, SHARE)  # "Change since …" beside the size
        self.tree.selectionModel().currentChanged.connect(
            lambda current, _previous: self.ws.select(self.model.entry(current)))
        self.tree.doubleClicked.connect(self._tree_double_clicked)
        # Qt forgets a folder's expansion when a filter or a cleanup hides its row: keep our
        # own list, and expand again whatever comes back.
        self.tree.expanded.connect(lambda index: self._expanded.add(self.model.entry(index)))
        self.tree.collapsed.connect(
            lambda index: self._expanded.discard(self.model.entry(index)))
        self.model.layoutChanged.connect(self._expand_again)

        self.treemap = TreemapView(self.ws)
        self.treemap.canvas.context_menu_requested.connect(self.menus.popup)
        self.runs = RunsView(self.ws)
        self.runs.context_menu_requested.connect(self.menus.popup)
        self.suggestions = SuggestionsPanel(self.ws)
        self.suggestions.clean_requested.connect(self.confirm_and_clean)
        self.suggestions.export_requested.connect(self.reports.choose_file)
        tabs = QTabWidget()
        tabs.addTab(self.treemap, "Treemap")
        tabs.addTab(self.suggestions, "Suggestions")
        tabs.addTab(self.runs, "Runs")
        self.growth = GrowthView(self.ws)
        tabs.addTab(self.growth, "Growth")
        self.tabs = tabs
        self.category_chart = CategoryChart(self.ws)
        self.category_chart.category_menu_requested.connect(self.menus.popup_for_category)
        self.age_chart = AgeChart(self.ws)
        charts = QSplitter(Qt.Orientation.Horizontal)
        self.owner_chart = OwnerChart(self.ws)  # shown when the scan has several owners
        charts.addWidget(self.category_chart)
        charts.addWidget(self.owner_chart)
        charts.addWidget(self.age_chart)
        self.details = DetailsPanel(self.ws)

        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(tabs)
        right.addWidget(charts)
        right.addWidget(self.details)
        right.setSizes([380, 200, 220])  # room for a checkpoint's facts in Details
        self.filters = FilterBar(self.ws)
        self.search, self.min_size = self.filters.search, self.filters.min_size
        self.filter_label = self.filters.label
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.filter_label)
        left_layout.addWidget(self.tree)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setSizes([600, 600])  # at 1024 px the tree still has its Category
        self.right_splitter = right
        self.disk_bar = DiskBar(self.ws)
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.disk_bar)
        column.addWidget(self.splitter, 1)
        return page

    # ------------------------------------------------------------------ actions
    def _make_actions(self) -> None:
        def action(text: str, slot: object, shortcut: QKeySequence | str | None = None
                   ) -> QAction:
            act = QAction(text, self)
            act.triggered.connect(slot)  # type: ignore[arg-type]
            if shortcut is not None:
                act.setShortcut(QKeySequence(shortcut))
            self.addAction(act)
            return act

        self.open_action = action("&Open folder…", self.choose_folder,
                                  QKeySequence.StandardKey.Open)
        self.open_scan_action = action("Open &scan…", self.choose_saved_scan, "Ctrl+Shift+O")
        self.save_scan_action = action("&Save scan…", self.choose_scan_file,
                                       QKeySequence.StandardKey.Save)
        self.demo_action = action("Open the &demo workspace", self.open_demo)
        self.rescan_action = action("&Rescan", self.rescan, "F5")
        self.export_action = action("&Export report…", self.reports.choose_file, "Ctrl+Shift+E")
        self.cancel_action = action("&Cancel scan", self.cancel_scan, "Ctrl+.")
        self.quit_action = action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.copy_path_action = action("&Copy path", self.copy_selected_path,
                                       QKeySequence.StandardKey.Copy)
        self.open_fm_action = action("Open in file &manager", self.open_selected_in_file_manager,
                                     "Ctrl+E")
        self.clear_filter_action = action("Show &everything", self.clear_filters, "Escape")
        self.up_action = action("&Up one folder (treemap)", self.treemap.go_up, "Backspace")
        self.undo_action = action("&Undo last cleanup", self.undo_last_cleanup,
                                  QKeySequence.StandardKey.Undo)
        self.history_action = action("Cleanup &history…", self.show_history)
        self.settings_action = action("&Settings…", lambda: self.tiering.show_settings())
        self.apparent_action = QAction("&Apparent sizes", self, checkable=True)
        self.apparent_action.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.apparent_action.toggled.connect(self.set_apparent)
        self.addAction(self.apparent_action)

    def _make_toolbar(self) -> None:
        bar = QToolBar("Main")
        bar.setObjectName("main-toolbar")
        bar.setMovable(False)
        bar.addAction(self.open_action)
        bar.addAction(self.rescan_action)
        bar.addSeparator()
        self.apparent_box = QCheckBox("Apparent sizes")
        self.apparent_box.setToolTip("On disk: space the files really take (default).\n"
                                     "Apparent: the sizes files report (sparse files look big).")
        self.apparent_box.toggled.connect(self.apparent_action.setChecked)
        bar.addWidget(self.apparent_box)
        bar.addSeparator()
        bar.addWidget(self.search)
        bar.addWidget(self.min_size)
        self.addToolBar(bar)
        self.toolbar = bar

    def _make_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.open_scan_action)
        file_menu.addMenu(self.recent.menu)
        file_menu.addAction(self.demo_action)
        file_menu.addAction(self.rescan_action)
        file_menu.addAction(self.cancel_action)
        file_menu.addAction(self.save_scan_action)
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.history_action)
        edit_menu.addAction(self.settings_action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.copy_path_action)
        edit_menu.addAction(self.open_fm_action)
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.apparent_action)
        view_menu.addAction(self.clear_filter_action)
        view_menu.addAction(self.up_action)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction("&About mlspace", self._about)

    # ------------------------------------------------------------------ scanning
    def choose_folder(self) -> None:
        start = next(iter(self.recent.paths()), os.path.expanduser("~"))
        path = QFileDialog.getExistingDirectory(self, "Open a folder to scan", start)
        if path:
            self.open_paths([path])

    def open_demo(self) -> None:
        from mlspace.demo import fresh_demo

        path = str(fresh_demo())
        self.demo_paths.add(path)
        self.open_paths([path])

    def open_paths(self, paths: list[str], keep_view: bool = False) -> None:
        """Scan folders, or open the saved scan named (``mlspace FILE``, a drop). ``keep_view``
        (a rescan of what is shown) keeps the views on screen while it runs, and the filter,
        selection and expanded folders after."""
        if self.cleaner.moving:
            self.status.setText("Wait for the cleanup to finish, then scan.")
            return
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            QMessageBox.warning(self, "mlspace", "Not found:\n" + "\n".join(missing))
            paths = [p for p in paths if p not in missing]
        if not paths:
            return
        if any(map(saved_scan_format, paths)):
            if len(paths) > 1:
                QMessageBox.warning(self, "mlspace", "A saved scan is opened on its own: open "
                                    "one saved scan, or the folders to scan.")
            else:
                self.open_saved(paths[0])
            return
        paths = [os.path.abspath(p) for p in paths]
        if not all(p in self.demo_paths for p in paths):
            self.recent.remember(paths)
        self._scan_started = time.monotonic()
        self._keep_view = keep_view and self.ws.loaded and paths == self.scanner.paths and \
            self.stack.currentIndex() == VIEWS
        if self._keep_view:
            self.status.setText("Rescanning…")
            chosen = self.growth.chosen  # F5 keeps comparing with it: it must stay kept
            self.scanner.start(paths, LIVE_SCAN,
                               frozenset({chosen.id}) if chosen is not None else frozenset())
            self._update_scan_actions()
            return
        names = ", ".join(html.escape(os.path.basename(p) or p) for p in paths)
        self.scanning.start(f"<h2>Scanning {names}…</h2>", "Starting…",
                            apparent=self.ws.apparent or any(map(is_demo, paths)))
        self.stack.setCurrentIndex(SCANNING)
        self.scanner.start(paths, LIVE_SCAN)
        self._update_scan_actions()

    def open_saved(self, path: str) -> None:
        """Show a saved scan instead of scanning: read in the background as a scan runs, then
        shown with whose it is and how old (see mlspace.ui.saved_scans)."""
        if self.cleaner.moving or self.scanner.running:
            self.status.setText(f"Wait for the {'cleanup' if self.cleaner.moving else 'scan'} "
                                "to finish, then open the saved scan.")
            return
        self._keep_view = False
        self.scanning.start(f"<h2>Opening {html.escape(os.path.basename(path))}…</h2>",
                            "Reading the saved scan…", path, apparent=self.ws.apparent)
        self.stack.setCurrentIndex(SCANNING)
        self.scanner.open(os.path.abspath(path))
        self._update_scan_actions()

    def choose_saved_scan(self) -> None:
        """File → Open scan…: whatever is chosen is read as a saved scan (a file that is
        not one gets a message)."""
        path = ask_scan_to_open(self, self.source)
        if path:
            self.open_saved(path)

    def _update_scan_actions(self) -> None:
        """Rescan only when something was scanned and no scan runs; Cancel only while one
        runs (with nothing open, neither means anything); Save scan once one is shown."""
        running = self.scanner.running
        self.rescan_action.setEnabled(bool(self.scanner.paths) and not running)
        self.cancel_action.setEnabled(running)
        self.save_scan_action.setEnabled(self.ws.loaded)

    def rescan(self) -> None:
        """F5: read the disk again, keeping what the user looks at."""
        if self.scanner.paths and not self.scanner.running:
            self.open_paths(self.scanner.paths, keep_view=True)

    def cancel_scan(self) -> None:
        if self.scanner.running:
            self.scanning.text.setText("Cancelling…")
            self.scanner.cancel()

    def _on_progress(self, p: ScanProgress) -> None:
        counts = self.scanning.show_progress(p, growing=not self._keep_view)
        if self._keep_view:
            self.status.setText(f"Rescanning… {counts}")

    def _on_finished(self, inventory: object, ages: object, plan: object = None,
                     source: ScanSource | None = None) -> None:
        snap = inventory.snapshot  # type: ignore[attr-defined]
        self.source = source or ScanSource.made_now(snap)
        demo = any(is_demo(r) for r in snap.roots)
        keep, self._keep_view = self._keep_view, False
        old = self.ws.inventory.snapshot if keep and self.ws.inventory else None
        expanded = {old.path(e) for e in self._expanded} if old is not None else set()
        self._expanded.clear()
        self.ws.load(inventory, ages, plan,  # type: ignore[arg-type]
                     apparent=None if keep else True if demo else None, keep_view=keep,
                     cleanup_off=self.source.cleanup_off(),
                     names_here=self.source.owners_named_here)
        self.journal.scan_shown(self.source.journal)
        self.apparent_box.setChecked(self.ws.apparent)
        self._update_scan_actions()
        self._show_totals(demo)
        if keep:
            self._expanded = {e for e in map(snap.find, expanded) if e >= 0}
            self._expand_again()
            self._sync_tree_selection(self.ws.selected)
        else:
            if len(snap.root_entries) == 1:
                self.tree.expand(self.model.index(0, 0))
            self._keep_growing_selection(snap)
        self.filters.show_filter()
        self.setWindowTitle(self.source.title())  # Qt adds " — mlspace", the display name
        # The views redraw on turns of their own (mlspace.ui.redraws): the page shows once
        # they have, in one paint, and the scan is shown then.
        after_cleanup, self._after_rescan = self._after_rescan, ""
        self.ws.redraws.later(partial(self._result_shown, after_cleanup))

    def _result_shown(self, after_cleanup: str) -> None:
        """The views show the new scan: bring their page up (unless another scan started
        meanwhile) and say so; ``after_cleanup``: the message of the cleanup that asked for
        this rescan, which is then done too."""
        if self.stack.currentIndex() == SCANNING and not self.scanner.running:
            self.stack.setCurrentIndex(VIEWS)
        self.scan_finished.emit()
        if after_cleanup:
            self.status.setText(after_cleanup)
            self.cleanup_finished.emit()

    def _keep_growing_selection(self, snap: object) -> None:
        """What the user picked in the growing list while the scan ran stays selected."""
        path = self.scanning.growing.selected_path()
        entry = snap.find(path) if path else -1  # type: ignore[attr-defined]
        if entry >= 0:
            self.ws.select(entry)
            self._sync_tree_selection(entry)

    def _on_failed(self, message: str) -> None:
        self._keep_view = False
        self._update_scan_actions()
        self.stack.setCurrentIndex(VIEWS if self.ws.loaded else WELCOME)
        if self._after_rescan:  # the cleanup is done; only the rescan after it failed
            self._after_rescan = ""
            self.cleanup_finished.emit()
        QMessageBox.critical(self, "mlspace", f"The scan failed:\n\n{message}")

    def _on_refused(self, path: str, reason: str) -> None:
        """A saved scan that could not be opened: back to what was shown, and why."""
        self._update_scan_actions()
        self.stack.setCurrentIndex(VIEWS if self.ws.loaded else WELCOME)
        if not reason:
            self.status.setText(f"Opening {path} was cancelled.")
            return
        self.status.setText(f"Cannot open {path}: {reason}")
        QMessageBox.warning(self, "mlspace", f"Cannot open {path}:\n\n{reason}")

    def _show_totals(self, demo: bool) -> None:
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        t = snap.grand_totals()
        parts = [f"{fmt.size(t.disk_usage)} on disk", f"{fmt.size(t.apparent_size)} apparent",
                 fmt.plural(t.files, 'file'), f"scanned in {fmt.duration(snap.duration)}"]
        if snap.cancelled:
            parts.insert(0, "Scan cancelled: partial results")
        if self.source is not None and self.source.file:
            title = self.source.title()
            parts.insert(0, title[:1].upper() + title[1:])
        if self.ws.read_only_reason:
            parts.append(f"No cleanups from this scan: {self.ws.read_only_reason}")
        if self.source is not None and self.source.note:
            parts.append(self.source.note)
        if snap.errors:
            parts.append(f"{len(snap.errors)} unreadable")
            self.status.setToolTip("\n".join(f"{e.path}: {e.message}" for e in snap.errors[:30]))
        if demo:
            parts.append("Demo: big files are sparse, so sizes are shown as apparent sizes")
        self.status.setText(" · ".join(parts))

    # ------------------------------------------------------------------ views
    def set_apparent(self, apparent: bool) -> None:
        self.apparent_box.setChecked(apparent)
        self.ws.set_apparent(apparent)
        self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, SIZE, SIZE)

    def clear_filters(self) -> None:
        self.filters.clear()

    def _expand_again(self) -> None:
        """Expand every folder the user expanded that is shown again, and mark the
        selection's row again (Qt lets go of a row while a filter hides it)."""
        for entry in list(self._expanded):
            index = self.model.index_of(entry)
            if index.isValid() and not self.tree.isExpanded(index):
                self.tree.expand(index)
        selected = self.ws.selected
        if selected >= 0 and self.model.entry(self.tree.currentIndex()) != selected:
            index = self.model.index_of(selected)
            if index.isValid():
                self.tree.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)

    def _sync_tree_selection(self, entry: int) -> None:
        index = self.model.index_of(entry)
        if index.isValid() and self.tree.currentIndex() != index:
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)

    def _tree_double_clicked(self, index: object) -> None:
        entry = self.model.entry(index)  # type: ignore[arg-type]
        if entry >= 0 and self.ws.inventory and self.ws.inventory.snapshot.row_of(entry) >= 0:
            self.ws.set_focus(entry)

    def _tree_menu(self, pos: object) -> None:
        index = self.tree.indexAt(pos)  # type: ignore[arg-type]
        if not index.isValid():
            return
        self.ws.select(self.model.entry(index))
        self.menus.popup(self.tree.viewport().mapToGlobal(pos))  # type: ignore[arg-type]

    def confirm_and_clean(self, suggestions: list[Suggestion], archive: bool = False,
                          replanned: Replanned | None = None) -> None:
        """The one gate of every cleanup. ``archive``: to the cold tier instead of the trash
        (archive suggestions always go there). A plan from an opened saved scan is planned
        again from the disk first (``replanned``: what that left, mlspace.ui.fresh_plan)."""
        if self.ws.inventory is None:
            return
        if self.cleaner.running or self.read_again.running:
            self.status.setText("Wait for the running cleanup to finish (or cancel its copy).")
            return
        if self.scanner.running:
            self.status.setText("Wait for the scan to finish, then clean up.")
            return
        refused = self.ws.cleanup_refused(p for s in suggestions for p in s.paths)
        if refused:  # the menus and the panel say so already: this is the one gate
            self.status.setText(f"Nothing was moved: {refused}.")
            return
        if replanned is None and self.read_again.needed():
            self.read_again.start(suggestions, archive)
            return
        note = replanned.note() if replanned is not None else ""
        if archive or self.tiering.archives(suggestions):
            self.tiering.confirm_and_archive(suggestions, archive, note)
            return
        dialog = ConfirmCleanup(suggestions, self.ws.apparent, self, note=note)
        self.last_dialog = dialog
        if dialog.exec() != ConfirmCleanup.DialogCode.Accepted:
            if replanned is not None:  # the status said the records were being read
                self.status.setText("Cancelled: nothing was moved.")
            return
        self._cleaning = list(suggestions)
        self._stayed = replanned.stays if replanned is not None else ()
        self.cleaner.clean(suggestions, list(self.ws.inventory.snapshot.roots),
                           free_now=dialog.free_now.isChecked())

    def _on_cleaned(self, result: object) -> None:
        """Every view follows from the workspace: tell it what went. A cleanup that wrote
        archives, or took what the classifier read, needs a rescan first."""
        assert isinstance(result, CleanupResult)
        done = [o.path for o in result.outcomes if o.done]
        skipped = result.skipped
        archived = {i.path for s in self._cleaning if s.archive for i in s.items}
        run = own_run(result, self._cleaning)
        self._cleaning = []
        self.journal.own(run)
        exact = self.ws.mark_removed(done)
        text = cleanup_words(result, run.size_of(run.out, self.ws.apparent), named(done))
        stayed, self._stayed = self._stayed, ()
        if stayed:
            one = len(stayed) == 1
            text += (f" {named([k.path for k in stayed])}, which the saved scan suggested, "
                     f"stayed: the records on disk do not suggest {'it' if one else 'them'}.")
        if skipped:
            reasons = {o.reason for o in skipped}
            why = f": {reasons.pop()}" if len(reasons) == 1 else " (hover for why)"
            text += f" {len(skipped)} skipped{why}."
            self.status.setToolTip("\n".join(f"{o.path}: {o.reason}" for o in skipped))
        if result.stopped:
            QMessageBox.warning(self, "mlspace", f"The cleanup stopped early: "
                                f"{result.stopped}.\n\nWhat moved can be put back with "
                                "Ctrl+Z.")
        self._finish(text, rescan=not exact or bool(archived & set(done)))

    def _finish(self, message: str, rescan: bool) -> None:
        """Show a cleanup's or undo's result; when the scan cannot express it, rescan
        (keeping the view) and say so once the views show what the disk holds."""
        self.status.setText(message)
        if rescan and self.scanner.paths:
            self._after_rescan = message
            self.open_paths(self.scanner.paths, keep_view=True)
            if self.scanner.running:
                return
            self._after_rescan = ""
        self.ws.redraws.later(self.cleanup_finished.emit)  # once the views show it

    def choose_scan_file(self) -> None:
        """File → Save scan…: the scan shown as it was made, as mlspace's index or ncdu's
        export (the extension chooses), written in the background."""
        if self.ws.inventory is None or self.source is None:
            self.status.setText("Scan a folder or open a saved scan first, then save it.")
            return
        path = ask_where_to_save(self, self.source)
        if path:
            problem = self.saver.save(path, self.ws.inventory, self.source.info)
            self.status.setText(f"Cannot save the scan: {problem}" if problem else
                                f"Saving the scan to {path}…")

    def _on_saved(self, path: str, problem: str) -> None:
        if problem:
            self.status.setText(f"Could not save the scan: {problem}")
            return
        moved = " (as scanned: what went to the trash since is in it; F5 first to save what " \
            "is there now)" if self.ws.removed.any() else ""
        self.status.setText(f"Scan saved to {path}{moved}")

    def undo_last_cleanup(self) -> None:
        """Ctrl+Z: undo the run the Edit menu names, the newest the window has shown (a run
        made outside the window is shown first, mlspace.ui.journal_follow)."""
        if self.scanner.running:
            self.status.setText("Wait for the scan to finish, then undo.")
            return
        if self.cleaner.running:
            self.status.setText("Wait for the running cleanup to finish, then undo.")
            return
        target = self.journal.undo_target()
        if target is None:
            self.status.setText("Nothing to undo.")
            return
        self.cleaner.undo(target.id)

    def show_history(self) -> None:
        from mlspace.ui.cleanup_dialogs import CleanupHistory

        self.history_dialog = CleanupHistory(self.cleaner.undo, self,
                                             free=self.freeing.free_cleanup,
                                             apparent=self.ws.apparent)
        self.history_dialog.open()

    def _on_undone(self, cleanup_ids: str, results: object) -> None:
        """What came back, by name; what could not, with why on hover."""
        back = [r.path for r in results if r.restored_to == r.path]  # type: ignore[attr-defined]
        beside = [r for r in results  # type: ignore[attr-defined]
                  if r.restored_to is not None and r.restored_to != r.path]
        failed = [r for r in results if r.restored_to is None]  # type: ignore[attr-defined]
        self.journal.own_undo(cleanup_ids.split(", "), {*back, *(r.path for r in beside)})
        exact = self.ws.mark_removed(back, removed=False)
        restored = [*back, *(r.restored_to for r in beside)]
        text = f"Put back {fmt.plural(len(restored), 'item')} from the trash" + \
            (f": {named(restored)}." if restored else ".")
        tips = [f"back: {p}" for p in back] + \
            [f"back beside: {r.path} as {r.restored_to}" for r in beside]
        if failed:
            text += f" {len(failed)} could not be restored (hover for why)."
            tips += [f"{r.path}: {r.reason}" for r in failed]
        self.status.setToolTip("\n".join(tips))
        self._finish(text, rescan=not exact or bool(beside))

    def copy_selected_path(self) -> None:
        if self.ws.inventory is not None and self.ws.selected >= 0:
            QGuiApplication.clipboard().setText(self.model.path(self.ws.selected))

    def open_selected_in_file_manager(self) -> None:
        if self.ws.inventory is not None and self.ws.selected >= 0:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.model.folder_of(self.ws.selected)))

    def _about(self) -> None:
        QMessageBox.about(self, "About mlspace", about_text())

    # ------------------------------------------------------------------ recent, settings
    def _restore_settings(self) -> None:
        store = settings()
        geometry = store.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 820)
        for key, splitter in (("window/splitter", self.splitter),
                              ("window/right", self.right_splitter)):
            state = store.value(key)
            if state is not None:
                splitter.restoreState(state)
        self.apparent_action.setChecked(store.value("view/apparent", False, type=bool))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.ws.redraws.drop()  # nothing may start a thread once those below have ended
        self.journal.stop()
        self.scanner.stop()
        self.cleaner.cancel()  # a copy to or from the cold tier is rolled back at once
        self.cleaner.wait(30_000)  # let a cleanup finish its current item and journal line
        self.saver.wait()  # a saved scan is moved in place whole, or not at all
        self.growth.wait()  # a thread still reading the history would take the app down
        self.read_again.wait()
        self.reports.wait()
        self.disk_bar.wait()
        store = settings()
        store.setValue("window/geometry", self.saveGeometry())
        store.setValue("window/splitter", self.splitter.saveState())
        store.setValue("window/right", self.right_splitter.saveState())
        if not (self.ws.loaded and self.demo_paths & set(self.scanner.paths)):
            store.setValue("view/apparent", self.ws.apparent)
        super().closeEvent(event)

    # ------------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.open_paths(paths)
