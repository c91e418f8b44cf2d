"""GUI tests run offscreen with pytest-qt; each gets a fresh demo workspace on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

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
