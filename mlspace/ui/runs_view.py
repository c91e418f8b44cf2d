"""Runs and their checkpoint series: size, checkpoints, best metric, latest step."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from mlspace import fmt
from mlspace.classify import Inventory, Series
from mlspace.ui.lazy import RefreshWhenShown
from mlspace.ui.workspace import Workspace

HEADERS = ("Run / series", "Size", "Checkpoints", "Best", "Latest", "Tool")
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1


class RunsView(RefreshWhenShown, QTreeWidget):
    context_menu_requested = Signal(object)  # global QPoint; the run is then selected

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.setHeaderLabels(HEADERS)
        self.setRootIsDecorated(True)
        self.setSortingEnabled(True)
        self.setAlternatingRowColors(True)
        workspace.inventory_changed.connect(self.mark_stale)
        workspace.view_changed.connect(self.mark_stale)
        self.itemSelectionChanged.connect(self._selected)

    def refresh(self) -> None:
        self.refresh_done()
        self.setSortingEnabled(False)  # sort once at the end, not on every insert
        self.clear()
        inv = self.ws.inventory
        if inv is None:
            return
        for run in sorted(inv.runs, key=lambda r: -self._run_size(inv, r.entry)):
            series = [inv.series_by_id[s] for s in run.series]
            item = _SortableItem([run.name, fmt.size(self._run_size(inv, run.entry)),
                                  str(sum(len(s.members) for s in series)) if series else "",
                                  "", "", run.tool or ""])
            item.setData(1, Qt.ItemDataRole.UserRole, self._run_size(inv, run.entry))
            item.setData(0, ENTRY_ROLE, run.entry)
            item.setToolTip(0, run.path)
            if len(series) == 1:
                self._fill_series(item, series[0], inv)
            else:
                for s in series:
                    child = _SortableItem([s.path.rsplit("/", 1)[-1], "", "", "", "", s.tool])
                    self._fill_series(child, s, inv)
                    item.addChild(child)
            self.addTopLevelItem(item)
        self.setSortingEnabled(True)
        self.sortItems(1, Qt.SortOrder.DescendingOrder)
        for column in range(len(HEADERS)):
            self.resizeColumnToContents(column)

    def _run_size(self, inv: Inventory, entry: int) -> int:
        return self.ws.size(entry)

    def _fill_series(self, item: QTreeWidgetItem, s: Series, inv: Inventory) -> None:
        size = sum((a.apparent_size if self.ws.apparent else a.disk_usage)
                   for a in (inv.artifact_by_id[m] for m in s.members)
                   if a.copy_kind != "hard link")
        item.setText(1, fmt.size(size))
        item.setData(1, Qt.ItemDataRole.UserRole, size)
        item.setText(2, str(len(s.members)))
        if s.best:
            best = s.best.rsplit("/", 1)[-1]
            metric = f" ({s.best_metric} {s.best_value:g})" if s.best_metric and \
                s.best_value is not None else ""
            item.setText(3, best + metric)
        else:
            item.setText(3, "unknown")
        item.setToolTip(3, s.best_reason)
        if s.latest:
            latest = inv.artifact_by_id[s.latest]
            item.setText(4, f"step {latest.step}" if latest.step is not None else latest.name)
            item.setToolTip(4, s.latest_reason)
        item.setData(0, ENTRY_ROLE, item.data(0, ENTRY_ROLE) or
                     inv.snapshot.parent(inv.artifact_by_id[s.members[0]].entry))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802
        item = self.itemAt(event.pos())
        if item is not None:
            self.setCurrentItem(item)
            self.context_menu_requested.emit(event.globalPos())

    def _selected(self) -> None:
        items = self.selectedItems()
        if items:
            entry = items[0].data(0, ENTRY_ROLE)
            if entry is not None:
                self.ws.select(int(entry))


class _SortableItem(QTreeWidgetItem):
    """Sort the size column by bytes, not by its text."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        mine, theirs = self.data(column, Qt.ItemDataRole.UserRole), \
            other.data(column, Qt.ItemDataRole.UserRole)
        if mine is not None and theirs is not None:
            return mine < theirs
        return self.text(column) < other.text(column)
