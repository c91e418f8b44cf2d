"""Runs and their checkpoint series: size, checkpoints, best metric, latest step, as they
are on disk now (the workspace derives them from the scan and what was trashed since)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from mlspace import fmt
from mlspace.classify import Inventory
from mlspace.paths import natural_key
from mlspace.ui.columns import FitColumns
from mlspace.ui.lazy import RefreshWhenShown
from mlspace.ui.workspace import SeriesNow, Workspace

HEADERS = ("Run / series", "Size", "Checkpoints", "Best", "Latest", "Tool")
RUN, SIZE, CHECKPOINTS, BEST, LATEST, TOOL = range(len(HEADERS))
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
        # At 1024 px the tool goes first, then the count; the best checkpoint always shows.
        self.columns = FitColumns(self, RUN, optional=(TOOL, CHECKPOINTS, LATEST))
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
            item = _SortableItem([inv.run_label(run.run), fmt.size(size),
                                  str(checkpoints) if run.series else "", "", "",
                                  run.tool or ""])
            item.setData(SIZE, Qt.ItemDataRole.UserRole, size)
            item.setData(RUN, ENTRY_ROLE, run.run.entry)
            item.setToolTip(RUN, run.run.path)
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
        self.sortItems(SIZE, Qt.SortOrder.DescendingOrder)

    def _fill_series(self, item: QTreeWidgetItem, now: SeriesNow, inv: Inventory,
                     size: bool = True) -> None:
        """A series' columns; ``size=False`` on a run's own row, which shows the run's size
        (as the tree does) and gives its checkpoints' in the tooltip."""
        s = now.series
        checkpoints = now.apparent_size if self.ws.apparent else now.disk_usage
        if size:
            item.setText(SIZE, fmt.size(checkpoints))
            item.setData(SIZE, Qt.ItemDataRole.UserRole, checkpoints)
        else:
            item.setToolTip(SIZE, f"{fmt.size(checkpoints)} of it in its "
                                  f"{fmt.plural(len(now.members), 'checkpoint')}")
        item.setText(CHECKPOINTS, str(len(now.members)))
        if s.best:
            item.setText(BEST, _best_text(s.best.rsplit("/", 1)[-1], s.best_metric,
                                          s.best_value))
        else:
            item.setText(BEST, "unknown")
        item.setToolTip(BEST, s.best_reason)
        if s.latest:
            latest = inv.artifact_by_id[s.latest]
            item.setText(LATEST, f"step {latest.step}" if latest.step is not None else latest.name)
            item.setToolTip(LATEST, s.latest_reason)
        item.setData(RUN, ENTRY_ROLE, item.data(RUN, ENTRY_ROLE) or
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


def _best_text(name: str, metric: str | None, value: float | None) -> str:
    """The best checkpoint and its metric: 'checkpoint-7000 (eval_loss 1.82)'; only the name
    when it already says the metric, as Lightning's 'epoch=3-step=1560-val_acc=0.74.ckpt'
    does (the same number twice only makes the column wider)."""
    if not metric or value is None or f"{metric}=" in name:
        return name
    return f"{name} ({metric} {value:g})"


class _SortableItem(QTreeWidgetItem):
    """Sort sizes by bytes, and names naturally (checkpoint-2000 before checkpoint-10000),
    not by their text."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        mine, theirs = self.data(column, Qt.ItemDataRole.UserRole), \
            other.data(column, Qt.ItemDataRole.UserRole)
        if mine is not None and theirs is not None:
            return mine < theirs
        return natural_key(self.text(column).casefold()) < \
            natural_key(other.text(column).casefold())
