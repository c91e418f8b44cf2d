"""The main window: welcome page, scanning page, and the workspace views side by side."""

from __future__ import annotations

import html
import os
from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from mlspace.advise import Suggestion
from mlspace.demo import is_demo
from mlspace.index.sniff import saved_scan_format
from mlspace.scan import ScanOptions, ScanProgress
from mlspace.ui.archive_actions import ArchiveActions
from mlspace.ui.cleanup_controller import CleanupController
from mlspace.ui.cleanup_gate import CleanupGate
from mlspace.ui.free_space import FreeSpaceActions
from mlspace.ui.fresh_plan import Replanned
from mlspace.ui.journal_follow import JournalFollower
from mlspace.ui.read_again import ReadAgain
from mlspace.ui.recent_folders import RecentFolders
from mlspace.ui.report_export import ReportExport
from mlspace.ui.save_scan import SaveScan
from mlspace.ui.saved_scans import (
    ScanSource,
    ask_scan_to_open,
)
from mlspace.ui.scan_controller import ScanController
from mlspace.ui.selection_menus import SelectionMenus
from mlspace.ui.start_pages import ScanningPage, WelcomePage
from mlspace.ui.status_line import StatusLine
from mlspace.ui.status_words import scan_line
from mlspace.ui.tree_model import SIZE
from mlspace.ui.views_page import ViewsPage
from mlspace.ui.window_commands import lay_out_commands, make_actions
from mlspace.ui.window_settings import restore_layout, save_layout, settings
from mlspace.ui.workspace import Workspace

WELCOME, SCANNING, VIEWS = range(3)
#: The app's scans report the roots' top-level entries as they grow (the scanning page).
LIVE_SCAN = ScanOptions(live_totals=True, behind_window=True)


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
        self.saving = SaveScan(self)  # File → Save scan…, written in the background
        self.saver = self.saving.saver
        self.menus = SelectionMenus(self)  # right-click on the selection or a category bar
        self.reports = ReportExport(self)  # built and written off the GUI thread
        self.source: ScanSource | None = None  # where the scan shown comes from
        self.demo_paths: set[str] = set()
        self._keep_view = False  # the scan running is a rescan that keeps the view
        self.read_again = ReadAgain(self)  # a saved scan's plan, planned from the disk
        self.gate = CleanupGate(self)  # every cleanup asked, and what it did
        self._after_rescan = ""  # a cleanup's message, shown when its rescan is done

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
        make_actions(self)  # the menus' and shortcuts' commands (mlspace.ui.window_commands)
        self.journal = JournalFollower(self)  # what Ctrl+Z undoes; runs made outside
        self._update_scan_actions()
        lay_out_commands(self)
        self.status = StatusLine()
        self.statusBar().addWidget(self.status, 1)
        self.disk_bar.told.connect(self.status.setText)  # Guard this disk… says what it did
        self.freeing = FreeSpaceActions(self)  # Free … now…, and the trash's retention

        self.scanner.progress.connect(self._on_progress)
        self.scanner.finished.connect(self._on_finished)
        self.scanner.failed.connect(self._on_failed)
        self.scanner.refused.connect(self._on_refused)
        self.cleaner.failed.connect(self._on_failed)
        self.cleaner.failed.connect(lambda _: self.journal.resume())
        self.cleaner.progress.connect(
            lambda done, total, path: self.status.setText(
                f"Moving to the trash: {done}/{total} {os.path.basename(path)}"))
        self.apparent_action.setChecked(restore_layout(self, self._splitters()))
        self.recent.refresh()
        self.tiering.start(settings())
        # A broken config.toml may have meant another retention: nothing is freed then.
        self.freeing.start(0 if self.tiering.config_problem else self.ws.user.trash_days)
        self.journal.start()

    # ------------------------------------------------------------------ pages
    def _views_page(self) -> QWidget:
        page = ViewsPage(self.ws)
        self.tree, self.model, self.treemap = page.tree, page.tree.tree_model, page.treemap
        self.runs, self.suggestions, self.growth, self.tabs = \
            page.runs, page.suggestions, page.growth, page.tabs
        self.category_chart, self.age_chart, self.owner_chart, self.details = \
            page.category_chart, page.age_chart, page.owner_chart, page.details
        self.filters, self.search, self.min_size, self.filter_label = \
            page.filters, page.filters.search, page.filters.min_size, page.filters.label
        self.splitter, self.right_splitter, self.disk_bar = \
            page.splitter, page.right_splitter, page.disk_bar
        for view in (self.tree, self.treemap.canvas, self.runs):
            view.context_menu_requested.connect(self.menus.popup)
        self.category_chart.category_menu_requested.connect(self.menus.popup_for_category)
        self.suggestions.clean_requested.connect(self.confirm_and_clean)
        self.suggestions.export_requested.connect(self.reports.choose_file)
        return page

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
        expanded = self.tree.expanded_paths()
        self.ws.load(inventory, ages, plan,  # type: ignore[arg-type]
                     apparent=None if keep else True if demo else None, keep_view=keep,
                     cleanup_off=self.source.cleanup_off(),
                     names_here=self.source.owners_named_here)
        self.journal.scan_shown(self.source.journal)
        self.apparent_box.setChecked(self.ws.apparent)
        self._update_scan_actions()
        self._show_totals(demo)
        self.tree.shown(snap, expanded if keep else None)
        if not keep:
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
            self.tree.show_selected(entry)

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
        source = self.source
        text, tip = scan_line(self.ws.inventory.snapshot,  # type: ignore[union-attr]
                              source.title() if source is not None and source.file else "",
                              self.ws.read_only_reason,
                              source.note if source is not None else "", demo)
        if tip:
            self.status.setToolTip(tip)
        self.status.setText(text)

    # ------------------------------------------------------------------ views
    def set_apparent(self, apparent: bool) -> None:
        self.apparent_box.setChecked(apparent)
        self.ws.set_apparent(apparent)
        self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, SIZE, SIZE)

    def clear_filters(self) -> None:
        self.filters.clear()

    def confirm_and_clean(self, suggestions: list[Suggestion], archive: bool = False,
                          replanned: Replanned | None = None) -> None:
        """The one gate of every cleanup (mlspace.ui.cleanup_gate)."""
        self.gate.confirm_and_clean(suggestions, archive, replanned)

    def finish_job(self, message: str, rescan: bool) -> None:
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

    def undo_last_cleanup(self) -> None:
        self.gate.undo_last()

    def show_history(self) -> None:
        from mlspace.ui.cleanup_dialogs import CleanupHistory

        self.history_dialog = CleanupHistory(self.cleaner.undo, self,
                                             free=self.freeing.free_cleanup,
                                             apparent=self.ws.apparent)
        self.history_dialog.open()

    # ------------------------------------------------------------------ recent, settings
    def _splitters(self) -> dict[str, QSplitter]:
        return {"splitter": self.splitter, "right": self.right_splitter}

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
        demo = self.ws.loaded and bool(self.demo_paths & set(self.scanner.paths))
        save_layout(self, self._splitters(), None if demo else self.ws.apparent)
        super().closeEvent(event)

    # ------------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.open_paths(paths)
