"""Where the window keeps what it remembers between runs: its layout, the size mode, the
recent folders and the report folder, in an INI file in mlspace's platformdirs config
folder (beside config.toml, which the CLI shares; this file is the app's alone)."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from mlspace.config import config_dir


def settings() -> QSettings:
    """The app's stored settings (read and written at once: QSettings caches and syncs)."""
    return QSettings(str(config_dir() / "mlspace.ini"), QSettings.Format.IniFormat)
