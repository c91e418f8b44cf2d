"""The scanning page's tree: each root's top-level folders and files with their sizes so far,
re-sorted as they grow, so a user sees where the space is before the scan ends.

Rows are updated in place (never cleared and rebuilt), so a row the user selected stays
selected and the list does not jump under the mouse; the window then opens the finished
view on the same path (``selected_path``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

from mlspace import fmt
from mlspace.scan.live_totals import GrowingEntry

NAME, SIZE, FILES = range(3)
PATH_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2


class _Row(QTreeWidgetItem):
    """Sorts numerically on the size and file columns (their text is "1.2 GiB so far")."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else SIZE
        if column == NAME:
            return self.text(NAME).casefold() < other.text(NAME).casefold()
        return (self.data(column, SORT_ROLE) or 0) < (other.data(column, SORT_ROLE) or 0)


class GrowingTree(QTreeWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setHeaderLabels(["Found so far", "Size (still growing)", "Items"])
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        for column in (SIZE, FILES):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.setSortingEnabled(True)
        self.sortByColumn(SIZE, Qt.SortOrder.DescendingOrder)
        self.apparent = False
        self._roots: dict[str, QTreeWidgetItem] = {}
        self._rows: dict[tuple[str, str], QTreeWidgetItem] = {}

    def start_over(self, apparent: bool) -> None:
        """Empty, for a new scan; sizes shown on disk or apparent as the views will."""
        self.clear()
        self._roots.clear()
        self._rows.clear()
        self.apparent = apparent

    def show_entries(self, entries: tuple[GrowingEntry, ...]) -> None:
        self.setUpdatesEnabled(False)
        try:
            for e in entries:
                size = e.apparent_size if self.apparent else e.bytes
                if not e.name:
                    _set_numbers(self._root(e.root), size, e.files)
                    continue
                row = self._rows.get((e.root, e.name))
                if row is None:
                    row = self._rows[(e.root, e.name)] = _Row([e.name + ("/" if e.is_dir
                                                                         else "")])
                    row.setData(NAME, PATH_ROLE, e.path)
                    row.setToolTip(NAME, e.path)
                    self._root(e.root).addChild(row)
                _set_numbers(row, size, e.files)
            self.sortItems(self.sortColumn(), self.header().sortIndicatorOrder())
        finally:
            self.setUpdatesEnabled(True)

    def _root(self, path: str) -> QTreeWidgetItem:
        item = self._roots.get(path)
        if item is None:
            item = self._roots[path] = _Row([path])
            item.setData(NAME, PATH_ROLE, path)
            item.setToolTip(NAME, path)
            self.addTopLevelItem(item)
            item.setExpanded(True)
        return item

    def selected_path(self) -> str | None:
        items = self.selectedItems()
        return items[0].data(NAME, PATH_ROLE) if items else None


def _set_numbers(row: QTreeWidgetItem, size: int, files: int) -> None:
    row.setText(SIZE, f"{fmt.size(size)} so far")
    row.setData(SIZE, SORT_ROLE, size)
    row.setText(FILES, fmt.count(files))
    row.setData(FILES, SORT_ROLE, files)
    row.setTextAlignment(SIZE, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    row.setTextAlignment(FILES, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
