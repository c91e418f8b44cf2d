"""The folder tree as a Qt item model over the inventory: lazy, sorted, filtered.

A node is an entry index of the snapshot (stored as the index's internal id), so the model
holds no object per file. A folder's visible children are computed when the view first asks
for them, sorted by the current size, and remembered until the size mode, the filter, what
is on disk (a cleanup, an undo) or the sort order changes. Every number in a cell comes from
the workspace, so the tree shows what the charts, the runs and the details show.
"""

from __future__ import annotations

import os
import time

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFont, QGuiApplication, QPalette

from mlspace import fmt
from mlspace.classify import Category
from mlspace.index.growth import short_date
from mlspace.paths import natural_key
from mlspace.scan import kind_name
from mlspace.ui.colors import category_color, category_text_color, growth_color
from mlspace.ui.workspace import Workspace

COLUMNS = ("Name", "Size", "% of parent", "Category", "Files", "Modified", "On disk", "Apparent",
           "Change")
NAME, SIZE, SHARE, CATEGORY, FILES, MODIFIED, ON_DISK, APPARENT, CHANGE = range(len(COLUMNS))
# CHANGE is the change since the compared saved scan: the column has no header, and so is
# not shown (mlspace.ui.columns), while no saved scan is compared (the Growth tab picks one).
#: The columns a narrow tree hides (mlspace.ui.columns), the first to go first: the two
#: sizes, one of which the Size column already shows, then the file count, the age, the
#: category, which the colour beside each name still tells, and last the share of the
#: parent (which goes only to make room for the change since a compared scan).
OPTIONAL_COLUMNS = (APPARENT, ON_DISK, FILES, MODIFIED, CATEGORY, SHARE)
#: Role giving the raw number behind a cell (for sorting, the share bar and tests).
VALUE_ROLE = Qt.ItemDataRole.UserRole + 1
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 2
_Index = QModelIndex | QPersistentModelIndex
_TOP = QModelIndex()  # the invisible root, as Qt passes it


