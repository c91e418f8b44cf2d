"""The folders scanned lately, offered twice: in *File → Open recent* and as links on the
welcome page, where folders that look like ML projects (mlspace.discover) are offered too."""

from __future__ import annotations

import html
import os

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QMenu, QWidget

from mlspace.ui.window_settings import settings

MAX_RECENT = 10
#: How many recent folders the welcome page lists (the menu lists them all).
SHOWN_ON_WELCOME = 5


def _links(paths: list[str]) -> str:
    return "<br>".join(f"<a href=\"{html.escape(p, quote=True)}\">{html.escape(p)}</a>"
                       for p in paths)


class RecentFolders(QObject):
    """Owns the menu and the welcome page's links; ``chosen`` says which folder to open."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.menu = QMenu("Open &recent", parent)
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.linkActivated.connect(self.chosen.emit)

    def paths(self) -> list[str]:
        """The recent folders, newest first (some may be gone since)."""
        value = settings().value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def remember(self, paths: list[str]) -> None:
        """Put ``paths`` first, keeping MAX_RECENT folders."""
        recent = [p for p in self.paths() if p not in paths]
        store = settings()
        store.setValue("recent", (paths + recent)[:MAX_RECENT])
        store.sync()
        self.refresh()

    def refresh(self) -> None:
        """Offer the recent folders that still exist, and the likely ML folders found."""
        from mlspace.discover import likely_ml_folders

        recent = [p for p in self.paths() if os.path.exists(p)]
        self.menu.clear()
        for path in recent:
            self.menu.addAction(path, lambda p=path: self.chosen.emit(p))
        self.menu.setEnabled(bool(recent))
        parts = []
        if recent:
            parts.append(f"<p>Recent folders:<br>{_links(recent[:SHOWN_ON_WELCOME])}</p>")
        likely = [p for p in likely_ml_folders() if p not in recent]
        if likely:
            parts.append(f"<p>These look like ML folders:<br>{_links(likely)}</p>")
        self.label.setText("".join(parts))
