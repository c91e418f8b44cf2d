"""The notice of policy runs made while the app was closed (a systemd timer, cron): what
ran, what it freed, with Undo. A banner above the window's pages, never a dialog: nobody
asked for it, so it must not stand in the way of what the user opened the app for."""

from __future__ import annotations

import html
import os
import time

from PySide6.QtCore import QSettings, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from mlspace import fmt
from mlspace.act.journal import load
from mlspace.act.policy_runs import policy_runs

SEEN_KEY = "policy/seen"  # when the app last looked for policy runs (seconds since epoch)
SHOWN = 3  # runs listed one by one; the rest are counted (the history lists them all)


def runs_since(seen: float) -> list[dict]:
    """The recorded policy runs (dry runs are not recorded) after ``seen``, newest first."""
    return [r for r in policy_runs() if float(r.get("time", 0)) > seen]


def undoable(run: dict) -> bool:
    """Does the run's journal still have something out of place (not undone since)?"""
    loaded = load(str(run.get("cleanup_id"))) if run.get("cleanup_id") else None
    record = loaded[0] if loaded else None
    return record is not None and record.undoable


def describe(run: dict) -> str:
    """One run in a line: when, which policy, where, what it freed and left."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(run.get("time", 0))))
    roots = ", ".join(run.get("roots", []))
    parts = [f"{run.get('moved_items', 0)} moved"]
    if run.get("skipped_items"):
        parts.append(f"{run['skipped_items']} skipped")
    if run.get("held_items"):
        parts.append(f"{run['held_items']} left for you to review")
    report = run.get("report")
    link = f" <a href=\"{html.escape(report, quote=True)}\">report</a>" \
        if report and os.path.exists(report) else ""
    stopped = f"; stopped early: {html.escape(run['stopped'])}" if run.get("stopped") else ""
    return (f"{when} — {html.escape(os.path.basename(str(run.get('policy', ''))))} on "
            f"{html.escape(roots)}: moved <b>{fmt.size(int(run.get('moved_bytes', 0)))}</b>, "
            f"freed <b>{fmt.size(max(int(run.get('freed', 0)), 0))}</b> "
            f"({', '.join(parts)}{stopped}){link}")


class PolicyRunsBanner(QFrame):
    undo_requested = Signal(list)  # cleanup ids, newest first
    history_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("PolicyRunsBanner { background: palette(alternate-base); }")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.linkActivated.connect(
            lambda path: QDesktopServices.openUrl(QUrl.fromLocalFile(path)))
        self.undo_button = QPushButton("Undo")
        self.undo_button.clicked.connect(self._undo)
        history = QPushButton("Cleanup history…")
        history.clicked.connect(self.history_requested)
        dismiss = QPushButton("Dismiss")
        dismiss.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        for button in (self.undo_button, history, dismiss):
            row.addWidget(button)
        self.ids: list[str] = []
        self.hide()

    def around(self, page: QWidget) -> QWidget:
        """The banner above ``page`` (the window's central widget)."""
        both = QWidget()
        column = QVBoxLayout(both)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self)
        column.addWidget(page, 1)
        return both

    def show_runs_since_last_start(self, store: QSettings) -> None:
        """The runs since the app last started (all recorded ones, the first time)."""
        seen = float(store.value(SEEN_KEY, 0.0, type=float))
        store.setValue(SEEN_KEY, time.time())
        store.sync()
        self.show_runs(runs_since(seen))

    def show_runs(self, runs: list[dict]) -> None:
        if not runs:
            self.hide()
            return
        self.ids = [str(r["cleanup_id"]) for r in runs if undoable(r)]
        moved = sum(int(r.get("moved_bytes", 0)) for r in runs)
        freed = sum(max(int(r.get("freed", 0)), 0) for r in runs)
        head = (f"<b>While mlspace was closed, {fmt.plural(len(runs), 'policy run')} moved "
                f"{fmt.size(moved)} and freed {fmt.size(freed)} on the disk.</b>")
        lines = [describe(r) for r in runs[:SHOWN]]
        if len(runs) > SHOWN:
            lines.append(f"…and {fmt.plural(len(runs) - SHOWN, 'earlier run')} (see the "
                         "cleanup history)")
        self.text.setText(head + "<br>" + "<br>".join(lines))
        self.undo_button.setVisible(bool(self.ids))
        self.undo_button.setText("Undo" if len(self.ids) == 1 else f"Undo all {len(self.ids)}")
        self.undo_button.setToolTip("Put back everything these runs moved (from the trash, "
                                    "or copied back from the cold tier)")
        self.show()

    def _undo(self) -> None:
        self.undo_requested.emit(self.ids)
        self.hide()
