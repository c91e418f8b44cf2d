"""Suggestions you can check before anything moves: an expanded suggestion lists its folder,
each item relative to it with size, age and step/metric, and what is kept and why; a row
selects its path everywhere; the confirmation shows each item's size and elides in the
middle, where paths of one run differ."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import check_only, show_tab, wait_drawn
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from mlspace import fmt
from mlspace.advise import KeptItem, PlanItem, Suggestion
from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.main_window import MainWindow
from mlspace.ui.suggestions_panel import ID_ROLE, PATH_ROLE

RUN = "outputs/bert-large-lr3e-4"
GONE = ["checkpoint-1000", "checkpoint-2000", "checkpoint-3000", "checkpoint-4000",
        "checkpoint-5000", "checkpoint-6000", "checkpoint-8000", "checkpoint-9000",
        "checkpoint-10000"]


def _retention_row(window: MainWindow) -> tuple[QTreeWidgetItem, Suggestion]:
    """The expanded row of the demo's bert-large retention suggestion, and the suggestion."""
    panel = window.suggestions
    show_tab(window, panel)
    row = next(i for i in panel.suggestion_items()
               if i.text(0) == "Keep best 1 + latest 2 of bert-large-lr3e-4")
    panel.tree.expandItem(row)
    panel.tree.scrollToItem(row.child(row.childCount() - 1))
    return row, window.ws.plan.by_id(row.data(0, ID_ROLE))


def _children(row: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [row.child(i) for i in range(row.childCount())]


def _size(window: MainWindow, item: PlanItem | KeptItem) -> str:
    return fmt.size(item.apparent_size if window.ws.apparent else item.disk_usage)


def test_items_show_relative_names_sizes_and_steps_then_what_is_kept(
        window: MainWindow, demo_root: Path) -> None:
    window.resize(1024, 700)  # a laptop: the names must still be readable
    row, s = _retention_row(window)
    folder, *items = _children(row)
    assert folder.text(0) == f"in {demo_root / RUN}" and folder.isFirstColumnSpanned()
    assert folder.toolTip(0) == str(demo_root / RUN)
    goes, stays = items[:len(s.items)], items[len(s.items):]
    assert [r.text(0).split(" · ")[0] for r in goes] == GONE  # relative, in step order
    assert [r.data(0, PATH_ROLE) for r in goes] == [str(demo_root / RUN / n) for n in GONE]
    first = goes[0].text(0)
    assert " ago · " in first and first.endswith("step 1000 · eval_loss 2.28")
    assert [r.text(1) for r in goes] == [_size(window, i) for i in s.items]
    assert [r.text(0) for r in stays] == ["kept: checkpoint-12000 — the latest",
                                          "kept: checkpoint-11000 — one of the latest 2",
                                          "kept: checkpoint-7000 — the best eval_loss 1.82"]
    assert [r.text(1) for r in stays] == [_size(window, k) for k in s.kept]
    assert "trainer_state.json best_model_checkpoint" in stays[2].toolTip(0)
    for r in stays:
        assert r.font(0).italic() and r.checkState(0) is not Qt.CheckState.Checked
        assert not r.flags() & Qt.ItemFlag.ItemIsUserCheckable
    tree = window.suggestions.tree
    assert tree.textElideMode() == Qt.TextElideMode.ElideMiddle
    metrics = QFontMetrics(tree.font())
    for r in goes + stays:  # what is drawn still starts with the name that tells it apart
        width = tree.visualItemRect(r).width() - 8
        name = r.text(0).split(" · ")[0].split(" — ")[0]
        assert metrics.elidedText(r.text(0), Qt.TextElideMode.ElideMiddle, width).startswith(
            name), (r.text(0), width)


def test_sizes_follow_the_size_mode(window: MainWindow) -> None:
    for apparent in (True, False):
        window.ws.set_apparent(apparent)
        wait_drawn(window)  # the shown tab redraws on a turn of its own
        row, s = _retention_row(window)
        assert [r.text(1) for r in _children(row)[1:]] == \
            [_size(window, i) for i in (*s.items, *s.kept)]


def test_clicking_a_row_selects_its_path_everywhere(window: MainWindow, qtbot: QtBot,
                                                   demo_root: Path) -> None:
    row, _ = _retention_row(window)
    tree = window.suggestions.tree
    snap = window.ws.inventory.snapshot
    for child, name in ((row.child(1), "checkpoint-1000"), (row.child(row.childCount() - 1),
                                                            "checkpoint-7000")):
        tree.scrollToItem(child)
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                         pos=tree.visualItemRect(child).center())
        assert window.ws.selected == snap.find(str(demo_root / RUN / name))
        assert window.details.toPlainText().splitlines()[0] == name  # its heading


