"""What the main window's helpers may reach of it, as a Protocol they depend on instead.

The helpers (archiving, freeing space, following the journal, reading a saved scan's plan
again, exporting a report, the right-click menus) each own one job the window hands them,
and call back into a few of the window's parts: its status line, its one cleanup gate
(``confirm_and_clean``), its ending of every job (``finish_job``: the message, and a rescan
when needed). Naming those parts here, below the window, keeps the arrows one way: the
window imports its helpers; the helpers import this, never the window. The window is also
their Qt parent (a QMainWindow), which is why ``statusBar`` is part of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDialog, QMenu, QStatusBar, QTabWidget

    from mlspace.advise import Suggestion
    from mlspace.ui.cleanup_controller import CleanupController
    from mlspace.ui.disk_bar import DiskBar
    from mlspace.ui.fresh_plan import Replanned
    from mlspace.ui.journal_watch import Run
    from mlspace.ui.saved_scans import ScanSource
    from mlspace.ui.scan_controller import ScanController
    from mlspace.ui.status_line import StatusLine
    from mlspace.ui.treemap_view import TreemapView
    from mlspace.ui.workspace import Workspace


class OwnRuns(Protocol):
    """The journal follower (mlspace.ui.journal_follow): the window's own runs and undos,
    and what Ctrl+Z undoes."""

    def own(self, run: Run) -> None: ...

    def own_undo(self, ids: list[str], put_back: set[str]) -> None: ...

    def undo_target(self) -> Run | None: ...


class TrashSelection(Protocol):
    """The right-click menus, as the archive helper's *Move to the cold tier…* uses them."""

    def trash_selected(self, archive: bool = False) -> None: ...


class ArchiveMenu(Protocol):
    """The cold tier in the window (mlspace.ui.archive_actions): its entries of a
    right-click menu, and the cleanups that go to it."""

    def add_to_menu(self, menu: QMenu, entry: int, refused: str) -> None: ...

    def archives(self, suggestions: list[Suggestion]) -> bool: ...

    def confirm_and_archive(self, suggestions: list[Suggestion], instead: bool,
                            note: str = "") -> None: ...


class ReadAgain(Protocol):
    """A saved scan's plan, planned again from the disk first (mlspace.ui.read_again)."""

    @property
    def running(self) -> bool: ...

    def needed(self) -> bool: ...

    def start(self, suggestions: list[Suggestion], archive: bool) -> None: ...


class WindowParts(Protocol):
    """The parts of the main window its helpers use (mlspace.ui.main_window.MainWindow)."""

    ws: Workspace
    scanner: ScanController
    cleaner: CleanupController
    status: StatusLine
    source: ScanSource | None
    disk_bar: DiskBar
    journal: OwnRuns
    menus: TrashSelection
    tiering: ArchiveMenu
    read_again: ReadAgain
    tabs: QTabWidget
    treemap: TreemapView
    undo_action: QAction
    copy_path_action: QAction
    open_fm_action: QAction
    scan_finished: SignalInstance
    freed_finished: SignalInstance
    #: The dialogs a helper opened last (kept so they stay alive, and for the tests).
    last_dialog: QDialog
    settings_dialog: QDialog
    history_dialog: QDialog

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name

    def confirm_and_clean(self, suggestions: list[Suggestion], archive: bool = False,
                          replanned: Replanned | None = None) -> None: ...

    def finish_job(self, message: str, rescan: bool) -> None: ...

    def show_history(self) -> None: ...
