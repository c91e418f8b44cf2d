"""The disk line shows what the guard saw (its forecast and its state), and *Guard this
disk…*, clicked as a person would, writes the [guard] section to the workspace's policy
after one question."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gui_helpers import open_window
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from mlspace.act.policy import load
from mlspace.guard import state as saved
from mlspace.guard.rounds import guard_round

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from workspaces import hf_run  # noqa: E402

WAIT_MS = 30_000


def _guarded_once(root: Path) -> None:
    """Two rounds of the guard a minute apart, with 20 MiB written between them."""
    state = saved.GuardState()
    now = time.time() - 60
    guard_round([str(root)], {str(root): None}, state, now=now, warn=lambda *a: [])
    (root / "log.bin").write_bytes(b"\1" * (20 << 20))
    guard_round([str(root)], {str(root): None}, state, now=now + 60, warn=lambda *a: [])
    saved.save(state)


def test_the_line_shows_the_guard_and_guard_this_disk_writes_the_policy(
        qtbot: QtBot, disk: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    _guarded_once(root)
    window = open_window(qtbot, root)
    bar = window.disk_bar
    with qtbot.waitSignal(bar.measured, timeout=WAIT_MS):
        bar.refresh()
    text = bar.label.text()
    assert "fills in ~" in text and "at the current rate" in text, text
    assert "fills in ~12 min" in text and "guard: warned" in text  # 236 MiB at 20 MiB/min
    assert bar.guard_button.isVisible()

    answered = {}

    def press() -> None:
        box = getattr(window, "last_dialog", None)
        if not isinstance(box, QMessageBox) or not box.isVisible():
            QTimer.singleShot(20, press)
            return
        answered["text"] = box.text()
        next(b for b in box.buttons() if b.text().startswith("Write")).click()

    QTimer.singleShot(20, press)
    with qtbot.waitSignal(bar.measured, timeout=WAIT_MS):
        bar.guard_button.click()
    assert "keep_free" in answered["text"] and "never" in answered["text"].lower()
    policy = load(str(root / "mlspace-policy.toml"))
    assert policy.guard is not None and policy.guard.act
    assert policy.guard.keep_free == 1 << 30  # a tenth of this 256 MiB disk rounds to 1 GiB
    assert "Wrote a [guard] section" in window.status.text()
    assert "mlspace guard --install" in window.status.text()


def test_saying_no_writes_nothing(qtbot: QtBot, disk: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    window = open_window(qtbot, root)
    bar = window.disk_bar
    with qtbot.waitSignal(bar.measured, timeout=WAIT_MS):
        bar.refresh()
    assert "guard: off" in bar.label.text()

    def press() -> None:
        box = getattr(window, "last_dialog", None)
        if not isinstance(box, QMessageBox) or not box.isVisible():
            QTimer.singleShot(20, press)
            return
        box.button(QMessageBox.StandardButton.Cancel).click()

    QTimer.singleShot(20, press)
    bar.guard_button.click()
    assert not (root / "mlspace-policy.toml").exists()
