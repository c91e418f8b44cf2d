"""Runs and their checkpoint series: size, checkpoints, best metric, latest step, as they
are on disk now (the workspace derives them from the scan and what was trashed since)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from mlspace import fmt
from mlspace.classify import Inventory, Run
from mlspace.paths import natural_key
from mlspace.tables.runs import RunNow, SeriesNow
from mlspace.ui.columns import FitColumns
from mlspace.ui.lazy import RefreshWhenShown
from mlspace.ui.workspace import Workspace

HEADERS = ("Run / series", "Size", "Checkpoints", "Best", "Latest", "Tool")
RUN, SIZE, CHECKPOINTS, BEST, LATEST, TOOL = range(len(HEADERS))
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
BYTES_ROLE = Qt.ItemDataRole.UserRole  # the Size column's bytes, what it sorts by


class RunsView(RefreshWhenShown, QTreeWidget):
    """The runs, rebuilt from the workspace on every change (a few milliseconds for hundreds
    of runs): what was opened, selected and scrolled to stays so.

    Sorted here, by a key per row, not by Qt: Qt's sort asks a Python ``__lt__`` for each
    comparison, which made a rebuild of 500 runs take a tenth of a second."""

    context_menu_requested = Signal(object)  # global QPoint; the run is then selected

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.setHeaderLabels(HEADERS)
        self.setRootIsDecorated(True)
        self.setAlternatingRowColors(True)
        header = self.header()
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)  # a click flips it, as with Qt's own sorting
        header.setSortIndicator(SIZE, Qt.SortOrder.DescendingOrder)
        header.sortIndicatorChanged.connect(lambda *_: self.mark_stale())
        # At 1024 px the tool goes first, then the count; the best checkpoint always shows.
        self.columns = FitColumns(self, RUN, optional=(TOOL, CHECKPOINTS, LATEST))
        self._labels: dict[int, str] = {}  # run entry -> its name, for the scan labelled
        self._labelled: Inventory | None = None
        self._built: tuple[Inventory | None, bool] = (None, False)  # scan and size mode shown
        self._shown_runs: dict[int, RunNow] = {}  # by run entry, as its row shows it
        workspace.inventory_changed.connect(self.mark_stale)
        workspace.view_changed.connect(self.mark_stale)
        self.itemSelectionChanged.connect(self._selected)

    def prepare(self) -> None:
        """The runs as they are now and their names, made on a turn before the list is
        built from them (together with it, a first list of a thousand runs took 60 ms)."""
        inv = self.ws.inventory
        if inv is not None:
            for run in self.ws.runs():
                self._label(run.run, inv)

    def rebuilds(self) -> bool:
        return self.ws.inventory is not self._built[0] or self.ws.apparent != self._built[1]

    def blank(self) -> None:
        self.clear()

    def refresh(self) -> None:
        """Show the workspace's runs as they are on disk now: a run whose folder or whose
        checkpoints went is gone, a series counts the checkpoints left. The rows of runs
        that did not change are kept (a filter changes only their sizes, a cleanup a few
        runs) and sorted again; a new scan or size mode makes every row anew."""
        self.refresh_done()
        inv = self.ws.inventory
        same_scan = inv is not None and inv is self._built[0]  # entries name the same runs
        opened = {item.data(RUN, ENTRY_ROLE) for item in self._rows()
                  if same_scan and item.isExpanded()}
        current = self.currentItem() if same_scan else None
        chosen = current.data(RUN, ENTRY_ROLE) if current is not None else None
        scrolled = self.verticalScrollBar().value() if same_scan else 0
        held = self.blockSignals(True)  # putting the selection back is not a new selection
        shown = (inv, self.ws.apparent)
        if same_scan and shown[1] == self._built[1]:
            kept = {row.data(RUN, ENTRY_ROLE): row
                    for row in self.invisibleRootItem().takeChildren()}
        else:
            self.clear()
            kept, self._shown_runs = {}, {}
        self._built = shown
        runs = self.ws.runs() if inv is not None else ()
        sizes = self.ws.sizes(run.run.entry for run in runs).tolist() if runs else []
        rows = [self._row_for(run, size, kept.get(run.run.entry))
                for run, size in zip(runs, sizes, strict=True)]
        self._shown_runs = {run.run.entry: run for run in runs}
        self.addTopLevelItems(self._sorted(rows))
        for item in self._rows():
            entry = item.data(RUN, ENTRY_ROLE)
            item.setExpanded(entry in opened)
            if entry == chosen:
                self.setCurrentItem(item)
        self.blockSignals(held)
        self.verticalScrollBar().setValue(scrolled)

    def _row_for(self, run: RunNow, size: int, row: QTreeWidgetItem | None) -> QTreeWidgetItem:
        """The run's row shown before, with its size now and its series sorted again, if
        the run is as it was; else a new row."""
        assert self.ws.inventory is not None
        if row is None or self._shown_runs.get(run.run.entry) != run:
            return self._run_row(run, size, self.ws.inventory)
        if row.data(SIZE, BYTES_ROLE) != size:
            row.setText(SIZE, fmt.size(size))
            row.setData(SIZE, BYTES_ROLE, size)
        if row.childCount():
            row.addChildren(self._sorted(row.takeChildren()))
        return row

    def _rows(self) -> list[QTreeWidgetItem]:
        """Every row, runs and the series under them."""
        rows = []
        for i in range(self.topLevelItemCount()):
            run = self.topLevelItem(i)
            rows += [run, *(run.child(c) for c in range(run.childCount()))]
        return rows

    def _run_row(self, run: RunNow, size: int, inv: Inventory) -> QTreeWidgetItem:
        checkpoints = sum(len(s.members) for s in run.series)
        item = QTreeWidgetItem([self._label(run.run, inv), fmt.size(size),
                                str(checkpoints) if run.series else "", "", "", run.tool or ""])
        item.setData(SIZE, BYTES_ROLE, size)
        item.setData(RUN, ENTRY_ROLE, run.run.entry)
        item.setToolTip(RUN, run.run.path)
        if len(run.series) == 1:  # the run's row is its series' row; its size the run's
            self._fill_series(item, run.series[0], inv, size=False)
        else:
            children = []
            for s in run.series:
                child = QTreeWidgetItem([s.series.path.rsplit("/", 1)[-1], "", "", "", "",
                                         s.tool])
                self._fill_series(child, s, inv)
                children.append(child)
            item.addChildren(self._sorted(children))
        return item

    def _label(self, run: Run, inv: Inventory) -> str:
        """The run's name, made once per scan (a path below the scanned folder)."""
        if self._labelled is not inv:
            self._labels, self._labelled = {}, inv
        label = self._labels.get(run.entry)
        if label is None:
            label = self._labels[run.entry] = inv.run_label(run)
        return label

    def _fill_series(self, item: QTreeWidgetItem, now: SeriesNow, inv: Inventory,
                     size: bool = True) -> None:
        """A series' columns; ``size=False`` on a run's own row, which shows the run's size
        (as the tree does) and gives its checkpoints' in the tooltip."""
        s = now.series
        checkpoints = now.apparent_size if self.ws.apparent else now.disk_usage
        if size:
            item.setText(SIZE, fmt.size(checkpoints))
            item.setData(SIZE, BYTES_ROLE, checkpoints)
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

    def _sorted(self, items: list[QTreeWidgetItem]) -> list[QTreeWidgetItem]:
        """Rows in the header's order: sizes by bytes, the rest naturally by their text
        (checkpoint-2000 before checkpoint-10000)."""
        header = self.header()
        column = header.sortIndicatorSection()
        key: Callable[[QTreeWidgetItem], object] = (
            (lambda item: item.data(SIZE, BYTES_ROLE) or 0) if column == SIZE else
            (lambda item: natural_key(item.text(column).casefold())))
        return sorted(items, key=key,
                      reverse=header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder)

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
