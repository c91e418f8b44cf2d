"""Ctrl+Z undoes what the window showed, and says what it put back (issue 23, §7).

A cleanup or an undo made in a shell while the window is open is shown by the window
before anything can undo it: the views drop what went (or take back what came back), the
status line names it, and the Edit menu names what Ctrl+Z will put back. A cleanup that
moved nothing says so and leaves nothing to undo, with the Suggestions tab in front as
anywhere (the benchmark's undo after such a cleanup waited for ever)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from cleanup_helpers import tree_digest
from cli_runner import run_mlspace
from gui_helpers import confirm_when_asked, open_window, show_tab
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from view_truth import assert_agrees_with_disk

from mlspace import fmt
from mlspace.demo import generate
from mlspace.ui.main_window import MainWindow

CACHES = "Remove 3 cached datasets.map() results"
WAIT_MS = 30_000


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line, in a shell of the same user (same data folder, same trash)."""
    return run_mlspace(*args, timeout=120)


def cache_files(root: Path) -> list[Path]:
    return sorted((root / "hf_datasets" / "wikitext").glob("cache-*.arrow"))


def press_ctrl_z(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    qtbot.keyClick(window.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def check_row(window: MainWindow, title: str) -> None:
    panel = window.suggestions
    show_tab(window, panel)
    row = next(i for i in panel.suggestion_items() if i.text(0).startswith(title))
    row.setCheckState(0, Qt.CheckState.Checked)


def test_a_cleanup_made_in_a_shell_is_shown_then_undone_by_name(window: MainWindow,
                                                                qtbot: QtBot,
                                                                demo_root: Path) -> None:
    before = tree_digest(demo_root)
    caches = next(s for s in window.ws.plan.suggestions if s.title == CACHES)
    files = cache_files(demo_root)
    assert not window.undo_action.isEnabled()  # nothing done yet, nothing to undo
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        done = mlspace("clean", str(demo_root), "--apply", caches.id, "--yes")
    assert done.returncode == 0, done.stderr
    assert cache_files(demo_root) == []
    status = window.status.text()
    names = ", ".join(f.name for f in files)
    assert status == (f"Outside this window, a cleanup moved 3 items "
                      f"({fmt.size(caches.apparent_bytes)}) to the trash: {names}. "
                      "Ctrl+Z puts them back.")
    assert window.undo_action.isEnabled()
    assert window.undo_action.text() == f"&Undo {CACHES} (3 items)"
    assert_agrees_with_disk(window)  # the views no longer show what went

    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        press_ctrl_z(window, qtbot)
    assert window.status.text() == f"Put back 3 items from the trash: {names}."
    assert tree_digest(demo_root) == before
    assert not window.undo_action.isEnabled()
    assert_agrees_with_disk(window)


def test_an_undo_made_in_a_shell_is_shown_and_leaves_nothing_to_undo(
        window: MainWindow, qtbot: QtBot, demo_root: Path) -> None:
    before = tree_digest(demo_root)
    check_row(window, CACHES)
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    names = ", ".join(f.name for f in cache_files(Path(str(demo_root))) or ())
    assert names == ""  # gone
    assert window.undo_action.text() == f"&Undo {CACHES} (3 items)"
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        done = mlspace("undo")
    assert done.returncode == 0, done.stderr
    assert tree_digest(demo_root) == before
    assert window.status.text().startswith(
        "Outside this window, an undo of a cleanup put back 3 items: cache-")
    assert not window.undo_action.isEnabled()  # Ctrl+Z must not undo it again
    assert_agrees_with_disk(window)


def test_ctrl_z_undoes_the_cleanup_the_window_names_not_one_it_did_not_show(
        window: MainWindow, qtbot: QtBot, demo_root: Path) -> None:
    """Two cleanups, the second made outside: Ctrl+Z puts back the second first (it was
    shown), then the window's own, each by name."""
    check_row(window, "Remove 1 Python cache folder")
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert "__pycache__" in window.status.text()
    caches = next(s for s in window.ws.plan.suggestions if s.title == CACHES)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        mlspace("clean", str(demo_root), "--apply", caches.id, "--yes")
    assert window.undo_action.text() == f"&Undo {CACHES} (3 items)"
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        press_ctrl_z(window, qtbot)
    assert window.status.text().startswith("Put back 3 items from the trash: cache-")
    assert window.undo_action.text() == "&Undo Remove 1 Python cache folder (1 item)"
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        press_ctrl_z(window, qtbot)
    assert window.status.text() == "Put back 1 item from the trash: __pycache__."
    assert_agrees_with_disk(window)


def test_a_cleanup_that_moved_nothing_says_so_and_leaves_nothing_to_undo(
        qtbot: QtBot, tmp_path: Path) -> None:
    """The benchmark's case: with the Suggestions tab in front, a cleanup whose items were
    all written minutes ago moves nothing. It said "Moved 0 items … Ctrl+Z puts them back",
    and the undo that followed found nothing and never finished showing."""
    root = generate(tmp_path / "ws")
    now = time.time()
    for f in cache_files(root):
        os.utime(f, (now, now))  # written just now: a job may still be writing them
    window = open_window(qtbot, root)
    before = tree_digest(root)
    check_row(window, CACHES)
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert window.status.text() == ("Nothing was moved. 3 skipped: modified in the last 10 "
                                    "minutes (a running job?).")
    assert tree_digest(root) == before
    assert not window.undo_action.isEnabled()
    press_ctrl_z(window, qtbot)  # nothing to undo: nothing happens, nothing waits
    assert window.status.text().startswith("Nothing was moved.")
    assert not window.cleaner.running
    assert_agrees_with_disk(window)


def test_messages_follow_the_size_mode_shown(window: MainWindow, qtbot: QtBot) -> None:
    """The demo shows apparent sizes: the cleanup says what it freed in apparent sizes
    (it said "Moved 3 items (0 Bytes)" on disk while everything else showed GiB); on
    disk once the window shows sizes on disk."""
    caches = next(s for s in window.ws.plan.suggestions if s.title == CACHES)
    assert window.ws.apparent and caches.apparent_bytes != caches.bytes
    check_row(window, CACHES)
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert window.status.text().startswith(
        f"Moved 3 items ({fmt.size(caches.apparent_bytes)}) to the trash, still on this "
        "disk: cache-")
    window.apparent_box.click()
    assert not window.ws.apparent
    pycache = next(s for s in window.ws.plan.suggestions if s.policy == "python-caches")
    check_row(window, pycache.title)
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert window.status.text().startswith(
        f"Moved 1 item ({fmt.size(pycache.bytes)}) to the trash, still on this disk: "
        "__pycache__.")


def test_a_policy_run_while_the_window_is_open_is_shown_and_undone_by_name(
        window: MainWindow, qtbot: QtBot, demo_root: Path, tmp_path: Path) -> None:
    """A timer's policy run moves what the window shows: the views follow at once, the
    status says which policy did it, and Ctrl+Z puts its items back."""
    before = tree_digest(demo_root)
    (tmp_path / "policy").mkdir()
    assert mlspace("policy", "init", str(tmp_path / "policy")).returncode == 0
    policy = tmp_path / "policy" / "mlspace-policy.toml"
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        ran = mlspace("apply-policy", "--yes", "--policy", str(policy), str(demo_root))
    assert ran.returncode == 0, ran.stderr
    assert tree_digest(demo_root) != before
    status = window.status.text()
    assert status.startswith("Outside this window, a policy run (mlspace-policy.toml) moved ")
    assert status.endswith("Ctrl+Z puts them back.")
    assert window.undo_action.isEnabled()
    assert_agrees_with_disk(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        press_ctrl_z(window, qtbot)
    assert window.status.text().startswith("Put back ")
    assert tree_digest(demo_root) == before
    assert_agrees_with_disk(window)
