"""GUI tests run offscreen with pytest-qt; each gets a fresh demo workspace on disk.

On a machine without Qt's runtime libraries (a slim image) the whole folder is skipped,
saying which library is missing and what to install, instead of erroring at collection.
That skip is not on CI's allowlist (tests/conftest.py): .ci/run installs the libraries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

try:
    import PySide6.QtGui  # noqa: F401 - loads libEGL, libGL, libxkbcommon, libfontconfig
    import PySide6.QtWidgets  # noqa: F401
except ImportError as err:
    pytest.skip(f"Qt's runtime libraries are missing ({err}); on Debian/Ubuntu: apt install "
                "libglib2.0-0 libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 "
                "libdbus-1-3",
                allow_module_level=True)

from gui_helpers import open_window  # noqa: E402

from mlspace.demo import generate  # noqa: E402
from mlspace.ui.main_window import MainWindow  # noqa: E402


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    return generate(tmp_path / "ws")


@pytest.fixture
def window(qtbot, demo_root: Path) -> MainWindow:  # noqa: ANN001
    return open_window(qtbot, demo_root)


@pytest.fixture(autouse=True)
def no_modal_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A modal message box would block an offscreen test forever: make it fail the test."""
    from PySide6.QtWidgets import QMessageBox

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"unexpected dialog: {args[1:3]}")

    for name in ("critical", "warning", "information", "question"):
        monkeypatch.setattr(QMessageBox, name, refuse)