class TreeModel(QAbstractItemModel):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self._children: dict[int, list[int]] = {}
        self._row_in_parent: dict[int, int] = {}
        self._sort_column = SIZE
        self._descending = True
        self._archived_font = QFont()  # the link or stub standing for an archived item
        self._archived_font.setItalic(True)
        workspace.inventory_changed.connect(self.refresh)
        workspace.view_changed.connect(self.relayout)
        workspace.compare_changed.connect(self._compared)

    # ---------------------------------------------------------------- structure
    def refresh(self) -> None:
        self.beginResetModel()
        self._children.clear()
        self._row_in_parent.clear()
        self.endResetModel()

    def _kids(self, entry: int) -> list[int]:
        """Visible children of a folder (-1: the scan roots), sorted."""
        kids = self._children.get(entry)
        if kids is None:
            kids = self._compute_children(entry)
            self._children[entry] = kids
            for i, kid in enumerate(kids):
                self._row_in_parent[kid] = i
        return kids

    def _compute_children(self, entry: int) -> list[int]:
        inv = self.ws.inventory
        if inv is None:
            return []
        kids, sizes = self.ws.visible_children(entry)
        if self._sort_column == SIZE or (self._sort_column == CHANGE and
                                         self.ws.compared is None):
            order = np.argsort(sizes, kind="stable")
            return kids[order[::-1] if self._descending else order].tolist()
        return sorted(kids.tolist(), key=self._sort_key, reverse=self._descending)

    def _sort_key(self, entry: int) -> object:
        column = self._sort_column
        if column == NAME:  # checkpoint-2000 before checkpoint-10000, as a person counts
            name = self.ws.inventory.snapshot.name(entry)  # type: ignore[union-attr]
            return natural_key(name.casefold())
        value = self._value(entry, column)
        return value if value is not None else -1

    def entry(self, index: _Index) -> int:
        return int(index.internalId()) if index.isValid() else -1

    def index_of(self, entry: int) -> QModelIndex:
        """The model index of an entry, making its ancestors' child lists as needed."""
        inv = self.ws.inventory
        if inv is None or entry < 0:
            return QModelIndex()
        parent = inv.snapshot.parent(entry)
        if parent >= 0:
            self.index_of(parent)
        kids = self._kids(parent)
        row = self._row_in_parent.get(entry)
        if row is None or row >= len(kids) or kids[row] != entry:
            return QModelIndex()
        return self.createIndex(row, 0, entry)

    def index(self, row: int, column: int, parent: _Index = _TOP) -> QModelIndex:
        kids = self._kids(self.entry(parent))
        if 0 <= row < len(kids) and 0 <= column < len(COLUMNS):
            return self.createIndex(row, column, kids[row])
        return QModelIndex()

    def parent(self, index: _Index = _TOP) -> QModelIndex:  # type: ignore[override]
        entry = self.entry(index)
        inv = self.ws.inventory
        if entry < 0 or inv is None:
            return QModelIndex()
        parent = inv.snapshot.parent(entry)
        if parent < 0:
            return QModelIndex()
        grand = inv.snapshot.parent(parent)
        self._kids(grand)
        row = self._row_in_parent.get(parent, 0)
        return self.createIndex(row, 0, parent)

    def rowCount(self, parent: _Index = _TOP) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._kids(self.entry(parent)))

    def columnCount(self, parent: _Index = _TOP) -> int:
        return len(COLUMNS)

    def hasChildren(self, parent: _Index = _TOP) -> bool:
        entry = self.entry(parent)
        inv = self.ws.inventory
        if entry < 0:
            return inv is not None
        if inv is None or parent.column() != 0 or inv.snapshot.row_of(entry) < 0:
            return False
        return len(self._kids(entry)) > 0  # what is shown inside: none left, no arrow

    # ---------------------------------------------------------------- data
    def _value(self, entry: int, column: int) -> float | int | None:
        """A cell's number: every one comes from the workspace (what is on disk now, under
        the filter), never from the scan directly."""
        inv = self.ws.inventory
        assert inv is not None
        snap = inv.snapshot
        if column == SIZE:
            return self.ws.size(entry)
        if column == SHARE:
            parent = snap.parent(entry)
            total = self.ws.size(parent) if parent >= 0 else sum(
                self.ws.size(r) for r in snap.root_entries)
            return 100.0 * self.ws.size(entry) / total if total else 0.0
        if column == CATEGORY:
            return int(self.ws.dominant_category(entry))
        if column == FILES:
            return self.ws.shown_files(entry)
        if column == MODIFIED:
            return self.ws.totals(entry).newest_mtime
        if column == ON_DISK:
            return self.ws.totals(entry).disk_usage
        if column == APPARENT:
            return self.ws.totals(entry).apparent_size
        if column == CHANGE:
            return self.ws.change(entry)
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or self.ws.inventory is None:
            return None
        entry, column = self.entry(index), index.column()
        snap = self.ws.inventory.snapshot
        if role == ENTRY_ROLE:
            return entry
        if role == VALUE_ROLE:
            return self._value(entry, column) if column != NAME else snap.name(entry)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(entry, column)
        if role == Qt.ItemDataRole.DecorationRole and column == NAME:
            return category_color(self.ws.dominant_category(entry))
        if role == Qt.ItemDataRole.ForegroundRole and column == CATEGORY:
            palette = QGuiApplication.palette()
            return QBrush(category_text_color(
                self.ws.dominant_category(entry), palette.color(QPalette.ColorRole.Base),
                palette.color(QPalette.ColorRole.AlternateBase)))
        if role == Qt.ItemDataRole.ForegroundRole and column == CHANGE:
            change = self.ws.change(entry)
            return QBrush(growth_color(1.0 if change > 0 else -1.0)) if change else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (SIZE, FILES, ON_DISK,
                                                                     APPARENT, SHARE, CHANGE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and column == NAME and \
                self.ws.archived_at(entry) is not None:
            return self._archived_font
        if role == Qt.ItemDataRole.ToolTipRole and column == NAME:
            return self._name_tooltip(entry)
        if role == Qt.ItemDataRole.ToolTipRole and column == MODIFIED:
            newest = self.ws.totals(entry).newest_mtime
            return f"Last modified {time.strftime('%Y-%m-%d %H:%M', time.localtime(newest))}"
        if role == Qt.ItemDataRole.ToolTipRole and column == CHANGE and self.ws.compared:
            since = time.strftime('%Y-%m-%d %H:%M', time.localtime(self.ws.compared.finished))
            return f"{'Changed' if self.ws.was_there(entry) else 'New'} since the scan of {since}"
        return None

    def _name_tooltip(self, entry: int) -> str:
        """The path, kind and sizes; for the link or stub an archive run left, where the
        item went and what it took here (the pointer itself takes a few bytes)."""
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        totals = self.ws.totals(entry)
        text = f"{snap.path(entry)}\n{kind_name(snap.kind[entry])}, " \
               f"{fmt.size(totals.disk_usage)} on disk, {fmt.size(totals.apparent_size)} apparent"
        archived = self.ws.archived_at(entry)
        if archived is None:
            return text
        size = archived.apparent_size if self.ws.apparent else archived.disk_usage
        return f"{text}\nArchived to the cold tier: {archived.dest} ({fmt.size(size)} here " \
               "before it moved). Right-click → Bring back from archive."

    def _text(self, entry: int, column: int) -> str:
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        if column == NAME:
            name = snap.name(entry)
            return name if snap.parent(entry) >= 0 else name.rstrip("/") or "/"
        value = self._value(entry, column)
        if value is None:
            return ""
        if column in (SIZE, ON_DISK, APPARENT):
            return fmt.size(int(value))
        if column == SHARE:
            return f"{value:.1f} %"
        if column == CATEGORY:
            return Category(int(value)).info.label
        if column == FILES:
            return fmt.count(int(value))
        if column == MODIFIED:  # the age, as the age chart counts it; the date in the tooltip
            return fmt.ago(time.time() - value)
        if column == CHANGE:  # unchanged reads as nothing; new and empty as "new"
            if not value:
                return "" if self.ws.was_there(entry) else "new"
            return fmt.change(int(value))
        return str(value)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            if section == SIZE:
                return "Size (apparent)" if self.ws.apparent else "Size (on disk)"
            if section == CHANGE:
                compared = self.ws.compared
                return f"Change since {short_date(compared.finished)}" if compared else None
            return COLUMNS[section]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column = column
        self._descending = order == Qt.SortOrder.DescendingOrder
        self.relayout()

    def _compared(self) -> None:
        """A saved scan to compare with was chosen (or none): the Change column shows (or
        goes), and its numbers are new."""
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, CHANGE, CHANGE)
        self.relayout()

    def relayout(self) -> None:
        """Recompute child lists (new sort, sizes or filter) keeping expanded folders and the
        selection where they still exist: a layout change, not a reset."""
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        entries = [(self.entry(i), i.column()) for i in persistent]
        self._children.clear()
        self._row_in_parent.clear()
        moved = []
        for entry, column in entries:
            index = self.index_of(entry)
            moved.append(index.siblingAtColumn(column) if index.isValid() else QModelIndex())
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()

    def path(self, entry: int) -> str:
        assert self.ws.inventory is not None
        return self.ws.inventory.snapshot.path(entry)

    def folder_of(self, entry: int) -> str:
        """The folder to open in a file manager for an entry (itself if a folder)."""
        path = self.path(entry)
        return path if os.path.isdir(path) else os.path.dirname(path)


def children_sizes(workspace: Workspace, entry: int) -> list[tuple[int, int]]:
    """(entry, size) of a folder's visible children, largest first (the treemap's input)."""
    if workspace.inventory is None:
        return []
    kids, sizes = workspace.visible_children(entry)
    order = np.argsort(-sizes, kind="stable")
    return list(zip(kids[order].tolist(), sizes[order].tolist(), strict=True))
