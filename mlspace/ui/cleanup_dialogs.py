"""The confirmation shown before anything moves: what goes, how much it frees, the risk,
and what stays."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.advise import KeptItem, PlanItem, Suggestion

RISK_WORDS = {"safe": "Safe", "review": "Review before you confirm", "risky": "Risky"}


def item_size(item: PlanItem | KeptItem, apparent: bool) -> int:
    return item.apparent_size if apparent else item.disk_usage


def kept_look(widget: QWidget, font: QFont) -> tuple[QFont, QColor]:
    """Italic and greyed: how a kept item is shown beside what goes, so it reads as named
    for the record, not as part of the cleanup."""
    italic = QFont(font)
    italic.setItalic(True)
    return italic, widget.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


class ConfirmCleanup(QDialog):
    def __init__(self, suggestions: list[Suggestion], apparent: bool,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Move to the trash?")
        self.resize(720, 460)
        items = [i for s in suggestions for i in s.items]
        freed = sum(s.bytes for s in suggestions)
        apparent_total = sum(s.apparent_bytes for s in suggestions)
        risks = sorted({s.risk for s in suggestions}, key=["safe", "review", "risky"].index)
        layout = QVBoxLayout(self)
        head = (f"<h3>{fmt.plural(len(items), 'item')} will be moved to the trash</h3>"
                f"<p>Frees <b>{fmt.size(freed)}</b> on disk ({fmt.size(apparent_total)} "
                f"apparent). Risk: <b>{', '.join(RISK_WORDS[r] for r in risks)}</b>.</p>")
        for s in suggestions:
            head += f"<p><b>{s.title}</b> — {s.reason}</p>"
        head += ("<p>Each item is checked again first (unchanged since the scan, not written "
                 "in the last 10 minutes, not open). Undo with Ctrl+Z, also after a restart."
                 "</p>")
        self.summary = QLabel(head)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.paths = QListWidget()
        # What tells two checkpoints apart is at the end of their paths: elide the middle.
        self.paths.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for s in suggestions:
            self._list(s, apparent)
        layout.addWidget(self.paths, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.confirm = buttons.addButton(f"Move {fmt.plural(len(items), 'item')} to the trash",
                                         QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _list(self, s: Suggestion, apparent: bool) -> None:
        """One suggestion's rows: its folder, each item that goes with its size (relative to
        the folder), then what stays and why, greyed."""
        folder = QListWidgetItem(f"in {s.folder}")
        folder.setToolTip(s.folder)
        font = folder.font()
        font.setBold(True)
        folder.setFont(font)
        folder.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.paths.addItem(folder)
        for i in s.items:
            note = f" · {i.note}" if i.note else ""
            row = QListWidgetItem(f"{fmt.size(item_size(i, apparent)):>10}   "
                                  f"{s.relative(i.path)}{note}")
            row.setToolTip(i.path)
            self.paths.addItem(row)
        for k in s.kept:
            row = QListWidgetItem(f"{fmt.size(item_size(k, apparent)):>10}   "
                                  f"stays: {s.relative(k.path)} — {k.why}")
            row.setToolTip("\n".join(p for p in (k.path, k.evidence) if p))
            font, grey = kept_look(self.paths, row.font())
            row.setFont(font)
            row.setForeground(grey)
            row.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.paths.addItem(row)


class CleanupHistory(QDialog):
    """Past cleanups (from the journal), newest first, each with its own Undo."""

    def __init__(self, undo: Callable[[str], None], parent: QWidget | None = None) -> None:
        from mlspace.act import history

        super().__init__(parent)
        self.setWindowTitle("Cleanup history")
        self.resize(720, 360)
        self.records = history()
        layout = QVBoxLayout(self)
        self.list = QListWidget()
        for record in self.records:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
            left = fmt.plural(len(record.trashed), "item")
            state = "undone" if record.undone else f"{left} in the trash"
            self.list.addItem(f"{when}   {fmt.size(record.freed):>10}   {state}   {record.title}"
                              f"   (in {', '.join(record.roots)})")
        if not self.records:
            self.list.addItem("No cleanups yet.")
        layout.addWidget(self.list, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.undo_button = buttons.addButton("Undo this cleanup",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.undo_button.setEnabled(False)
        self.list.currentRowChanged.connect(
            lambda row: self.undo_button.setEnabled(
                0 <= row < len(self.records) and bool(self.records[row].trashed
                                                      or self.records[row].pending)))
        self.undo_button.clicked.connect(lambda: (undo(self.records[self.list.currentRow()].id),
                                                  self.accept()))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
