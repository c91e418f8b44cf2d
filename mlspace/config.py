"""Where mlspace keeps its files, per platform (platformdirs): settings and rules in the config
dir, the cleanup journal in the data dir. Created on first use."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "mlspace"


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
