"""The window gives the disk back as `df` sees it: the disk line above the views, a cleanup
that says its bytes are still on this disk, *Free … now…* in the status bar and the box in
the confirmation, each clicked as a person would, on a workspace that is a tmpfs of its
own (its free space moves only with what the window does)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from gui_helpers import open_window, right_click_row
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from mlspace import fmt
from mlspace.act import trash as trash_module
from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.main_window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from workspaces import hf_run  # noqa: E402

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")

WAIT_MS = 30_000



def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _measured(window: MainWindow, qtbot: QtBot) -> str:
    """The disk line once it was measured again (it is worked out in the background)."""
    with qtbot.waitSignal(window.disk_bar.measured, timeout=WAIT_MS):
        window.disk_bar.refresh()
    return window.disk_bar.statuses[0].line()


def _clean_by_right_click(window: MainWindow, qtbot: QtBot, run: Path,
                          free_now: bool = False) -> ConfirmCleanup:
    seen: dict[str, ConfirmCleanup] = {}

    def press() -> None:
        dialog = getattr(window, "last_dialog", None)
        if not isinstance(dialog, ConfirmCleanup) or not dialog.isVisible():
            QTimer.singleShot(20, press)
            return
        seen["dialog"] = dialog
        if free_now:
            box = dialog.free_now  # its indicator, at the left
            qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
        seen["button"] = dialog.confirm.text()  # type: ignore[assignment]
        dialog.confirm.click()

    keep = next(a for a in right_click_row(window, str(run)) if a.text().startswith("Keep best"))
    QTimer.singleShot(20, press)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        keep.trigger()
    return seen["dialog"]


def test_clean_then_free_now_and_every_number_follows_df(qtbot: QtBot, disk: Path) -> None:
    root = disk / "ws"
    run = hf_run(root)
    window = open_window(qtbot, root)
    line = _measured(window, qtbot)
    assert window.disk_bar.isVisible() and line.startswith(f"{disk} — ")
    assert f"{fmt.size(_free(disk))} free" in line
    plan_safe = sum(i.disk_usage for s in window.ws.plan.suggestions if s.risk == "safe"
                    for i in s.items)
    assert f"{fmt.size(plan_safe)} reclaimable (safe)" in line

    before = _free(disk)
    _clean_by_right_click(window, qtbot, run)
    status = window.status.text()
    assert "to the trash, still on this disk" in status and "Freed" not in status
    line = _measured(window, qtbot)
    moved = window.disk_bar.statuses[0].mlspace_trash
    assert moved > 0 and f"{fmt.size(moved)} in mlspace's trash" in line
    assert _free(disk) <= before  # the trash is on this disk: nothing came back
    button = window.freeing.button
    assert button.isVisible() and button.text() == f"Free {fmt.size(moved)} now…"

    def answer() -> None:
        box = getattr(window.freeing, "last_question", None)
        if not isinstance(box, QMessageBox) or not box.isVisible():
            QTimer.singleShot(20, answer)
            return
        assert "cannot be undone" in box.informativeText()
        delete = next(b for b in box.buttons() if b.text().startswith("Delete "))
        delete.click()

    ahead = _free(disk)
    QTimer.singleShot(20, answer)
    with qtbot.waitSignal(window.freed_finished, timeout=WAIT_MS):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    gained = _free(disk) - ahead
    assert gained >= moved
    assert window.status.text().startswith(f"Freed {fmt.size(gained)}: the disk has that much "
                                           "more free space (3 items deleted for good)")
    line = window.disk_bar.statuses[0].line()
    assert "in mlspace's trash" not in line and f"{fmt.size(_free(disk))} free" in line
    assert not button.isVisible()
    window.history_action.trigger()
    newest = window.history_dialog.table.topLevelItem(0)
    assert newest.text(5) == "3 freed" and newest.text(4) == fmt.size(gained)
    window.history_dialog.close()


def test_the_confirmation_can_free_the_space_at_once(qtbot: QtBot, disk: Path) -> None:
    root = disk / "ws"
    run = hf_run(root)
    window = open_window(qtbot, root)
    before = _free(disk)
    dialog = _clean_by_right_click(window, qtbot, run, free_now=True)
    assert dialog.free_now.isChecked()
    gained = _free(disk) - before
    assert gained > 0
    assert window.status.text().startswith(f"Freed {fmt.size(gained)} on this disk (3 items "
                                           "deleted for good: checkpoint-20, ")
    assert os.listdir(disk / f".Trash-{os.getuid()}" / "files") == []


def test_the_app_frees_what_is_past_the_trash_retention_when_it_starts(
        qtbot: QtBot, disk: Path, isolated_user_dirs: Path) -> None:
    from mlspace.act import execute
    from mlspace.advise import advise
    from mlspace.classify import classify
    from mlspace.scan import ScanOptions, scan

    root = disk / "ws"
    hf_run(root)
    plan = advise(classify(scan([root], ScanOptions(workers=1))))
    retention = [s for s in plan.suggestions if s.policy == "checkpoint-retention"]
    assert execute(retention, plan.roots, recent_seconds=0).done
    config = isolated_user_dirs / ".config" / "mlspace" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("trash_days = 1e-9\n")  # 86 µs: what the cleanup moved is past it
    before = _free(disk)
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.cleaner.freed, timeout=WAIT_MS):
        window.show()
    assert _free(disk) > before
    assert "past the trash retention deleted for good" in window.status.text()
    assert os.listdir(disk / f".Trash-{os.getuid()}" / "files") == []
