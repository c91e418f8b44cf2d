"""A cold tier on a network mount that stops answering (a hard NFS mount whose server is
gone blocks every stat) never freezes the window: the check runs off the GUI thread, the
user is told the disk does not answer, nothing is moved, and the answer is taken when it
comes (Settings) or dropped (an archive the user was already told did not start)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from archive_helpers import WAIT_MS, name_tier, workspace
from gui_helpers import open_window, right_click_row
from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from mlspace.act import tier as tier_module
from mlspace.act import trash as trash_module
from mlspace.ui import disk_question, settings_dialog
from mlspace.ui.cleanup_dialogs import ConfirmCleanup

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


@pytest.fixture
def hung_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every check of a cold tier blocks until the event is set (the server comes back);
    the app's patience is cut to a fifth of a second."""
    server_back = threading.Event()
    real_check = tier_module.Tier.check

    def hangs(self: tier_module.Tier) -> None:
        server_back.wait(60)
        real_check(self)

    monkeypatch.setattr(tier_module.Tier, "check", hangs)
    monkeypatch.setattr(disk_question, "PATIENCE", 0.2)
    yield server_back
    server_back.set()


class Heartbeat:
    """The longest gap between ticks of a 10 ms timer: how long the window was frozen."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.clock.start()
        self.longest = 0
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(10)

    def _tick(self) -> None:
        self.longest = max(self.longest, self.clock.restart())


def test_settings_say_the_tier_does_not_answer_and_take_the_answer_later(
        qtbot: QtBot, tmp_path: Path, hung_disk: threading.Event) -> None:
    root, _ = workspace(tmp_path)
    window = open_window(qtbot, root)
    window.tiering.show_settings()
    dialog = window.settings_dialog
    assert isinstance(dialog, settings_dialog.SettingsDialog)
    cold = tmp_path / "cold"
    cold.mkdir()
    beat = Heartbeat()
    dialog.root.setText(str(cold))
    qtbot.waitUntil(lambda: "does not answer" in dialog.problem.text(), timeout=WAIT_MS)
    assert not dialog.save_button.isEnabled()
    dialog.accept()  # Enter in the dialog: nothing is saved while the folder is asked
    assert dialog.isVisible()
    assert beat.longest < 1000  # the window kept running while the disk hung
    hung_disk.set()  # the server is back
    qtbot.waitUntil(lambda: not dialog.question.waiting, timeout=WAIT_MS)
    assert "does not answer" not in dialog.problem.text()
    assert dialog.save_button.isEnabled()


def test_archiving_to_a_tier_that_hangs_moves_nothing_and_says_why(
        qtbot: QtBot, tmp_path: Path, hung_disk: threading.Event) -> None:
    cold = tmp_path / "cold"
    cold.mkdir()
    name_tier(cold)
    root, run = workspace(tmp_path)
    window = open_window(qtbot, root)
    beat = Heartbeat()
    actions = right_click_row(window, str(run / "checkpoint-20"))
    next(a for a in actions if a.text().startswith("Move to the cold tier…")).trigger()
    assert "Checking the cold tier" in window.status.text()
    qtbot.waitUntil(lambda: "does not answer" in window.status.text(), timeout=WAIT_MS)
    assert f"Nothing was moved: the cold tier at {cold} does not answer" in \
        window.status.text()
    assert beat.longest < 1000
    # the answer comes after the user was told: once it has reached the window (the relay
    # hands it to the GUI thread), no dialog has popped up (one that did is refused, so
    # that its modal loop cannot hang the test, and counted)
    popped: list[ConfirmCleanup] = []

    def refuse_a_dialog() -> None:
        dialog = getattr(window, "last_dialog", None)
        if isinstance(dialog, ConfirmCleanup) and dialog.isVisible():
            popped.append(dialog)
            dialog.reject()

    guard = QTimer()
    guard.timeout.connect(refuse_a_dialog)
    guard.start(10)
    with qtbot.waitSignal(disk_question._the_relay().answered, timeout=WAIT_MS):
        hung_disk.set()
    QApplication.processEvents()
    guard.stop()
    assert popped == []
    assert not isinstance(getattr(window, "last_dialog", None), ConfirmCleanup)
    assert (run / "checkpoint-20").is_dir()
