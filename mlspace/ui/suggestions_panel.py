"""The suggestions panel: cleanups grouped by policy, with checkboxes, the paths each names,
the total to reclaim, and a button that asks for confirmation before anything moves."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.advise import Suggestion
from mlspace.ui.lazy import RefreshWhenShown
from mlspace.ui.workspace import Workspace

POLICY_LABELS = {
    "checkpoint-retention": "Old checkpoints",
    "strip-resume-state": "Optimizer state of kept checkpoints",
    "augmented-copies": "Augmented copies",
    "debug-dumps": "Debug dumps",
    "crash-leftovers": "Leftovers of interrupted saves",
    "python-caches": "Caches",
    "datasets-cache": "Caches",
    "log-archives": "Old logs (compressed, then trashed)",
    "duplicates": "Exact duplicates",
    "hub-detached": "Caches",
}
ID_ROLE = Qt.ItemDataRole.UserRole + 1


class SuggestionsPanel(RefreshWhenShown, QWidget):
    clean_requested = Signal(list)  # [Suggestion]
    export_requested = Signal()

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Suggestion", "Frees", "Risk"])
        self.tree.itemChanged.connect(self._update_total)
        self.tree.itemSelectionChanged.connect(self._selected)
        self.total = QLabel()
        self.clean_button = QPushButton("Clean up checked…")
        self.clean_button.clicked.connect(self._clean_checked)
        self.export_button = QPushButton("Export this plan…")
        self.export_button.clicked.connect(self.export_requested)
        row = QHBoxLayout()
        row.addWidget(self.total, 1)
        row.addWidget(self.export_button)
        row.addWidget(self.clean_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree, 1)
        layout.addLayout(row)
        workspace.plan_changed.connect(self.mark_stale)
        workspace.view_changed.connect(self.mark_stale)

    def _size(self, s: Suggestion) -> int:
        return s.apparent_bytes if self.ws.apparent else s.bytes

    def refresh(self) -> None:
        self.refresh_done()
        self.tree.blockSignals(True)
        self.tree.clear()
        plan = self.ws.plan
        groups: dict[str, QTreeWidgetItem] = {}
        for s in plan.suggestions if plan else ():
            label = POLICY_LABELS.get(s.policy, s.policy)
            group = groups.get(label)
            if group is None:
                group = groups[label] = QTreeWidgetItem([label])
                group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                self.tree.addTopLevelItem(group)
            item = QTreeWidgetItem([s.title, fmt.size(self._size(s)), s.risk])
            item.setToolTip(0, s.reason)
            item.setData(0, ID_ROLE, s.id)
            item.setCheckState(0, Qt.CheckState.Unchecked)
            for path in s.paths:
                child = QTreeWidgetItem([path])
                child.setFlags(child.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
                item.addChild(child)
            group.addChild(item)
        for group in groups.values():
            total = sum(self._size(s) for s in self._in(group))
            group.setText(1, fmt.size(total))
            group.setExpanded(True)
        self.tree.resizeColumnToContents(0)
        self.tree.blockSignals(False)
        self._update_total()

    def _in(self, group: QTreeWidgetItem) -> list[Suggestion]:
        plan = self.ws.plan
        return [s for s in (plan.by_id(group.child(i).data(0, ID_ROLE))
                            for i in range(group.childCount())) if s] if plan else []

    def suggestion_items(self) -> list[QTreeWidgetItem]:
        return [self.tree.topLevelItem(g).child(i)
                for g in range(self.tree.topLevelItemCount())
                for i in range(self.tree.topLevelItem(g).childCount())]

    def checked(self) -> list[Suggestion]:
        plan = self.ws.plan
        if plan is None:
            return []
        return [s for s in (plan.by_id(item.data(0, ID_ROLE)) for item in self.suggestion_items()
                            if item.checkState(0) == Qt.CheckState.Checked) if s]

    def _update_total(self, *_: object) -> None:
        plan = self.ws.plan
        everything = sum(self._size(s) for s in plan.suggestions) if plan else 0
        chosen = self.checked()
        self.total.setText(f"{fmt.size(everything)} can be reclaimed"
                           + (f" · {fmt.size(sum(self._size(s) for s in chosen))} checked"
                              if chosen else ""))
        self.clean_button.setEnabled(bool(chosen))

    def _clean_checked(self) -> None:
        chosen = self.checked()
        if chosen:
            self.clean_requested.emit(chosen)

    def _selected(self) -> None:
        items = self.tree.selectedItems()
        if not items or self.ws.inventory is None:
            return
        path = items[0].text(0) if items[0].data(0, ID_ROLE) is None else None
        if path:
            entry = self.ws.inventory.snapshot.find(path)
            if entry >= 0:
                self.ws.select(entry)
