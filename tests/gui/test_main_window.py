"""The app on a generated workspace: tree, charts, treemap, details, filters, cancel."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import show_tab, wait_drawn
from PySide6.QtCore import QPointF, Qt
from pytestqt.qtbot import QtBot

from mlspace.classify import Category
from mlspace.ui.main_window import VIEWS, WELCOME, MainWindow
from mlspace.ui.tree_model import NAME, SIZE, VALUE_ROLE


def _top_rows(win: MainWindow) -> list[tuple[str, int]]:
    model = win.model
    root = model.index(0, 0)
    return [(model.index(r, NAME, root).data(), model.index(r, SIZE, root).data(VALUE_ROLE))
            for r in range(model.rowCount(root))]


def test_starts_on_the_welcome_page(qtbot: QtBot) -> None:
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.stack.currentIndex() == WELCOME
    assert win.welcome.demo_button.text() == "Try the demo"


def test_tree_lists_the_largest_first_with_true_sizes(window: MainWindow, demo_root: Path
                                                      ) -> None:
    assert window.stack.currentIndex() == VIEWS
    assert window.ws.apparent, "the demo opens in apparent sizes (its big files are sparse)"
    rows = _top_rows(window)
    assert rows[0][0] == "outputs"
    sizes = [size for _, size in rows]
    assert sizes == sorted(sizes, reverse=True)
    snap = window.ws.inventory.snapshot
    outputs = next(e for e in snap.children(snap.root_entries[0]) if snap.name(e) == "outputs")
    assert rows[0][1] == snap.totals(outputs).apparent_size
    assert "1,004 files" in window.status.text() or "files" in window.status.text()


def test_toggling_apparent_sizes_changes_the_tree(window: MainWindow, qtbot: QtBot) -> None:
    before = _top_rows(window)[0][1]
    window.apparent_box.click()
    assert not window.ws.apparent
    after = dict(_top_rows(window))
    assert after["outputs"] < before  # sparse files take almost no disk
    assert window.model.headerData(SIZE, Qt.Orientation.Horizontal) == "Size (on disk)"


def _click_bar(qtbot: QtBot, chart: object, row: int, x: float) -> None:
    plot = chart.plot  # type: ignore[attr-defined]
    scene_point = plot.getViewBox().mapViewToScene(QPointF(x, row))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton,
                     pos=plot.mapFromScene(scene_point))


def test_a_name_filter_that_matches_nothing_says_so(window: MainWindow) -> None:
    """An empty tree under a filter is explained on the filter's line."""
    window.search.setText("no-such-name-anywhere")
    window.filters.apply_search()
    wait_drawn(window)
    assert window.model.rowCount() == 0
    assert window.filter_label.text() == ("Showing only names containing "
                                          "“no-such-name-anywhere”: nothing matches — Esc "
                                          "shows everything")
    window.search.setText("optimizer")
    window.filters.apply_search()
    wait_drawn(window)
    assert window.model.rowCount() == 1 and "nothing matches" not in window.filter_label.text()


def test_clicking_a_category_bar_filters_tree_and_treemap(window: MainWindow, qtbot: QtBot
                                                          ) -> None:
    chart = window.category_chart
    row = chart.categories.index(Category.DEBUG)
    width = dict(chart.values())[Category.DEBUG]
    _click_bar(qtbot, chart, row, width / 2)
    assert window.ws.filter.spec.categories == frozenset({Category.DEBUG})
    names = [n for n, _ in _top_rows(window)]
    assert "outputs" not in names and "data" not in names
    assert {"core.81234", "profiler", "dump_snapshot.pickle"} <= set(names)
    assert window.filter_label.isVisible() and "Debug dumps" in window.filter_label.text()
    def top_tiles() -> set[str]:
        return {window.ws.inventory.snapshot.name(e) for _, e, d in window.treemap.canvas.tiles
                if d == 0}

    qtbot.waitUntil(lambda: "outputs" not in top_tiles(), timeout=3000)
    assert "core.81234" in top_tiles()
    _click_bar(qtbot, chart, row, width / 2)  # again: everything
    assert window.ws.filter.spec.categories is None


def test_clicking_an_age_segment_filters_by_age_and_category(window: MainWindow, qtbot: QtBot
                                                             ) -> None:
    chart = window.age_chart
    bucket, (cat, lo, hi) = next((b, seg) for b, segs in enumerate(chart.stacks) for seg in segs
                                 if seg[0] == Category.CHECKPOINT)
    _click_bar(qtbot, chart, bucket, (lo + hi) / 2)
    spec = window.ws.filter.spec
    assert spec.bucket == bucket and spec.categories == frozenset({Category.CHECKPOINT})
    window.clear_filter_action.trigger()
    assert window.ws.filter.spec.bucket is None


