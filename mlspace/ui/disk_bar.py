"""The disk line above the views: how full each scanned disk is, how much is free, how much
the plan can safely give back, and what waits in the trash, on the first screen, without a
click. It is worked out off the GUI thread (statvfs, and a walk of the trash folders, which
can be large) whenever the plan changes (a scan shown, a cleanup, an undo, an archive), after
a purge, and every half minute (other programs write to the disk too), so it stays what
``df`` says."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from mlspace import fmt
from mlspace.act.purge import PurgeItem
from mlspace.report.disk_status import DiskStatus, disk_status
from mlspace.ui.guard_setup import guard_this_disk
from mlspace.ui.threads import Background
from mlspace.ui.workspace import Workspace

#: How often the line is measured again while nothing happens in the window (ms).
EVERY_MS = 30_000


class DiskBar(QFrame):
    measured = Signal()  # the line shows what was just measured
    told = Signal(str)  # something to say in the status bar (Guard this disk…)

    def __init__(self, ws: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = ws
        self.statuses: list[DiskStatus] = []
        self.setObjectName("disk-bar")
        self.setStyleSheet("#disk-bar { background: palette(alternate-base); }")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 3, 8, 3)
        row.addWidget(self.label, 1)
        self.guard_button = QPushButton("Guard this disk…")
        self.guard_button.setToolTip("Let mlspace free space here before the disk fills "
                                     "(writes a [guard] section to the workspace's policy)")
        self.guard_button.clicked.connect(self._guard)
        self.guard_button.hide()
        row.addWidget(self.guard_button)
        self._background = Background(self)
        self._timer = QTimer(self)
        self._timer.setInterval(EVERY_MS)
        self._timer.timeout.connect(self.refresh)
        ws.plan_changed.connect(self.refresh)
        self.hide()

    def refresh(self) -> None:
        """Measure the disks of the scan shown, in the background (a saved scan's folders
        only where they are on this machine, and only when cleanups are offered for them:
        the disk now says nothing true of another machine's scan)."""
        inv = self.ws.inventory
        if inv is None or self.ws.read_only_reason:
            self.statuses = []
            self.hide()
            return
        roots, plan = tuple(inv.snapshot.roots), self.ws.plan
        self._background.run(lambda: disk_status(roots, plan), self._show, self._failed)
        self._timer.start()

    def _show(self, found: object) -> None:
        self.statuses = list(found)  # type: ignore[call-overload]
        self.label.setText("<br>".join(_line_html(s) for s in self.statuses))
        self.label.setToolTip("\n\n".join(_details(s) for s in self.statuses))
        self.guard_button.setVisible(any(s.guard is None or not s.guard.acting
                                         for s in self.statuses))
        self.setVisible(bool(self.statuses))
        self.measured.emit()

    def _failed(self, message: str) -> None:
        self.label.setText(f"The disk could not be measured: {html.escape(message)}")
        self.show()

    def _guard(self) -> None:
        """*Guard this disk…* for the first disk shown that the guard may not act on."""
        status = next((s for s in self.statuses if s.guard is None or not s.guard.acting),
                      None)
        if status is None:
            return
        said = guard_this_disk(self.window(), status)
        if said is not None:
            self.told.emit(said)
            self.refresh()

    @property
    def in_mlspace_trash(self) -> int:
        return sum(s.mlspace_trash for s in self.statuses)

    @property
    def freeable(self) -> list[PurgeItem]:
        """What mlspace moved to the trash on the disks shown: what Free now deletes."""
        return [i for s in self.statuses for i in s.mlspace_items]

    def wait(self) -> None:
        self._timer.stop()
        self._background.wait()


def _line_html(status: DiskStatus) -> str:
    """The line with its most urgent part in bold: how full the disk is."""
    mount, _, rest = status.line().partition(" — ")
    full, _, tail = rest.partition(" · ")
    guard = f" · {html.escape(status.guard.words())}" if status.guard else ""
    return f"{html.escape(mount)} — <b>{html.escape(full)}</b> · {html.escape(tail)}{guard}"


def _details(status: DiskStatus) -> str:
    fs = status.fs
    lines = [f"{fs.mount}: {fmt.size(fs.size)} in all, {fmt.size(fs.used)} used, "
             f"{fmt.size(fs.available)} free for you"
             + (f" and {fmt.size(fs.reserved)} more kept for root" if fs.reserved else ""),
             f"Scanned here: {', '.join(status.roots)}"]
    if status.reclaimable:
        lines.append(f"The suggestions free {fmt.size(status.reclaimable)}, "
                     f"{fmt.size(status.reclaimable_safe)} of it safely.")
    if status.in_trash:
        lines.append(f"In the trash on this disk: {fmt.size(status.in_trash)}, "
                     f"{fmt.size(status.mlspace_trash)} of it moved there by mlspace (Free "
                     "now deletes that for good; the rest is yours to empty).")
    return "\n".join(lines)

