"""Start the desktop app: ``mlspace [PATH...] [--demo] [--screenshot FILE]``.

The command line that leads here (``mlspace``, ``mlspace-gui``) is the CLI's
(``mlspace.cli.app``): it checks what the user named before Qt loads, then calls ``run``."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication

from mlspace.assets import ICON_SIZES, icon_png
from mlspace.ui.main_window import MainWindow


def make_app() -> QApplication:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("mlspace")
    app.setOrganizationName("mlspace")
    app.setApplicationDisplayName("mlspace")
    app.setDesktopFileName("mlspace")  # matches the installed .desktop (taskbar icon, Wayland)
    app.setWindowIcon(app_icon())  # type: ignore[union-attr]
    return app  # type: ignore[return-value]


def app_icon() -> QIcon:
    """The application icon in every shipped size, read through importlib.resources."""
    icon = QIcon()
    for size in ICON_SIZES:
        pixmap = QPixmap()
        pixmap.loadFromData(icon_png(size).read_bytes(), "PNG")
        icon.addPixmap(pixmap)
    return icon


def run(paths: list[str], demo: bool = False, screenshot: str | None = None) -> int:
    app = make_app()
    window = MainWindow()
    window.show()
    if screenshot:
        window.scan_finished.connect(lambda: QTimer.singleShot(
            400, lambda: _save_screenshot(window, screenshot, app)))
        if not paths and not demo:
            demo = True
    if demo:
        QTimer.singleShot(0, window.open_demo)
    elif paths:
        QTimer.singleShot(0, lambda: window.open_paths(paths))
    return app.exec()


def _save_screenshot(window: MainWindow, path: str, app: QApplication) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    ok = window.grab().save(str(target))
    print(f"screenshot {'saved to' if ok else 'could not be saved to'} {target}")
    # Closed, not just left: closing waits for the window's worker threads (the disk line,
    # growth, saving), which a running QThread destroyed at exit would abort on.
    window.close()
    app.exit(0 if ok else 1)
