"""The confirmation shown before anything moves: what goes (to the trash, or to the cold
tier), how much it frees, the risk, and what stays; and the history of every cleanup,
archive run and policy run, each with its own Undo."""

from __future__ import annotations

import html
import os
import time
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.act.journal import RESTORED, TRASHED, CleanupRecord
from mlspace.act.tier import ARCHIVE, TRASH, Tier
from mlspace.act.tier_advice import ARCHIVE_POLICIES
from mlspace.act.trash import SPACE_BACK_WHEN_EMPTIED
from mlspace.advise import KeptItem, PlanItem, Suggestion

RISK_WORDS = {"safe": "Safe", "review": "Review before you confirm", "risky": "Risky"}
RISK_SHORT = {"safe": "safe", "review": "to review", "risky": "risky"}


def item_size(item: PlanItem | KeptItem, apparent: bool) -> int:
    return item.apparent_size if apparent else item.disk_usage


def kept_look(widget: QWidget, font: QFont) -> tuple[QFont, QColor]:
    """Italic and greyed: how a kept item is shown beside what goes, so it reads as named
    for the record, not as part of the cleanup."""
    italic = QFont(font)
    italic.setItalic(True)
    return italic, widget.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


def actions_for(suggestions: list[Suggestion], instead: bool) -> list[tuple[Suggestion, str]]:
    """Each suggestion with what becomes of it: archive suggestions always go to the cold
    tier (raw data among them is never trashed); the others too when ``instead``."""
    return [(s, ARCHIVE if instead or s.policy in ARCHIVE_POLICIES else TRASH)
            for s in suggestions]


