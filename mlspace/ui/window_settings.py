"""Where the window keeps what it remembers between runs: its layout, the size mode, the
recent folders and the report folder, in an INI file in mlspace's platformdirs config
folder (beside config.toml, which the CLI shares; this file is the app's alone)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from mlspace.config import config_dir


def settings() -> QSettings:
    """The app's stored settings (read and written at once: QSettings caches and syncs)."""
    return QSettings(str(config_dir() / "mlspace.ini"), QSettings.Format.IniFormat)


def restore_layout(window: QMainWindow, splitters: Mapping[str, QSplitter]) -> bool:
    """The window's size and place and its splitters' (``splitters``: by key, as
    save_layout stored them), as they were left; returns the size mode last shown."""
    store = settings()
    geometry = store.value("window/geometry")
    if geometry is not None:
        window.restoreGeometry(geometry)
    else:
        window.resize(1280, 820)
    for key, splitter in splitters.items():
        state = store.value(f"window/{key}")
        if state is not None:
            splitter.restoreState(state)
    return bool(store.value("view/apparent", False, type=bool))


def save_layout(window: QMainWindow, splitters: Mapping[str, QSplitter],
                apparent: bool | None) -> None:
    """Remember the window's layout, and the size mode shown (None: leave it, as for the
    demo, which is always shown in apparent sizes)."""
    store = settings()
    store.setValue("window/geometry", window.saveGeometry())
    for key, splitter in splitters.items():
        store.setValue(f"window/{key}", splitter.saveState())
    if apparent is not None:
        store.setValue("view/apparent", apparent)
