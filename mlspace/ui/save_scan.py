"""File → Save scan… in the window: where to write the scan shown, written in the background
(mlspace.ui.saved_scans.SaveController), and what the status line says when it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from mlspace.ui.saved_scans import SaveController, ask_where_to_save

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts


class SaveScan(QObject):
    """Owned by the window (its Qt parent); ``window`` is what it reaches of it."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)  # type: ignore[arg-type]
        self.window = window
        self.saver = SaveController(self)
        self.saver.saved.connect(self._saved)

    def choose_file(self) -> None:
        """The scan shown as it was made, as mlspace's index or ncdu's export (the
        extension chooses)."""
        window, ws = self.window, self.window.ws
        if ws.inventory is None or window.source is None:
            window.status.setText("Scan a folder or open a saved scan first, then save it.")
            return
        path = ask_where_to_save(window, window.source)  # type: ignore[arg-type]
        if path:
            problem = self.saver.save(path, ws.inventory, window.source.info)
            window.status.setText(f"Cannot save the scan: {problem}" if problem else
                                  f"Saving the scan to {path}…")

    def _saved(self, path: str, problem: str) -> None:
        status = self.window.status
        if problem:
            status.setText(f"Could not save the scan: {problem}")
            return
        moved = " (as scanned: what went to the trash since is in it; F5 first to save what " \
            "is there now)" if self.window.ws.removed.any() else ""
        status.setText(f"Scan saved to {path}{moved}")
