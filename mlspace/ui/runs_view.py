"""Runs and their checkpoint series: size, checkpoints, best metric, latest step, as they
are on disk now (the workspace derives them from the scan and what was trashed since)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from mlspace import fmt
from mlspace.classify import Inventory
from mlspace.ui.lazy import RefreshWhenShown
from mlspace.ui.workspace import SeriesNow, Workspace

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
        """Rebuild from the workspace's runs as they are on disk now: a run whose folder or
        whose checkpoints went is gone, a series counts the checkpoints left."""
        self.refresh_done()
        self.setSortingEnabled(False)  # sort once at the end, not on every insert
        self.clear()
        inv = self.ws.inventory
        if inv is None:
            return
        for run in sorted(self.ws.runs(), key=lambda r: -self.ws.size(r.run.entry)):
            size = self.ws.size(run.run.entry)
            checkpoints = sum(len(s.members) for s in run.series)
            item = _SortableItem([run.run.name, fmt.size(size),
                                  str(checkpoints) if run.series else "", "", "",
                                  run.tool or ""])
            item.setData(1, Qt.ItemDataRole.UserRole, size)
            item.setData(0, ENTRY_ROLE, run.run.entry)
            item.setToolTip(0, run.run.path)
            if len(run.series) == 1:  # the run's row is its series' row; its size the run's
                self._fill_series(item, run.series[0], inv, size=False)
            else:
                for s in run.series:
                    child = _SortableItem([s.series.path.rsplit("/", 1)[-1], "", "", "", "",
                                           s.tool])
                    self._fill_series(child, s, inv)
                    item.addChild(child)
            self.addTopLevelItem(item)
        self.setSortingEnabled(True)
        self.sortItems(1, Qt.SortOrder.DescendingOrder)
        for column in range(len(HEADERS)):
            self.resizeColumnToContents(column)

    def _fill_series(self, item: QTreeWidgetItem, now: SeriesNow, inv: Inventory,
                     size: bool = True) -> None:
        """A series' columns; ``size=False`` on a run's own row, which shows the run's size
        (as the tree does) and gives its checkpoints' in the tooltip."""
        s = now.series
        checkpoints = now.apparent_size if self.ws.apparent else now.disk_usage
        if size:
            item.setText(1, fmt.size(checkpoints))
            item.setData(1, Qt.ItemDataRole.UserRole, checkpoints)
        else:
            item.setToolTip(1, f"{fmt.size(checkpoints)} of it in its "
                               f"{fmt.plural(len(now.members), 'checkpoint')}")
        item.setText(2, str(len(now.members)))
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
                     inv.snapshot.parent(inv.artifact_by_id[now.members[0]].entry))

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