def read_the_confirmation(window: MainWindow) -> dict[str, object]:
    """Once the confirmation opens, what it says (summary; each row's text and tooltip; how
    rows are elided) goes into the returned dict, and the dialog is cancelled."""
    seen: dict[str, object] = {}

    def inspect() -> None:
        dialog = getattr(window, "last_dialog", None)
        if not (isinstance(dialog, ConfirmCleanup) and dialog.isVisible()):
            QTimer.singleShot(20, inspect)
            return
        rows = [dialog.paths.item(i) for i in range(dialog.paths.count())]
        seen.update(summary=dialog.summary.text(), mode=dialog.paths.textElideMode(),
                    texts=[r.text() for r in rows], tips=[r.toolTip() for r in rows])
        dialog.reject()

    QTimer.singleShot(20, inspect)
    return seen


def test_the_confirmation_lists_sizes_relative_names_and_what_stays(
        window: MainWindow, qtbot: QtBot, demo_root: Path) -> None:
    row, s = _retention_row(window)
    row.setCheckState(0, Qt.CheckState.Checked)
    seen = read_the_confirmation(window)
    qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert seen["mode"] == Qt.TextElideMode.ElideMiddle
    texts, tips = seen["texts"], seen["tips"]
    assert texts[0] == f"in {demo_root / RUN}"
    goes = len(s.items) + 1
    for text, tip, item in zip(texts[1:goes], tips[1:goes], s.items, strict=True):
        name = Path(item.path).name
        assert text.split()[:3] == [*_size(window, item).split(), name], text
        assert tip == item.path
    assert texts[goes:] == [
        f"{_size(window, k):>10}   stays: {s.relative(k.path)} — {k.why}" for k in s.kept]
    assert any("stays: checkpoint-7000 — the best eval_loss 1.82" in t for t in texts)
    assert (demo_root / RUN / "checkpoint-1000").exists()  # cancelled: nothing moved


def test_a_suggestion_whose_kept_item_went_drops_out_until_it_is_back(
        window: MainWindow, demo_root: Path) -> None:
    """What a suggestion says stays must be true when it is applied: once its best is in
    the trash the suggestion is gone, and it comes back with the best. Stripping a kept
    checkpoint's optimizer state does not count (the checkpoint itself stays)."""
    ws = window.ws
    _, s = _retention_row(window)
    best = str(demo_root / RUN / "checkpoint-7000")
    ws.mark_removed([best + "/optimizer.pt"])
    assert ws.plan.by_id(s.id) is not None
    ws.mark_removed([best + "/optimizer.pt"], removed=False)
    ws.mark_removed([best])
    assert ws.plan.by_id(s.id) is None
    wait_drawn(window)
    assert all(i.text(0) != s.title for i in window.suggestions.suggestion_items())
    ws.mark_removed([best], removed=False)
    assert ws.plan.by_id(s.id) is not None
    wait_drawn(window)
    assert any(i.text(0) == s.title for i in window.suggestions.suggestion_items())


def test_mixed_risks_are_counted_and_augmented_copies_name_what_stays(
        window: MainWindow, qtbot: QtBot) -> None:
    """Checking a safe and a review suggestion: the dialog counts each risk (it read "Safe,
    Review before you confirm"); the augmented copies' rows end with the raw data that
    stays."""
    plan = window.ws.plan
    copies = next(s for s in plan.suggestions if s.title == "Remove augmented copies in train_aug")
    safe = next(s for s in plan.suggestions if s.risk == "safe")
    assert copies.risk == "review"
    check_only(window, [safe, copies])
    seen = read_the_confirmation(window)
    qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert "Risk: <b>safe</b> for 1 suggestion, <b>to review</b> for 1 suggestion" in \
        seen["summary"]
    assert [t.rsplit("   ", 1)[1] for t in seen["texts"] if "raw data" in t] == [
        "stays: train — raw data: never suggested", "stays: val — raw data: never suggested"]
