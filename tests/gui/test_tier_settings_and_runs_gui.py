"""Issue 16 in the app, around the archiving itself: Edit → Settings… (the cold tier,
checked as it is typed, and the ages, saved to the config.toml the CLI reads; what the scan
history costs), the history listing archive and policy runs beside cleanups, each with
Undo, and the start-up notice of policy runs made while the app was closed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from archive_helpers import (
    ARCHIVE_KEPT,
    WAIT_MS,
    name_tier,
    suggestion_row,
    workspace,
)
from cleanup_helpers import mount_tmpfs, tree_digest, unmount
from gui_helpers import clean_checked, confirm_when_asked, open_window
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from workspaces import age

from mlspace.act import trash as trash_module
from mlspace.cli import main as run_cli
from mlspace.config import Settings, load_settings
from mlspace.index.history import KEEP_LAST
from mlspace.ui.cleanup_dialogs import CleanupHistory
from mlspace.ui.main_window import MainWindow
from mlspace.ui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def _settings_dialog(window: MainWindow) -> SettingsDialog:
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    next(a for a in edit.actions() if a.text() == "&Settings…").trigger()
    dialog = window.settings_dialog
    assert dialog.isVisible()
    return dialog


def type_tier(qtbot: QtBot, dialog: SettingsDialog, folder: Path) -> None:
    """Type a cold tier folder and wait for its check (made off the GUI thread)."""
    dialog.root.setText(str(folder))
    assert dialog.problem.text() == "Checking the folder…"
    assert not dialog.save_button.isEnabled()
    qtbot.waitUntil(lambda: not dialog.question.waiting, timeout=WAIT_MS)


def test_settings_check_the_tier_save_config_toml_and_replan(
        qtbot: QtBot, tmp_path: Path) -> None:
    root, run = workspace(tmp_path)
    window = open_window(qtbot, root)  # no config.toml yet: no tier, no archive suggestions
    assert not any(s.policy.startswith("archive-") for s in window.ws.plan.suggestions)
    dialog = _settings_dialog(window)
    assert dialog.root.text() == "" and dialog.symlink.isChecked()
    assert [b.value() for b in dialog.ages.values()] == [60, 180, 180]
    history = dialog.history.text()
    assert history.startswith("1 saved scan, ") and f"the last {KEEP_LAST}" in history

    type_tier(qtbot, dialog, tmp_path / "nowhere")
    assert "is not there" in dialog.problem.text() and not dialog.save_button.isEnabled()
    type_tier(qtbot, dialog, run)
    assert f"inside the scanned folder {root}" in dialog.problem.text()
    assert not dialog.save_button.isEnabled()
    cold = tmp_path / "cold"
    cold.mkdir()
    type_tier(qtbot, dialog, cold)
    assert "On the same disk as" in dialog.problem.text()  # a warning: it may be saved
    assert dialog.save_button.isEnabled()
    dialog.stub.setChecked(True)
    dialog.ages["archive_checkpoints_days"].setValue(20)
    assert dialog.trash_days.value() == 14  # the trash's retention, also a setting
    dialog.trash_days.setValue(7)
    with qtbot.waitSignal(window.ws.plan_changed, timeout=WAIT_MS):
        dialog.save_button.click()
    assert not dialog.isVisible()
    assert load_settings() == Settings(str(cold), "stub", 20.0, 180.0, 180.0,
                                       trash_days=7.0)  # what the CLI reads
    assert window.ws.user == load_settings()
    # Saved, but on the scanned disk archiving frees nothing: nothing is suggested (the
    # total to reclaim once grew by what could never be freed).
    assert not any(s.policy.startswith("archive-") for s in window.ws.plan.suggestions)
    assert f"on the same disk as {root}: no archive suggestions" in window.status.text()

    dialog = _settings_dialog(window)  # opens on what was saved
    assert dialog.root.text() == str(cold) and dialog.stub.isChecked()
    assert dialog.ages["archive_checkpoints_days"].value() == 20


def test_a_broken_config_toml_is_said_and_replaced_on_save(qtbot: QtBot,
                                                           tmp_path: Path) -> None:
    from mlspace.config import config_file

    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text("archive_rot = '/mnt'\n")
    root, _ = workspace(tmp_path)
    window = open_window(qtbot, root)
    assert "Archiving is off until the settings are fixed (Edit → Settings…): " \
        f"{config_file()}: unknown setting 'archive_rot'" in window.status.text()
    dialog = _settings_dialog(window)
    assert dialog.broken.isVisible() and "unknown setting 'archive_rot'" in \
        dialog.broken.text()
    dialog.save_button.click()
    assert load_settings() == Settings()
    assert window.tiering.config_problem == ""


def _policy_run(root: Path) -> None:
    """What a nightly timer does: apply the workspace's policy (written if not there yet),
    unattended."""
    if not (root / "mlspace-policy.toml").exists():
        assert run_cli(["policy", "init", str(root)]) == 0
    assert run_cli(["apply-policy", str(root), "--yes"]) == 0


def test_policy_runs_made_while_closed_are_shown_at_start_with_undo(
        qtbot: QtBot, tmp_path: Path) -> None:
    root, run = workspace(tmp_path)
    assert run_cli(["policy", "init", str(root)]) == 0
    before = tree_digest(root)
    _policy_run(root)  # checkpoints 20, 30 and 40 go to the trash
    assert not (run / "checkpoint-20").exists()
    window = open_window(qtbot, root)
    banner = window.tiering.banner
    assert banner.isVisible()
    text = banner.text.text()
    assert "While mlspace was closed, 1 policy run moved " in text
    assert f"mlspace-policy.toml on {root}" in text and "3 moved" in text
    assert banner.undo_button.isVisible() and banner.undo_button.text() == "Undo"
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(banner.undo_button, Qt.MouseButton.LeftButton)
    assert not banner.isVisible()
    assert tree_digest(root) == before and "Put back 3 items" in window.status.text()

    again = open_window(qtbot, root)  # seen: not shown twice
    assert not again.tiering.banner.isVisible()


def test_history_lists_archive_and_policy_runs_beside_cleanups_each_undoable(
        qtbot: QtBot, tmp_path: Path) -> None:
    root, run = workspace(tmp_path)
    cold = tmp_path / "cold"
    mount_tmpfs(cold, "16m")
    try:
        name_tier(cold)
        _policy_run(root)
        (root / "src" / "__pycache__").mkdir(parents=True)
        (root / "src" / "__pycache__" / "m.pyc").write_bytes(b"x" * 100)
        age(root)  # the run, emptied by the policy, is old again
        window = open_window(qtbot, root)
        window.tiering.banner.hide()
        caches = next(s for s in window.ws.plan.suggestions if s.policy == "python-caches")
        clean_checked(window, qtbot, [caches], WAIT_MS)
        suggestion_row(window, ARCHIVE_KEPT).setCheckState(0, Qt.CheckState.Checked)
        confirm_when_asked(window)
        with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
            qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
        window.history_action.trigger()
        dialog = window.history_dialog
        assert isinstance(dialog, CleanupHistory)
        rows = [[dialog.table.topLevelItem(r).text(c) for c in range(6)]
                for r in range(dialog.table.topLevelItemCount())]
        assert [(r[1], r[2], r[5]) for r in rows] == [
            ("Archive", ARCHIVE_KEPT, "3 archived"),
            ("Cleanup", "Remove 1 Python cache folder", "1 in the trash"),
            ("Policy run", "Policy mlspace-policy.toml", "3 in the trash")]
        assert all(r[3] for r in rows)  # how much each moved
        dialog.table.setCurrentItem(dialog.table.topLevelItem(2))
        assert dialog.undo_button.isEnabled()
        with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
            qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
        assert (run / "checkpoint-30").is_dir() and os.path.islink(run / "checkpoint-60")
        window.history_action.trigger()
        states = [window.history_dialog.table.topLevelItem(r).text(5) for r in range(3)]
        assert states == ["3 archived", "1 in the trash", "undone"]
        window.close()
    finally:
        unmount(cold)
