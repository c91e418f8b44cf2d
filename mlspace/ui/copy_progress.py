"""A long copy's progress in the status bar (archiving, bringing back, copying back on
undo): what is copied, bytes, rate and time left, and Cancel. It is not a dialog: the
window stays usable while checkpoints of many GiB cross to the cold tier."""

from __future__ import annotations

import os
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from mlspace.act.tier import progress_words
from mlspace.ui.cleanup_controller import CleanupController

#: The line's widest: the status bar's own message needs the rest at 1024 px.
LABEL_WIDTH = 380
STEPS = 1000


class CopyProgress(QWidget):
    def __init__(self, controller: CleanupController) -> None:
        super().__init__()
        self.controller = controller
        self.label = QLabel()
        self.label.setFixedWidth(LABEL_WIDTH)
        self.bar = QProgressBar()
        self.bar.setRange(0, STEPS)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(90)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop: the item being copied is rolled back (its "
                                      "original is untouched); nothing more is moved")
        self.cancel_button.clicked.connect(self._cancel)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.bar)
        row.addWidget(self.cancel_button)
        self._started = 0.0
        controller.copying.connect(self.show_progress)
        controller.idle.connect(self.hide)
        self.hide()

    def show_progress(self, verb: str, done: int, total: int, path: str) -> None:
        """One update: the first of a job shows the line (the rate counts from there)."""
        if not self.isVisible():
            self._started = time.monotonic()
            self.cancel_button.setEnabled(self.controller.cancellable)
            self.cancel_button.setText("Cancel")
            self.show()
        words = progress_words(done, total, time.monotonic() - self._started)
        metrics = self.label.fontMetrics()
        room = LABEL_WIDTH - metrics.horizontalAdvance(f": {words}") - 4
        what = metrics.elidedText(f"{verb} {os.path.basename(path.rstrip(os.sep))}",
                                  Qt.TextElideMode.ElideMiddle, max(room, 0))
        self.label.setText(f"{what}: {words}")  # the numbers whole: the name gives way
        self.label.setToolTip(f"{verb} {path}\n{words}")
        self.bar.setValue(min(STEPS, done * STEPS // total) if total else 0)

    def _cancel(self) -> None:
        self.controller.cancel()
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancelling…")
