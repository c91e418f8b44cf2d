"""The About dialog says which walker scans: the native one, or the Python one and why."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from mlspace.scan.native import ENV, native_problem
from mlspace.ui.main_window import MainWindow


def _about_says(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> str:
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: said.append(text))
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    next(a for a in help_menu.actions() if a.text() == "&About mlspace").trigger()
    assert len(said) == 1
    return said[0]


@pytest.mark.skipif(native_problem() is not None, reason=native_problem() or "")
def test_about_names_the_native_walker(window: MainWindow,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert "native walker (C extension" in _about_says(window, monkeypatch)


def test_about_names_the_python_walker_and_why(window: MainWindow,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "python")
    assert f"Python walker ({ENV}=python)" in _about_says(window, monkeypatch)
