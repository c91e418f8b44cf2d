"""Issue 16 in the app: archive suggestions in the Suggestions panel and on right-click, any
cleanup archived instead of trashed, the confirmation saying where items go, the copy's
progress with Cancel while the window stays usable, *Bring back from archive* on a link or
stub, and the Details of an archived item."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from archive_helpers import (
    ARCHIVE_KEPT,
    RETENTION,
    WAIT_MS,
    group_of,
    name_tier,
    suggestion_row,
    workspace,
)
from cleanup_helpers import mount_tmpfs, trash_contents, tree_digest, unmount
from gui_helpers import open_window, right_click_bar, right_click_row, show_tab
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot
from workspaces import age

from mlspace import fmt
from mlspace.act import trash as trash_module
from mlspace.act.journal import history
from mlspace.classify import Category
from mlspace.scan.walker import KIND_SYMLINK
from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.main_window import MainWindow

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


@pytest.fixture
def tmpfs_tier(tmp_path: Path) -> Iterator[Path]:
    """Another filesystem as the cold tier (skipped where none can be mounted)."""
    where = tmp_path / "cold"
    mount_tmpfs(where, "64m")
    name_tier(where)
    yield where
    unmount(where)


@pytest.fixture
def tier(tmp_path: Path) -> Iterator[Path]:
    """A 4 GiB tmpfs as the cold tier (sparse files take none of it)."""
    where = tmp_path / "cold"
    mount_tmpfs(where, "4g")
    name_tier(where)
    yield where
    unmount(where)


def _confirm_reading(window: MainWindow, seen: dict[str, object], accept: bool = True) -> None:
    """Answer the confirmation once it shows, keeping what it said."""
    def press() -> None:
        dialog = getattr(window, "last_dialog", None)
        if not (isinstance(dialog, ConfirmCleanup) and dialog.isVisible()):
            QTimer.singleShot(20, press)
            return
        seen.update(title=dialog.windowTitle(), summary=dialog.summary.text(),
                    button=dialog.confirm.text(),
                    rows=[dialog.paths.item(i).text() for i in range(dialog.paths.count())])
        (dialog.confirm.click if accept else dialog.reject)()

    QTimer.singleShot(20, press)


def _apply_checked(window: MainWindow, qtbot: QtBot) -> dict[str, object]:
    """Click the panel's button, confirm, and wait until it is done; what the confirmation
    said."""
    seen: dict[str, object] = {}
    _confirm_reading(window, seen)
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    return seen


def _tier_files(where: Path) -> list[Path]:
    return [p for p in where.rglob("*") if not p.is_dir()]


def _action(actions: list, text: str):  # noqa: ANN202 - a QAction
    return next(a for a in actions if a.text().startswith(text))


def test_archive_from_the_panel_across_filesystems_then_bring_back_each(
        qtbot: QtBot, tmp_path: Path, tmpfs_tier: Path, isolated_user_dirs: Path) -> None:
    root, run = workspace(tmp_path)
    before = tree_digest(root)
    window = open_window(qtbot, root)
    row = suggestion_row(window, ARCHIVE_KEPT)
    assert group_of(window, ARCHIVE_KEPT) == "Move to the cold tier"
    kept = window.ws.plan.by_id(row.data(0, Qt.ItemDataRole.UserRole + 1))
    row.setCheckState(0, Qt.CheckState.Checked)
    assert window.suggestions.clean_button.text() == "Archive checked…"
    seen = _apply_checked(window, qtbot)
    assert seen["title"] == "Move to the cold tier?"
    assert seen["button"] == "Archive 3 items"
    summary = str(seen["summary"])
    assert f"{tmpfs_tier}/" in summary and "a <b>link</b> to the archived copy" in summary
    assert "Raw data is archived, never trashed" in summary
    assert seen["rows"][0] == f"in {run} — to the cold tier"

    for path in kept.paths:
        assert os.path.islink(path) and os.readlink(path).startswith(f"{tmpfs_tier}/")
        prefix = os.path.relpath(path, root) + "/"
        assert tree_digest(Path(path)) == {k[len(prefix):]: v for k, v in before.items()
                                           if k.startswith(prefix)}  # byte for byte
    assert trash_contents(isolated_user_dirs)[0] == []  # off this disk, not in its trash
    assert window.status.text().startswith(f"Archived 3 items to {tmpfs_tier} (links left")

    # The rescan shows the links, with what they stand for.
    snap = window.ws.inventory.snapshot
    link = snap.find(str(run / "checkpoint-60"))
    assert int(snap.kind[link]) == KIND_SYMLINK
    assert window.ws.archived_total() == sum(i.disk_usage for i in kept.items) > 0
    shown = window.category_chart.archived
    assert shown.isVisibleTo(window)
    assert shown.text() == f"Archived in the cold tier: {fmt.size(window.ws.archived_total())}"
    window.ws.select(link)
    lines = window.details.toPlainText().splitlines()
    archived = lines[lines.index("Archived") + 1]
    assert archived.startswith(f"in {tmpfs_tier}/…/checkpoint-60, ")
    row = window.model.index_of(link)  # the tree tells the link apart from a plain one
    assert row.data(Qt.ItemDataRole.FontRole).italic()
    tip = row.data(Qt.ItemDataRole.ToolTipRole)
    assert f"Archived to the cold tier: {tmpfs_tier}/" in tip and "Bring back" in tip
    plain = window.model.index_of(snap.find(str(run)))
    assert plain.data(Qt.ItemDataRole.FontRole) is None
    assert "Archived" not in plain.data(Qt.ItemDataRole.ToolTipRole)

    for path in kept.paths:
        back = _action(right_click_row(window, path), "Bring back from archive (")
        with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
            back.trigger()
        assert not os.path.islink(path) and os.path.isdir(path)
        # Said once ("… from the cold tier (brought back from the archive)." said it twice).
        assert window.status.text() == f"Brought back {Path(path).name} from the cold tier."
    assert tree_digest(root) == before
    assert _tier_files(tmpfs_tier) == []
    assert window.ws.archived_total() == 0
    assert not window.category_chart.archived.isVisibleTo(window)


def test_any_cleanup_archived_instead_of_trashed_then_undone(
        qtbot: QtBot, tmp_path: Path, tier: Path) -> None:
    root, run = workspace(tmp_path)
    before = tree_digest(root)
    window = open_window(qtbot, root)
    panel = window.suggestions
    suggestion_row(window, RETENTION).setCheckState(0, Qt.CheckState.Checked)
    assert panel.instead.isVisible() and not panel.instead.isChecked()
    assert panel.clean_button.text() == "Clean up checked…"
    panel.instead.setChecked(True)
    assert panel.clean_button.text() == "Archive checked…"
    assert _apply_checked(window, qtbot)["button"] == "Archive 3 items"
    for name in ("checkpoint-20", "checkpoint-30", "checkpoint-40"):
        assert os.readlink(run / name).startswith(f"{tier}/")
    assert (run / "checkpoint-10").is_dir() and not (run / "checkpoint-10").is_symlink()
    assert window.history_action.isEnabled()
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        window.undo_action.trigger()
    assert tree_digest(root) == before
    assert _tier_files(tier) == []


def test_a_stub_is_left_when_asked_and_brings_it_back(qtbot: QtBot, tmp_path: Path,
                                                      tier: Path) -> None:
    name_tier(tier, archive_link="stub")
    root, run = workspace(tmp_path)
    before = tree_digest(root)
    window = open_window(qtbot, root)
    seen: dict[str, object] = {}
    _confirm_reading(window, seen)
    actions = right_click_row(window, str(run / "checkpoint-20"))
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        _action(actions, "Move to the cold tier…").trigger()
    assert "NAME.mlspace-archived.json</b> stub" in str(seen["summary"])
    stub = run / "checkpoint-20.mlspace-archived.json"
    assert stub.is_file() and not (run / "checkpoint-20").exists()
    assert "stubs left in their place" in window.status.text()
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        _action(right_click_row(window, str(stub)), "Bring back from archive").trigger()
    assert tree_digest(root) == before


def test_right_click_offers_the_tier_only_once_one_is_set(qtbot: QtBot, tmp_path: Path,
                                                          tier: Path) -> None:
    root, run = workspace(tmp_path)
    window = open_window(qtbot, root)
    actions = right_click_row(window, str(run))
    texts = [a.text() for a in actions]
    assert any(t.startswith(f"{ARCHIVE_KEPT} — frees ") for t in texts)
    assert "Move to the cold tier…" in texts
    instead = _action(actions, "Archive instead of trash").menu()
    assert isinstance(instead, QMenu)
    assert any(a.text().startswith(f"{RETENTION} — frees ") for a in instead.actions())
    assert not any(a.text().startswith(ARCHIVE_KEPT) for a in instead.actions())
    assert any(t.startswith(f"{ARCHIVE_KEPT} — frees ")
               for t in right_click_bar(window, qtbot, Category.CHECKPOINT))

    window.tiering.show_settings()  # no tier any more: the app follows its Settings
    dialog = window.settings_dialog
    dialog.root.clear()
    with qtbot.waitSignal(window.ws.plan_changed, timeout=WAIT_MS):
        dialog.save_button.click()
    texts = [a.text() for a in right_click_row(window, str(run))]
    assert not any("cold tier" in t or t.startswith(("Archive", "Bring back")) for t in texts)
    show_tab(window, window.suggestions)
    assert not window.suggestions.instead.isVisible()
    assert not any(r.text(0) == ARCHIVE_KEPT for r in window.suggestions.suggestion_items())


def _start_a_long_copy(qtbot: QtBot, tmp_path: Path
                       ) -> tuple[MainWindow, Path, dict[str, str], list[tuple[int, int]]]:
    """A window archiving data/raw, 3 GiB (sparse: seconds to read, nothing to store),
    once its copy is under way: the window, the workspace, its digest before, and the
    progress updates so far."""
    root, _ = workspace(tmp_path)
    raw = root / "data" / "raw"
    raw.mkdir(parents=True)
    with open(raw / "images.bin", "wb") as f:
        f.truncate(3 << 30)
    age(root)
    before = tree_digest(root)
    window = open_window(qtbot, root)
    assert not window.tiering.progress.isVisible()
    updates: list[tuple[int, int]] = []
    window.cleaner.copying.connect(lambda _verb, done, total, _path: updates.append((done,
                                                                                     total)))
    _confirm_reading(window, {})
    _action(right_click_row(window, str(raw)), "Move to the cold tier…").trigger()
    qtbot.waitUntil(lambda: len(updates) >= 3 and updates[-1][0] > 0, timeout=WAIT_MS)
    return window, root, before, updates


def test_a_long_copy_shows_progress_keeps_the_window_usable_and_cancels(
        qtbot: QtBot, tmp_path: Path, tier: Path) -> None:
    window, root, before, updates = _start_a_long_copy(qtbot, tmp_path)
    run = root / "outputs" / "run"
    progress = window.tiering.progress
    assert progress.isVisible() and progress.cancel_button.isEnabled()
    text = progress.label.text()
    assert text.startswith("Archiving raw: ") and " of 6.0 GiB, " in text and "/s" in text
    # The window answers meanwhile: another row is selected, and its Details shown.
    other = window.ws.inventory.snapshot.find(str(run / "checkpoint-60"))
    window.tree.setCurrentIndex(window.model.index_of(other))
    assert window.ws.selected == other
    assert window.details.toPlainText().splitlines()[0] == "checkpoint-60"
    assert window.cleaner.running
    with qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
        qtbot.mouseClick(progress.cancel_button, Qt.MouseButton.LeftButton)
    assert updates[-1][0] < updates[-1][1], "cancelled before the copy was done"
    assert "Cancelled: the item being copied was rolled back" in window.status.text()
    assert not progress.isVisible()
    assert tree_digest(root) == before
    assert _tier_files(tier) == []
    assert history()[0].kind == "tier" and not history()[0].trashed


def test_closing_the_window_mid_copy_rolls_the_item_back_at_once(
        qtbot: QtBot, tmp_path: Path, tier: Path) -> None:
    window, root, before, updates = _start_a_long_copy(qtbot, tmp_path)
    window.close()
    # At once: the close stopped the copy where it was, it did not wait for it to end.
    assert updates[-1][0] < updates[-1][1], "the close waited for the whole copy"
    assert tree_digest(root) == before
    assert _tier_files(tier) == []


def test_the_panel_says_why_an_opened_scan_cannot_be_cleaned(
        qtbot: QtBot, tmp_path: Path, tier: Path) -> None:
    from test_saved_scans_gui import save_parquet

    root, _ = workspace(tmp_path)
    saved = save_parquet(root, tmp_path / "ws.parquet", host="gpu-node3")
    root.rename(tmp_path / "elsewhere")
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.scan_finished, timeout=WAIT_MS):
        window.open_paths([str(saved)])
    reason = window.ws.read_only_reason
    assert reason.startswith("scanned on gpu-node3")
    panel = window.suggestions
    show_tab(window, panel)
    assert panel.notice.isVisible() and panel.notice.text().endswith(reason)
    rows = panel.suggestion_items()
    assert any(r.text(0) == ARCHIVE_KEPT for r in rows)
    for row in rows:
        assert not row.flags() & Qt.ItemFlag.ItemIsUserCheckable
        assert row.toolTip(0) == reason
