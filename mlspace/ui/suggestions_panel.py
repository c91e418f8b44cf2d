"""The suggestions panel: cleanups grouped by policy, with checkboxes, the total to reclaim,
and a button that asks for confirmation before anything moves. Under each suggestion, what
goes is listed relative to its folder, with size, age and what it is, followed by what is
kept and why, so a cleanup can be checked before anything moves.

With a cold tier configured, its archive suggestions form a group of their own, and any
checked cleanup can go there instead of the trash. A suggestion this machine cannot apply
(an opened scan's folder that is not here) cannot be checked, and says why."""

from __future__ import annotations

import time
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.advise import KeptItem, Plan, PlanItem, Suggestion
from mlspace.advise.archive import ARCHIVE_POLICIES
from mlspace.ui.cleanup_dialogs import item_size, kept_look
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
    **dict.fromkeys(ARCHIVE_POLICIES, "Move to the cold tier"),
}
ID_ROLE = Qt.ItemDataRole.UserRole + 1
PATH_ROLE = Qt.ItemDataRole.UserRole + 2  # the absolute path a row under a suggestion shows
CHECKABLE = Qt.ItemFlag.ItemIsUserCheckable


class SuggestionsPanel(RefreshWhenShown, QWidget):
    clean_requested = Signal(list, bool)  # [Suggestion], archive instead of trash
    export_requested = Signal()

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Suggestion", "Frees", "Risk"])
        # The part of a path that tells two checkpoints apart is at its end: elide in the
        # middle. The text column takes what is left after sizes and risks, whose headers
        # always show in full (a 450 px panel at 1024 px).
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        # Measured on the rows on screen (Qt's default, a thousand rows, took tens of ms
        # after each change of a plan of a million files).
        header.setResizeContentsPrecision(0)
        self.tree.itemChanged.connect(self._update_total)
        self.tree.itemSelectionChanged.connect(self._selected)
        self.notice = QLabel()  # why nothing here can be applied (an opened scan)
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("padding: 2px 6px;")
        self.instead = QCheckBox("Archive instead of trash")
        self.instead.toggled.connect(self._update_total)
        self.total = QLabel()
        self.total.setWordWrap(True)  # "· 35.1 GiB checked" wraps, never moves the divider
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
        layout.addWidget(self.notice)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.instead)
        layout.addLayout(row)
        self.tree.itemExpanded.connect(self._expanded)
        self._shown: tuple[Plan | None, bool] = (None, False)  # full plan and size mode shown
        workspace.plan_changed.connect(self.mark_stale)
        workspace.view_changed.connect(self._view_changed)

    def _view_changed(self) -> None:
        """A filter leaves the suggestions as they are; only the size mode changes them."""
        if self.ws.apparent != self._shown[1]:
            self.mark_stale()

    def rebuilds(self) -> bool:
        return self.ws.full_plan is not self._shown[0] or self.ws.apparent != self._shown[1]

    def blank(self) -> None:
        self.tree.clear()
        self.total.clear()
        self.clean_button.setEnabled(False)

    def refresh(self) -> None:
        """Show the workspace's plan. After a cleanup or an undo (the same scan's plan, less
        or more of it) only the suggestions that fell or came back are taken out or put in:
        the rest keep their check marks and what is expanded, and a thousand-suggestion
        plan costs a few milliseconds, not a rebuild. Anything else rebuilds."""
        self.refresh_done()
        self.tree.blockSignals(True)
        self._show_tier()
        plan = self.ws.plan
        wanted = self._grouped(plan.suggestions if plan else ())
        shown = (self.ws.full_plan, self.ws.apparent)
        same_scan = shown[0] is self._shown[0] and shown[1] == self._shown[1]
        if not same_scan or not self._in_same_order(wanted):
            self._rebuild(wanted)
        else:
            self._reconcile(wanted)
        self._shown = shown
        for group in self._groups():
            group.setText(1, fmt.size(sum(self.ws.frees(s) for s in self._in(group))))
        self.tree.blockSignals(False)
        self._update_total()

    @staticmethod
    def _grouped(suggestions: Iterable[Suggestion]) -> dict[str, list[Suggestion]]:
        """The suggestions under their group's label, groups in the order first named."""
        groups: dict[str, list[Suggestion]] = {}
        for s in suggestions:
            groups.setdefault(POLICY_LABELS.get(s.policy, s.policy), []).append(s)
        return groups

    def _groups(self) -> list[QTreeWidgetItem]:
        return [self.tree.topLevelItem(g) for g in range(self.tree.topLevelItemCount())]

    def _in_same_order(self, wanted: dict[str, list[Suggestion]]) -> bool:
        """Do the rows shown that are still wanted stand in the plan's order (so taking out
        and putting in is enough)? A standing plan keeps its scan's order; this checks it."""
        shown = [(g.text(0), g.child(i).data(0, ID_ROLE))
                 for g in self._groups() for i in range(g.childCount())]
        keys = [(label, s.id) for label, group in wanted.items() for s in group]
        kept = set(shown) & set(keys)
        return [k for k in shown if k in kept] == [k for k in keys if k in kept]

    def _rebuild(self, wanted: dict[str, list[Suggestion]]) -> None:
        """Every row anew; the suggestions checked or expanded before stay so (by id)."""
        rows = [g.child(i) for g in self._groups() for i in range(g.childCount())]
        checked = {r.data(0, ID_ROLE) for r in rows if r.checkState(0) == Qt.CheckState.Checked}
        expanded = {r.data(0, ID_ROLE) for r in rows if r.isExpanded()}
        self.tree.clear()
        for label, suggestions in wanted.items():
            group = self._group_row(label)
            self.tree.addTopLevelItem(group)
            group.addChildren([self._suggestion_row(s) for s in suggestions])
            group.setExpanded(True)
        for group in self._groups():
            for i in range(group.childCount()):
                row = group.child(i)
                if row.data(0, ID_ROLE) in checked and row.flags() & CHECKABLE:
                    row.setCheckState(0, Qt.CheckState.Checked)
                if row.data(0, ID_ROLE) in expanded:
                    self.tree.expandItem(row)
                    self._expanded(row)  # signals are held while the list is rebuilt

    def _reconcile(self, wanted: dict[str, list[Suggestion]]) -> None:
        """Take out the rows no longer wanted, then put in the missing ones in place."""
        for g in reversed(range(self.tree.topLevelItemCount())):
            group = self.tree.topLevelItem(g)
            ids = {s.id for s in wanted.get(group.text(0), ())}
            for i in reversed(range(group.childCount())):
                if group.child(i).data(0, ID_ROLE) not in ids:
                    group.takeChild(i)
            if not group.childCount():
                self.tree.takeTopLevelItem(g)
        for g, (label, suggestions) in enumerate(wanted.items()):
            group = self.tree.topLevelItem(g)
            if group is None or group.text(0) != label:
                group = self._group_row(label)
                self.tree.insertTopLevelItem(g, group)
                group.setExpanded(True)
            for i, s in enumerate(suggestions):
                row = group.child(i)
                if row is None or row.data(0, ID_ROLE) != s.id:
                    group.insertChild(i, self._suggestion_row(s))

    @staticmethod
    def _group_row(label: str) -> QTreeWidgetItem:
        group = QTreeWidgetItem([label])
        group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
        return group

    def _suggestion_row(self, s: Suggestion) -> QTreeWidgetItem:
        """A suggestion's checkable row; what it moves and keeps is listed when expanded."""
        item = QTreeWidgetItem([s.title, fmt.size(self.ws.frees(s)), s.risk])
        item.setToolTip(0, f"{s.title}\n\n{s.reason}")
        item.setData(0, ID_ROLE, s.id)
        item.setCheckState(0, Qt.CheckState.Unchecked)
        item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
        refused = self.ws.cleanup_refused(s.paths)
        if refused:  # shown, with what it would free there, but not to be checked
            item.setFlags(item.flags() & ~CHECKABLE & ~Qt.ItemFlag.ItemIsEnabled)
            item.setToolTip(0, refused)
        return item

    def _expanded(self, item: QTreeWidgetItem) -> None:
        """A suggestion's rows are made the first time it is opened: the plan of a million
        files lists tens of thousands of them, and most are never looked at."""
        plan = self.ws.plan
        sid = item.data(0, ID_ROLE)
        s = plan.by_id(sid) if plan and sid is not None else None
        if s is not None and not item.childCount():
            held = self.tree.blockSignals(True)
            self._add_contents(item, s)
            self.tree.blockSignals(held)

    def _show_tier(self) -> None:
        """The read-only reason above the list; "archive instead" only with a cold tier."""
        reason = self.ws.read_only_reason
        self.notice.setText(f"No cleanup from this scan: {reason}" if reason else "")
        self.notice.setVisible(bool(reason))
        root = self.ws.user.archive_root
        self.instead.setVisible(bool(root))
        if not root:
            self.instead.setChecked(False)
        self.instead.setToolTip(f"The checked suggestions move to the cold tier {root}, a "
                                f"{self.ws.user.archive_link} left in their place, instead of "
                                "going to the trash" if root else "")

    def _add_contents(self, parent: QTreeWidgetItem, s: Suggestion) -> None:
        """The rows under a suggestion: its folder, each item that goes (relative to that
        folder), then each item that stays, greyed, with why."""
        folder = self._row(parent, s.folder, f"in {s.folder}", s.folder)
        folder.setFirstColumnSpanned(True)
        now = time.time()
        for i in s.items:
            what = " · ".join(p for p in (s.relative(i.path), fmt.ago(now - i.mtime), i.note)
                              if p)
            self._row(parent, i.path, what, self._details(i, s),
                      item_size(i, self.ws.apparent))
        for k in s.kept:
            row = self._row(parent, k.path, f"kept: {s.relative(k.path)} — {k.why}",
                            self._details(k, s), item_size(k, self.ws.apparent))
            font, grey = kept_look(self.tree, row.font(0))
            for column in (0, 1):
                row.setFont(column, font)
                row.setForeground(column, grey)

    @staticmethod
    def _row(parent: QTreeWidgetItem, path: str, text: str, tip: str, size: int | None = None
             ) -> QTreeWidgetItem:
        row = QTreeWidgetItem([text, "" if size is None else fmt.size(size)])
        row.setFlags(row.flags() & ~CHECKABLE)
        row.setData(0, PATH_ROLE, path)
        row.setToolTip(0, tip)
        parent.addChild(row)
        return row

    @staticmethod
    def _details(item: PlanItem | KeptItem, s: Suggestion) -> str:
        """The tooltip: the full path and everything known about the item."""
        sizes = f"{fmt.size(item.disk_usage)} on disk, {fmt.size(item.apparent_size)} apparent"
        if isinstance(item, KeptItem):
            return "\n".join(p for p in (f"Stays: {item.path}", sizes,
                                          f"Why: {item.why}", item.evidence) if p)
        verb = "Moves to the cold tier (a link is left)" if s.policy in ARCHIVE_POLICIES \
            else "Compressed, then moved to the trash" if s.archive else "Moves to the trash"
        return "\n".join(p for p in (f"{verb}: {item.path}", sizes,
                                      f"Modified {fmt.ago(time.time() - item.mtime)}",
                                      item.note) if p)

    def _in(self, group: QTreeWidgetItem) -> list[Suggestion]:
        plan = self.ws.plan
        return [s for s in (plan.by_id(group.child(i).data(0, ID_ROLE))
                            for i in range(group.childCount())) if s] if plan else []

    def suggestion_items(self) -> list[QTreeWidgetItem]:
        return [g.child(i) for g in self._groups() for i in range(g.childCount())]

    def checked(self) -> list[Suggestion]:
        plan = self.ws.plan
        if plan is None:
            return []
        return [s for s in (plan.by_id(item.data(0, ID_ROLE)) for item in self.suggestion_items()
                            if item.checkState(0) == Qt.CheckState.Checked) if s]

    def _update_total(self, *_: object) -> None:
        plan = self.ws.plan
        everything = sum(self.ws.frees(s) for s in plan.suggestions) if plan else 0
        chosen = self.checked()
        self.total.setText(f"{fmt.size(everything)} can be reclaimed"
                           + (f" · {fmt.size(sum(self.ws.frees(s) for s in chosen))} checked"
                              if chosen else ""))
        self.clean_button.setEnabled(bool(chosen))
        archiving = bool(chosen) and (self.instead.isChecked() or
                                      all(s.policy in ARCHIVE_POLICIES for s in chosen))
        self.clean_button.setText("Archive checked…" if archiving else "Clean up checked…")

    def _clean_checked(self) -> None:
        chosen = self.checked()
        if chosen:
            self.clean_requested.emit(chosen, self.instead.isChecked())

    def _selected(self) -> None:
        """A row naming a path (the folder, an item, a kept item) selects it everywhere."""
        items = self.tree.selectedItems()
        if not items or self.ws.inventory is None:
            return
        path = items[0].data(0, PATH_ROLE)
        if path:
            entry = self.ws.inventory.snapshot.find(path)
            if entry >= 0:
                self.ws.select(entry)
