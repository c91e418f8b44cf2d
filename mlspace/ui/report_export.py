"""*File → Export report…* (also the Suggestions tab's *Export report…*): the report of
what is shown, in the size mode shown and the format the file's extension names, built and
written in a worker thread (with the growth section it reads the history's previous scan:
seconds on a million entries), with the status line saying when it is written."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog

from mlspace.ui.threads import Background
from mlspace.ui.window_settings import settings

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts

FORMATS = ("HTML report (*.html);;CSV, one row per item (*.csv);;JSON (*.json);;"
           "Markdown summary (*.md)")


class ReportExport(QObject):
    """Owned by the window; ``written`` gives the report's path once it is written or
    refused (the status line says which)."""

    written = Signal(str)

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.worker = Background(self)

    def choose_file(self) -> None:
        """Ask where to write it, starting in the folder chosen last time."""
        ws = self.window.ws
        if ws.inventory is None or ws.plan is None:
            self.window.status.setText("Scan a folder first, then export its report.")
            return
        store = settings()
        folder = store.value("report/folder", os.path.expanduser("~"))
        name = os.path.basename(ws.inventory.snapshot.roots[0].rstrip("/")) or "disk"
        path, _ = QFileDialog.getSaveFileName(
            self.window, "Export report", os.path.join(str(folder), f"mlspace-{name}.html"),
            FORMATS)
        if path:
            store.setValue("report/folder", os.path.dirname(path))
            self.export(path)

    def export(self, path: str) -> None:
        """Write the report of the scan and plan shown to ``path``, in the background."""
        ws, status = self.window.ws, self.window.status
        if ws.inventory is None or ws.plan is None:
            return
        if self.worker.running:
            status.setText("A report is being written; export again once it is done.")
            return
        inventory, plan, apparent = ws.inventory, ws.plan, ws.apparent  # as on screen
        source = self.window.source
        scanned = source.info.finished if source is not None else None

        def write() -> str:
            from mlspace.report.model import build_report
            from mlspace.report.render import renderer_for

            report = build_report(inventory, plan, scanned_at=scanned or None,
                                  apparent=apparent)
            text = renderer_for(path)(report)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            return path

        def done(_: object) -> None:
            status.setText(f"Report written to {path}")
            self.written.emit(path)

        def failed(message: str) -> None:
            status.setText(f"Could not write the report: {message}")
            self.written.emit(path)

        status.setText(f"Writing the report to {path}…")
        self.worker.run(write, done, failed)

    def wait(self) -> None:
        """Let a report being written finish (closing: half a report is worse than late)."""
        self.worker.wait()
