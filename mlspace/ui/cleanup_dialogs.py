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
    QCheckBox,
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
from mlspace.act.executor import ARCHIVE, TRASH
from mlspace.act.journal import CleanupRecord
from mlspace.act.tier import Tier
from mlspace.act.trash import SPACE_BACK_WHEN_EMPTIED
from mlspace.advise import KeptItem, PlanItem, Suggestion
from mlspace.advise.archive import ARCHIVE_POLICIES
from mlspace.report.cleanups import can_free, record_kind, record_sizes, record_state

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
        total = sum(s.bytes for s in suggestions)
        apparent_total = sum(s.apparent_bytes for s in suggestions)
        layout = QVBoxLayout(self)
        head = (f"<h3>{_where_they_go(counts)}</h3>"
                f"<p><b>{fmt.size(total)}</b> on disk ({fmt.size(apparent_total)} apparent)"
                f"{_what_it_frees(counts)} {_risk_line(suggestions)}</p>")
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
        self.free_now = QCheckBox("Free the space now: delete what goes to the trash for good "
                                  "right after (this cannot be undone)")
        self.free_now.setVisible(bool(counts[TRASH]))
        layout.addWidget(self.free_now)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.confirm = buttons.addButton(_button_text(counts),
                                         QDialogButtonBox.ButtonRole.AcceptRole)
        self.free_now.toggled.connect(lambda on: self.confirm.setText(
            _button_text(counts, deleting=on)))
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


def _what_it_frees(counts: dict[str, int]) -> str:
    """What the disk gets back, and when: the trash is on the same disk."""
    parts = []
    if counts[ARCHIVE]:
        parts.append("what is archived leaves this disk once its copy is verified")
    if counts[TRASH]:
        parts.append(f"what goes to the trash stays on this disk until freed: "
                     f"{SPACE_BACK_WHEN_EMPTIED}, and undo works until then")
    return ": " + "; ".join(parts) + "." if parts else "."


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
            "it). Each item is copied, read back and compared, and only then removed from "
            f"this disk, freeing it; {left}. Raw data is archived, never trashed. "
            "Right-click the link to bring it back (it is checked against what was "
            "archived first).</p>")


def _button_text(counts: dict[str, int], deleting: bool = False) -> str:
    archived, trashed = counts[ARCHIVE], counts[TRASH]
    if not archived:
        return f"Delete {fmt.plural(trashed, 'item')} for good" if deleting else \
            f"Move {fmt.plural(trashed, 'item')} to the trash"
    return f"Archive {fmt.plural(archived, 'item')}" + (f", trash {trashed}" if trashed else "")


class CleanupHistory(QDialog):
    """Past cleanups, archive runs, bring-backs and policy runs (from the journal), newest
    first: when, what, how much moved and how much the disk got back, where the items are
    now; each with its own Undo, and Free now for what waits in the trash."""

    COLUMNS = ("When", "Kind", "What", "Moved", "Freed", "Now")

    def __init__(self, undo: Callable[[str], None], parent: QWidget | None = None,
                 free: Callable[[CleanupRecord], None] | None = None,
                 apparent: bool = False) -> None:
        """``apparent``: what moved is said in the size mode the window shows (what the
        disk got back is always its own bytes)."""
        super().__init__(parent)
        self.apparent = apparent
        self.setWindowTitle("Cleanup history")
        self.resize(760, 360)
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
        # What of the journal could not be used (a damaged or foreign file, a folder others
        # can write), as the CLI says it: the rest stays listed and undoable.
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fill()
        layout.addWidget(self.problems)
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.undo_button = buttons.addButton("Undo this cleanup",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.undo_button.setEnabled(False)
        self.free_button = buttons.addButton("Free now…", QDialogButtonBox.ButtonRole.ActionRole)
        self.free_button.setToolTip("Delete for good what this cleanup moved to the trash: the "
                                    "disk gets the space back; this cannot be undone")
        self.free_button.setEnabled(False)
        self.free_button.setVisible(free is not None)
        self._undo_with, self._free_with = undo, free
        self.table.currentItemChanged.connect(self._selected)
        self.undo_button.clicked.connect(self._undo)
        self.free_button.clicked.connect(self._free)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def fill(self) -> None:
        """The rows, from the journal as it is now (again after a purge or an undo)."""
        from mlspace.act.journal import read_history

        self.records, problems = read_history()
        self.problems.setText("\n".join(f"⚠ {problem[:1].upper()}{problem[1:]}"
                                        for problem in problems))
        self.problems.setVisible(bool(problems))
        self.table.clear()
        for record in self.records:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
            moved, freed = record_sizes(record, self.apparent)
            row = QTreeWidgetItem([when, record_kind(record), record.title, moved,
                                   freed or "—", record_state(record)])
            row.setTextAlignment(3, Qt.AlignmentFlag.AlignRight)
            row.setTextAlignment(4, Qt.AlignmentFlag.AlignRight)
            row.setToolTip(2, "\n".join([record.title, f"in {', '.join(record.roots)}",
                                         *([f"to {record.meta['tier']}"]
                                           if record.meta.get("tier") else []),
                                         f"id {record.id}"]))
            self.table.addTopLevelItem(row)
        if not self.records:
            self.table.addTopLevelItem(QTreeWidgetItem(["", "", "No cleanups yet."]))

    def _selected(self, *_: object) -> None:
        record = self._record()
        self.undo_button.setEnabled(self._current() is not None)
        self.free_button.setEnabled(record is not None and can_free(record))
        if record is not None and can_free(record):
            self.free_button.setText(f"Free {fmt.size(record.bytes_in_trash)} now…")
        else:
            self.free_button.setText("Free now…")

    def _record(self) -> CleanupRecord | None:
        item = self.table.currentItem()
        row = self.table.indexOfTopLevelItem(item) if item is not None else -1
        return self.records[row] if 0 <= row < len(self.records) else None

    def _current(self) -> CleanupRecord | None:
        """The selected run, when there is anything of it to undo."""
        record = self._record()
        if record is None or record.kind == "bring-back":
            return None
        return record if record.undoable and not (record.purged and not record.in_trash
                                                  and not record.archived) else None

    def _free(self) -> None:
        record = self._record()
        if record is not None and self._free_with is not None and can_free(record):
            self._free_with(record)

    def _undo(self) -> None:
        record = self._current()
        if record is not None:
            self._undo_with(record.id)
            self.accept()