def test_selecting_a_treemap_tile_fills_details_and_selects_the_row(window: MainWindow,
                                                                    qtbot: QtBot) -> None:
    canvas = window.treemap.canvas
    rect, entry, _ = next(t for t in canvas.tiles if t[2] == 0)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    snap = window.ws.inventory.snapshot
    selected = window.ws.selected
    assert selected >= 0
    assert snap.path(selected).startswith(snap.path(entry))
    assert snap.name(selected) in window.details.toPlainText()
    assert window.model.entry(window.tree.currentIndex()) == selected


def test_double_click_drills_down_and_breadcrumb_goes_up(window: MainWindow, qtbot: QtBot
                                                         ) -> None:
    canvas = window.treemap.canvas
    snap = window.ws.inventory.snapshot
    rect, entry, _ = next(t for t in canvas.tiles if t[2] == 0 and snap.name(t[1]) == "outputs")
    qtbot.mouseDClick(canvas, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert window.ws.focus == entry
    qtbot.waitUntil(lambda: {snap.name(e) for _, e, d in canvas.tiles if d == 0} == {
        "bert-large-lr3e-4", "bert-base-lr1e-4"}, timeout=3000)
    crumbs = window.treemap.breadcrumb.row
    first = crumbs.itemAt(0).widget()
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    assert window.ws.focus == snap.root_entries[0]


def test_checkpoint_details_show_best_and_latest(window: MainWindow, demo_root: Path) -> None:
    inv = window.ws.inventory
    best = inv.artifact_by_id[f"checkpoint:{demo_root}/outputs/bert-large-lr3e-4/checkpoint-7000"]
    window.ws.select(best.entry)
    text = window.details.toPlainText()
    assert "best" in text and "trainer_state.json best_model_checkpoint" in text
    assert "eval_loss" in text and "Step" in text


def test_runs_view_lists_runs_with_best_and_latest(window: MainWindow) -> None:
    show_tab(window, window.runs)
    runs = window.runs
    names = [runs.topLevelItem(i).text(0) for i in range(runs.topLevelItemCount())]
    assert "outputs/bert-large-lr3e-4" in names
    item = runs.topLevelItem(names.index("outputs/bert-large-lr3e-4"))
    assert item.text(2) == "12"
    assert item.text(3).startswith("checkpoint-7000 (eval_loss 1.82")
    assert item.text(4) == "step 12000"


def test_a_run_the_real_trainer_wrote_shows_its_best_and_latest(qtbot: QtBot, tmp_path: Path
                                                                ) -> None:
    """Not the demo's zero-filled files: the folder transformers' Trainer wrote
    (tests/fixtures/hf_trainer, made by its make_fixtures.py). Its trainer_state.json names
    checkpoint-8 the best (eval_loss 1.2) and the last step is 24."""
    import json
    import shutil

    from gui_helpers import open_window

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "hf_trainer" / "gpt2-tiny"
    run = tmp_path / "gpt2-tiny"
    shutil.copytree(fixture, run)
    state = json.loads((run / "trainer_state.json").read_text())
    assert (Path(state["best_model_checkpoint"]).name, state["global_step"]) == \
        ("checkpoint-8", 24)
    window = open_window(qtbot, run)
    show_tab(window, window.runs)
    runs = window.runs
    assert runs.topLevelItemCount() == 1
    row = runs.topLevelItem(0)
    assert row.text(2) == "4"  # checkpoint-8, -16, -20, -24
    assert row.text(3).startswith("checkpoint-8 (eval_loss 1.2")
    assert row.text(4) == "step 24"
    window.ws.select(window.ws.inventory.snapshot.find(str(run / "checkpoint-8")))
    text = window.details.toPlainText()
    assert "best" in text and "trainer_state.json best_model_checkpoint" in text


def test_name_filter(window: MainWindow, qtbot: QtBot) -> None:
    window.search.setText("trace")
    qtbot.waitUntil(lambda: window.ws.filter.spec.text == "trace", timeout=3000)
    names = [n for n, _ in _top_rows(window)]
    assert names == ["profiler"]


def test_cancel_stops_a_scan_and_shows_partial_results(qtbot: QtBot, tmp_path: Path) -> None:
    for d in range(60):
        folder = tmp_path / "big" / f"d{d:03d}"
        folder.mkdir(parents=True)
        for i in range(300):
            (folder / f"f{i}").touch()
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.scan_finished, timeout=30_000):
        win.open_paths([str(tmp_path / "big")])
        qtbot.mouseClick(win.scanning.cancel_button, Qt.MouseButton.LeftButton)
    snap = win.ws.inventory.snapshot
    if snap.cancelled:  # the scan may legitimately finish before the click lands
        assert "cancelled" in win.status.text()
        assert len(snap) < 60 * 301
    assert win.stack.currentIndex() == VIEWS


