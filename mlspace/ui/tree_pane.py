"""The window's folder tree: the view over the tree model, which follows the workspace's
selection, keeps the folders the user expanded expanded, and asks for a menu on right-click.

Qt forgets a folder's expansion when a filter or a cleanup hides its row, and a rescan
makes every row new: the pane keeps its own list of expanded folders (as entries, or as
paths across a rescan) and expands again whatever comes back.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QTreeView

from mlspace.scan import Snapshot
from mlspace.ui.columns import FitColumns
from mlspace.ui.share_delegate import ShareBarDelegate
from mlspace.ui.tree_model import CHANGE, NAME, OPTIONAL_COLUMNS, SHARE, SIZE, TreeModel
from mlspace.ui.workspace import Workspace


class TreePane(QTreeView):
    context_menu_requested = Signal(QPoint)  # a row right-clicked (and selected), global

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.ws = ws
        self.tree_model = TreeModel(ws)
        self.setModel(self.tree_model)
        self.setSortingEnabled(True)
        self.sortByColumn(SIZE, Qt.SortOrder.DescendingOrder)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.setItemDelegateForColumn(SHARE, ShareBarDelegate(self))
        self.columns = FitColumns(self, NAME, optional=OPTIONAL_COLUMNS, last_resort=(CHANGE,))
        self.header().moveSection(CHANGE, SHARE)  # "Change since …" beside the size
        self.selectionModel().currentChanged.connect(
            lambda current, _previous: ws.select(self.tree_model.entry(current)))
        self.doubleClicked.connect(self._double_clicked)
        self.expanded_entries: set[int] = set()  # the folders the user expanded
        self.expanded.connect(lambda index: self.expanded_entries.add(self.tree_model.entry(index)))
        self.collapsed.connect(
            lambda index: self.expanded_entries.discard(self.tree_model.entry(index)))
        self.tree_model.layoutChanged.connect(self.expand_again)
        ws.selection_changed.connect(self.show_selected)

    def expanded_paths(self) -> set[str]:
        """The expanded folders by path, kept across a rescan (before it is loaded)."""
        snap = self.ws.inventory.snapshot if self.ws.inventory is not None else None
        paths = {snap.path(e) for e in self.expanded_entries} if snap is not None else set()
        self.expanded_entries.clear()
        return paths

    def shown(self, snap: Snapshot, expanded: set[str] | None) -> None:
        """A scan is loaded: expand again what was expanded (``expanded``: the paths, on a
        rescan that keeps the view), or the one root of a new scan."""
        if expanded is not None:
            self.expanded_entries = {e for e in map(snap.find, expanded) if e >= 0}
            self.expand_again()
            self.show_selected(self.ws.selected)
        elif len(snap.root_entries) == 1:
            self.expand(self.tree_model.index(0, 0))

    def expand_again(self) -> None:
        """Expand every folder the user expanded that is shown again, and mark the
        selection's row again (Qt lets go of a row while a filter hides it)."""
        for entry in list(self.expanded_entries):
            index = self.tree_model.index_of(entry)
            if index.isValid() and not self.isExpanded(index):
                self.expand(index)
        selected = self.ws.selected
        if selected >= 0 and self.tree_model.entry(self.currentIndex()) != selected:
            index = self.tree_model.index_of(selected)
            if index.isValid():
                self.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)

    def show_selected(self, entry: int) -> None:
        index = self.tree_model.index_of(entry)
        if index.isValid() and self.currentIndex() != index:
            self.setCurrentIndex(index)
            self.scrollTo(index)

    def copy_selected_path(self) -> None:
        if self.ws.inventory is not None and self.ws.selected >= 0:
            QGuiApplication.clipboard().setText(self.tree_model.path(self.ws.selected))

    def open_selected_in_file_manager(self) -> None:
        if self.ws.inventory is not None and self.ws.selected >= 0:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.tree_model.folder_of(self.ws.selected)))

    def _double_clicked(self, index: QModelIndex) -> None:
        entry = self.tree_model.entry(index)
        if entry >= 0 and self.ws.inventory and self.ws.inventory.snapshot.row_of(entry) >= 0:
            self.ws.set_focus(entry)

    def _menu(self, pos: QPoint) -> None:
        index = self.indexAt(pos)
        if not index.isValid():
            return
        self.ws.select(self.tree_model.entry(index))
        self.context_menu_requested.emit(self.viewport().mapToGlobal(pos))
