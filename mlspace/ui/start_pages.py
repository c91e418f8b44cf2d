"""The two pages shown before the views: the welcome page (open a folder, try the demo,
recent and likely ML folders) and the scanning page (how far the scan is, the top levels
filling in with running totals, Cancel)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.scan import ScanProgress
from mlspace.ui.growing_view import GrowingTree


def _centred(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    return label


def _button_row(*buttons: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addStretch()
    for button in buttons:
        row.addWidget(button)
    row.addStretch()
    return row


class WelcomePage(QWidget):
    """What a first start shows; ``links`` lists recent and likely ML folders."""

    open_requested = Signal()
    demo_requested = Signal()

    def __init__(self, links: QLabel) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.addStretch()
        layout.addWidget(_centred("<h1>Where did the disk go?</h1>"
                                  "<p>Open an ML project folder, or try the demo workspace.</p>"))
        self.open_button = QPushButton("Open a folder…")
        self.open_button.clicked.connect(self.open_requested.emit)
        self.demo_button = QPushButton("Try the demo")
        self.demo_button.clicked.connect(self.demo_requested.emit)
        layout.addLayout(_button_row(self.open_button, self.demo_button))
        layout.addWidget(links)
        layout.addWidget(_centred("<p style='color:gray'>You can also drop folders or saved "
                                  "scans on this window.</p>"))
        layout.addStretch()


class ScanningPage(QWidget):
    """A scan's progress: files, bytes and rate, the folder being read, and the roots' top
    levels with their running totals (``growing``), which the user may already select."""

    cancel_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        self.title = _centred("<h2>Scanning…</h2>")
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 0)  # busy: how much is left is not known
        self.text = _centred()
        self.where = _centred()
        self.where.setStyleSheet("color: gray")
        for widget in (self.title, self.progress_bar, self.text, self.where):
            layout.addWidget(widget)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        layout.addLayout(_button_row(self.cancel_button))
        self.growing = GrowingTree()
        layout.addWidget(self.growing, 1)

    def start(self, title: str, text: str, where: str = "", apparent: bool = False) -> None:
        """A new scan or saved scan is read: ``title`` in rich text, the rest plain."""
        self.title.setText(title)
        self.text.setText(text)
        self.where.setText(self.elide(where))
        self.growing.start_over(apparent=apparent)

    def show_progress(self, p: ScanProgress, growing: bool = True) -> str:
        """Show how far the scan is (and with ``growing``, its top levels); returns the
        line of counts, for a status bar that shows a rescan's progress instead."""
        rate = p.files / p.elapsed if p.elapsed > 0 else 0
        self.text.setText(f"{fmt.count(p.files)} files · {fmt.size(p.bytes)} · "
                          f"{fmt.count(int(rate))} files/s")
        self.where.setText(self.elide(p.current_dir))
        if growing:
            self.growing.show_entries(p.growing)
        return self.text.text()

    def elide(self, text: str) -> str:
        """A long path shortened in the middle to the page's width (both ends tell)."""
        return self.where.fontMetrics().elidedText(
            text, Qt.TextElideMode.ElideMiddle, max(200, self.width() - 80))