def test_a_scan_cancelled_before_listing_anything_still_shows(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cancel clicked at once, while the first listing still waits (a slow network disk):
    the window shows the scanned root, nothing under it, and says it was cancelled."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import slow_storage

    (tmp_path / "ws" / "a").mkdir(parents=True)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    slow_storage.install(1.0, 0.0)  # every listing waits a second
    try:
        with qtbot.waitSignal(win.scan_finished, timeout=30_000):
            win.open_paths([str(tmp_path / "ws")])
            qtbot.mouseClick(win.scanning.cancel_button, Qt.MouseButton.LeftButton)
    finally:
        slow_storage.uninstall()
    snap = win.ws.inventory.snapshot
    assert snap.cancelled and len(snap) == 1  # the root alone: nothing was listed
    assert win.grab().width() > 0
    assert "cancelled" in win.status.text()
    assert win.model.rowCount() == 1


def test_qt_binding_does_not_over_release_slot_results() -> None:
    """PySide6 6.12.0 released a slot's return value once too often, aborting the app after
    a few thousand signals (see the pin in pyproject.toml). The slot returns an object of
    this test's own: True and None are immortal on Python 3.12+, so their counts never
    move."""
    import sys

    from PySide6.QtCore import QObject, Signal

    class Emitter(QObject):
        ping = Signal()

    sentinel = object()
    emitter = Emitter()
    emitter.ping.connect(lambda: sentinel)
    before = sys.getrefcount(sentinel)
    for _ in range(200):
        emitter.ping.emit()
    # nothing else holds the sentinel: its count is back where it was after every call
    assert sys.getrefcount(sentinel) == before


def test_first_run_lists_likely_ml_folders(qtbot: QtBot, isolated_user_dirs: Path) -> None:
    (isolated_user_dirs / "bert-runs" / "checkpoint-500").mkdir(parents=True)
    win = MainWindow()
    qtbot.addWidget(win)
    assert "These look like ML folders" in win.recent.label.text()
    assert str(isolated_user_dirs / "bert-runs") in win.recent.label.text()
    with qtbot.waitSignal(win.scan_finished, timeout=30_000):
        win.recent.label.linkActivated.emit(str(isolated_user_dirs / "bert-runs"))
    assert win.ws.inventory.snapshot.roots == (str(isolated_user_dirs / "bert-runs"),)


def test_scanned_folders_are_offered_again_and_the_demo_is_not(
        qtbot: QtBot, isolated_user_dirs: Path) -> None:
    """A folder scanned comes first in *Open recent* and on the next start's welcome page;
    the demo's folder, made anew each time, is never remembered; a recent folder that is
    gone is not offered."""
    first, second = isolated_user_dirs / "proj-a", isolated_user_dirs / "proj-b"
    for folder in (first, second):
        (folder / "logs").mkdir(parents=True)
    win = MainWindow()
    qtbot.addWidget(win)
    assert not win.recent.menu.isEnabled()
    for folder in (first, second):
        with qtbot.waitSignal(win.scan_finished, timeout=30_000):
            win.open_paths([str(folder)])
    with qtbot.waitSignal(win.scan_finished, timeout=60_000):
        qtbot.mouseClick(win.welcome.demo_button, Qt.MouseButton.LeftButton)
    assert [a.text() for a in win.recent.menu.actions()] == [str(second), str(first)]
    (second / "logs").rmdir()
    second.rmdir()
    again = MainWindow()
    qtbot.addWidget(again)
    assert [a.text() for a in again.recent.menu.actions()] == [str(first)]
    assert "Recent folders" in again.recent.label.text() and str(first) in again.recent.label.text()
    with qtbot.waitSignal(again.scan_finished, timeout=30_000):
        again.recent.menu.actions()[0].trigger()
    assert again.ws.inventory.snapshot.roots == (str(first),)


def test_the_hard_link_shares_are_made_in_the_worker(qtbot: QtBot, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A Move to trash… by hand asks what hard links keep in the folder: that table is made
    with the plan's, off the GUI thread, even when no suggestion asked for it (a folder
    with nothing to suggest)."""
    import threading

    from gui_helpers import open_window

    from mlspace.scan import hardlinks

    made_on: list[threading.Thread] = []
    make = hardlinks._pinned

    def recorded(snap: object) -> object:
        made_on.append(threading.current_thread())
        return make(snap)

    monkeypatch.setattr(hardlinks, "_pinned", recorded)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("mine")
    window = open_window(qtbot, tmp_path / "notes")
    assert not window.ws.plan.suggestions
    snap = window.ws.inventory.snapshot
    assert len(hardlinks.pinned(snap).disk) == len(snap.dir_entry)  # made already, once:
    assert len(made_on) == 1
    assert made_on[0] is not threading.main_thread(), "made on the GUI thread"
