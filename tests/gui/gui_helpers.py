"""Driving the real widgets as a person would: right-click a tree row, confirm a cleanup."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.main_window import MainWindow


def right_click_row(window: MainWindow, path: str) -> list:  # noqa: ANN202
    snap = window.ws.inventory.snapshot
    index = window.model.index_of(snap.find(path))
    window.tree.scrollTo(index)
    pos = window.tree.visualRect(index).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                              window.tree.viewport().mapToGlobal(pos))
    QApplication.sendEvent(window.tree.viewport(), event)
    return window.last_menu.actions()


def confirm_when_asked(window: MainWindow, accept: bool = True) -> None:
    def press() -> None:
        dialog = getattr(window, "last_dialog", None)
        if isinstance(dialog, ConfirmCleanup) and dialog.isVisible():
            (dialog.confirm.click if accept else dialog.reject)()
        else:
            QTimer.singleShot(20, press)

    QTimer.singleShot(20, press)