class ConfirmCleanup(QDialog):
    """With ``tier``, the suggestions whose action is "archive" (see actions_for) are said
    to go there, with the link or stub left behind; the others go to the trash. ``note``:
    what the window has to say first (a plan from a saved scan, read again from the disk,
    that leaves some of it in place)."""

    def __init__(self, suggestions: list[Suggestion], apparent: bool,
                 parent: QWidget | None = None, tier: Tier | None = None,
                 instead: bool = False, note: str = "") -> None:
        super().__init__(parent)
        work = actions_for(suggestions, instead) if tier is not None else \
            [(s, TRASH) for s in suggestions]
        counts = {action: sum(len(s.items) for s, a in work if a == action)
                  for action in (ARCHIVE, TRASH)}
        self.setWindowTitle("Move to the cold tier?" if counts[ARCHIVE] else
                            "Move to the trash?")
        self.resize(720, 460)
        freed = sum(s.bytes for s in suggestions)
        apparent_total = sum(s.apparent_bytes for s in suggestions)
        layout = QVBoxLayout(self)
        head = (f"<h3>{_where_they_go(counts)}</h3>"
                f"<p>Frees <b>{fmt.size(freed)}</b> on disk ({fmt.size(apparent_total)} "
                f"apparent): {SPACE_BACK_WHEN_EMPTIED}. "
                f"{_risk_line(suggestions)}</p>")
        if note:
            head += f"<p>{html.escape(note)}</p>"
        if counts[ARCHIVE] and tier is not None:
            head += _about_the_tier(tier)
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
        for s, action in work:
            self._list(s, apparent, "" if not counts[ARCHIVE] else
                       " — to the cold tier" if action == ARCHIVE else " — to the trash")
        layout.addWidget(self.paths, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.confirm = buttons.addButton(_button_text(counts),
                                         QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _list(self, s: Suggestion, apparent: bool, going: str) -> None:
        """One suggestion's rows: its folder (and where its items go, when not all go to
        the trash), each item that goes with its size (relative to the folder), then what
        stays and why, greyed."""
        folder = QListWidgetItem(f"in {s.folder}{going}")
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


def _risk_line(suggestions: list[Suggestion]) -> str:
    """"Risk: Safe." for one risk; for several, how many suggestions carry each, since
    "Safe, Review before you confirm" read as one odd phrase."""
    counts = {r: sum(s.risk == r for s in suggestions) for r in RISK_WORDS}
    present = [r for r in RISK_WORDS if counts[r]]
    if len(present) == 1:
        return f"Risk: <b>{RISK_WORDS[present[0]]}</b>."
    return "Risk: " + ", ".join(f"<b>{RISK_SHORT[r]}</b> for "
                                f"{fmt.plural(counts[r], 'suggestion')}" for r in present) + \
        " (each is below)."


def _where_they_go(counts: dict[str, int]) -> str:
    archived, trashed = counts[ARCHIVE], counts[TRASH]
    if not archived:
        return f"{fmt.plural(trashed, 'item')} will be moved to the trash"
    also = f"; {fmt.plural(trashed, 'other')} to the trash" if trashed else ""
    return f"{fmt.plural(archived, 'item')} will move to the cold tier{also}"


def _about_the_tier(tier: Tier) -> str:
    """Where archived items go and what stays at their paths."""
    left = ("a <b>link</b> to the archived copy is left at its path, so code that loads it "
            "keeps working, from the slower disk" if tier.link == "symlink" else
            "a small <b>NAME.mlspace-archived.json</b> stub is left beside its path, saying "
            "where it went")
    return (f"<p>To <b>{tier.destination(os.sep)}…</b> (each keeps its full path below "
            "it). Each item is copied, read back and compared, and only then moved to the "
            f"trash here (a second net); {left}. Raw data is archived, never trashed. "
            "Right-click the link to bring it back.</p>")


def _button_text(counts: dict[str, int]) -> str:
    archived, trashed = counts[ARCHIVE], counts[TRASH]
    if not archived:
        return f"Move {fmt.plural(trashed, 'item')} to the trash"
    return f"Archive {fmt.plural(archived, 'item')}" + (f", trash {trashed}" if trashed else "")


def record_kind(record: CleanupRecord) -> str:
    """What made a journaled run, as the history lists it."""
    if record.meta.get("policy"):
        return "Policy run"
    return {"tier": "Archive", "bring-back": "Bring back"}.get(record.kind, "Cleanup")


def record_state(record: CleanupRecord) -> str:
    """Where a run's items are now: in the trash, archived (a link left), back, or half
    done (an interrupted run, which undo settles)."""
    if record.kind == "bring-back":
        done = any(e["event"] == RESTORED for e in record.events)
        return "brought back" if done else "not brought back"
    if record.undone:
        return "undone"
    archiving = {i["path"] for i in record.items if i.get("dest")}
    archived = sum(e["path"] in archiving for e in record.trashed)
    parts = [f"{archived} archived" if archived else "",
             f"{len(record.trashed) - archived} in the trash"
             if len(record.trashed) > archived else "",
             "interrupted" if record.pending or record.in_flight else ""]
    return ", ".join(p for p in parts if p) or "nothing moved"


def record_freed(record: CleanupRecord, apparent: bool) -> int:
    """What a run freed, in the size mode shown: what is out now, or, once undone, what it
    moved out when it ran (0 bytes still out would say nothing)."""
    if not apparent:
        return record.freed_when_run if record.undone else record.freed
    sizes = {i["path"]: int(i.get("apparent_size", 0)) for i in record.items}
    moved = {e["path"] for e in record.events if e["event"] == TRASHED} if record.undone \
        else {e["path"] for e in record.trashed}
    return sum(sizes.get(path, 0) for path in moved)


class CleanupHistory(QDialog):
    """Past cleanups, archive runs, bring-backs and policy runs (from the journal), newest
    first: when, what, how much (in the size mode the window shows), where the items are
    now; each with its own Undo."""

    COLUMNS = ("When", "Kind", "What", "Freed", "Now")

    def __init__(self, undo: Callable[[str], None], parent: QWidget | None = None,
                 apparent: bool = False) -> None:
        from mlspace.act import history

        super().__init__(parent)
        self.setWindowTitle("Cleanup history")
        self.resize(760, 360)
        self.records = history()
        layout = QVBoxLayout(self)
        self.table = QTreeWidget()
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(self.COLUMNS)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.header()
        header.setStretchLastSection(False)
        for column in range(len(self.COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column == 2
                                        else QHeaderView.ResizeMode.ResizeToContents)
        for record in self.records:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
            row = QTreeWidgetItem([when, record_kind(record), record.title,
                                   fmt.size(record_freed(record, apparent)),
                                   record_state(record)])
            row.setTextAlignment(3, Qt.AlignmentFlag.AlignRight)
            row.setToolTip(2, "\n".join([record.title, f"in {', '.join(record.roots)}",
                                         *([f"to {record.meta['tier']}"]
                                           if record.meta.get("tier") else []),
                                         f"id {record.id}"]))
            self.table.addTopLevelItem(row)
        if not self.records:
            self.table.addTopLevelItem(QTreeWidgetItem(["", "", "No cleanups yet."]))
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.undo_button = buttons.addButton("Undo this cleanup",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.undo_button.setEnabled(False)
        self._undo_with = undo
        self.table.currentItemChanged.connect(
            lambda *_: self.undo_button.setEnabled(self._current() is not None))
        self.undo_button.clicked.connect(self._undo)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _current(self) -> CleanupRecord | None:
        """The selected run, when there is anything of it to undo."""
        item = self.table.currentItem()
        row = self.table.indexOfTopLevelItem(item) if item is not None else -1
        record = self.records[row] if 0 <= row < len(self.records) else None
        if record is None or record.kind == "bring-back":
            return None
        return record if record.trashed or record.pending or record.in_flight else None

    def _undo(self) -> None:
        record = self._current()
        if record is not None:
            self._undo_with(record.id)
            self.accept()
