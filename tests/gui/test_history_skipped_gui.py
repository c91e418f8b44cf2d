"""The cleanup history in the window says what of the journal it could not use, as the CLI
does, and still lists (and can undo) the cleanups it could: a damaged journal file left by
a crash, or one another user put there, never hides the others."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from gui_helpers import open_window
from pytestqt.qtbot import QtBot

from mlspace.act import trash as trash_module
from mlspace.act.journal import journal_dir
from mlspace.ui.cleanup_dialogs import CleanupHistory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from workspaces import hf_run  # noqa: E402

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def _clean_from_the_cli(root: Path) -> None:
    plan = run_mlspace("plan", str(root), "--format", "json")
    assert plan.returncode == 0, plan.stderr
    first = json.loads(plan.stdout)["suggestions"][0]["id"]
    cleaned = run_mlspace("clean", str(root), "--apply", first, "--yes")
    assert cleaned.returncode == 0, cleaned.stderr


def test_the_history_names_a_damaged_journal_file_and_lists_the_rest(
        qtbot: QtBot, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    _clean_from_the_cli(root)
    (journal_dir() / "20260101-000000-crashed.jsonl").write_text('{"kind": 3}\n')
    window = open_window(qtbot, root)
    window.history_action.trigger()
    dialog = window.history_dialog
    assert isinstance(dialog, CleanupHistory)
    assert dialog.problems.isVisible()
    assert "20260101-000000-crashed.jsonl" in dialog.problems.text()
    assert dialog.problems.text().startswith("⚠ Skipped the journal file")
    rows = [dialog.table.topLevelItem(r).text(1) for r in range(dialog.table.topLevelItemCount())]
    assert rows == ["Cleanup"]
    dialog.table.setCurrentItem(dialog.table.topLevelItem(0))
    assert dialog.undo_button.isEnabled()
    window.close()


def test_no_warning_when_the_journal_is_whole(qtbot: QtBot, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    _clean_from_the_cli(root)
    window = open_window(qtbot, root)
    window.history_action.trigger()
    assert not window.history_dialog.problems.isVisible()
    assert window.history_dialog.table.topLevelItemCount() == 1
    window.close()
