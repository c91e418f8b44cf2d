"""Model-based: random sequences of what a person does in the window, on generated ML
workspaces, and after every step every number on screen equals a fresh scan of the disk.

Steps: click a category bar or an age segment, show everything, search, pick a minimum
size, switch the size mode, expand or collapse a folder, click a row of the tree or of the
Runs tab, apply a suggestion from the Suggestions tab, move the selection to the trash from
its right-click menu, undo (Ctrl+Z), rescan (F5). Cleanups go to the (test's own) trash
through the real controller and its worker thread; each step waits until the window says
it is done. The model is the disk itself: view_truth.fresh scans it again after each step
and builds the same views under the window's filter, selection and expanded folders.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gui_helpers import confirm_when_asked, show_tab
from hypothesis import HealthCheck, Phase, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from ml_trees import build, recipes
from PySide6.QtCore import QModelIndex, QPointF, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from view_truth import assert_agrees_with_disk

from mlspace.act import last_undoable
from mlspace.ui.filter_bar import MIN_SIZES
from mlspace.ui.main_window import MainWindow
from mlspace.ui.tree_model import NAME

WAIT_MS = 30_000


class ViewsFollowTheDisk(RuleBasedStateMachine):
    """One window on one generated workspace per example; its own trash and journal."""

    qtbot: QtBot
    monkeypatch: pytest.MonkeyPatch
    tmp: Path
    examples = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).examples += 1
        self.base = self.tmp / f"example-{self.examples}"
        home = self.base / "home"
        for var, sub in (("HOME", ""), ("XDG_DATA_HOME", ".local/share"),
                         ("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache")):
            (home / sub).mkdir(parents=True, exist_ok=True)
            self.monkeypatch.setenv(var, str(home / sub))
        self.window = MainWindow()
        self.qtbot.addWidget(self.window)
        self.window.resize(1280, 820)
        self.window.show()

    # ------------------------------------------------------------------ helpers
    def _rows(self) -> list[QModelIndex]:
        """Every row a person can see in the tree (the top level and expanded folders)."""
        model, tree, out = self.window.model, self.window.tree, []

        def visit(parent: QModelIndex) -> None:
            for r in range(model.rowCount(parent)):
                index = model.index(r, NAME, parent)
                out.append(index)
                if tree.isExpanded(index):
                    visit(index)

        visit(QModelIndex())
        return out

    def _tell(self, step: str, before: object) -> None:
        """Count in hypothesis' statistics what a cleanup or undo did, so a run shows that
        the steps reached the disk (``--hypothesis-show-statistics``)."""
        text = self.window.status.text()
        nothing = text.startswith(("Moved 0 ", "Put back 0 "))
        event(f"{step}: {'nothing moved' if nothing else 'moved'}"
              + (", then a rescan" if self.window.ws.inventory is not before else ""))

    def _click_bar(self, chart: object, row: int, x: float) -> None:
        plot = chart.plot  # type: ignore[attr-defined]
        pos = plot.mapFromScene(plot.getViewBox().mapViewToScene(QPointF(x, row)))
        self.qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=pos)

    # ------------------------------------------------------------------ steps
    @initialize(recipe=recipes())
    def open_workspace(self, recipe: object) -> None:
        root = build(self.base / "ws", recipe)  # type: ignore[arg-type]
        with self.qtbot.waitSignal(self.window.scan_finished, timeout=WAIT_MS):
            self.window.open_paths([str(root)])

    @rule(data=st.data())
    def click_a_category_bar(self, data: st.DataObject) -> None:
        chart = self.window.category_chart
        if not chart.categories:
            return
        row = data.draw(st.integers(0, len(chart.categories) - 1))
        width = dict(chart.values())[chart.categories[row]]
        self._click_bar(chart, row, width / 2)

    @rule(data=st.data())
    def click_an_age_segment(self, data: st.DataObject) -> None:
        chart = self.window.age_chart
        segments = [(b, lo, hi) for b, stack in enumerate(chart.stacks) for _, lo, hi in stack]
        if segments:
            bucket, lo, hi = data.draw(st.sampled_from(segments))
            self._click_bar(chart, bucket, (lo + hi) / 2)

    @rule()
    def show_everything(self) -> None:
        self.window.clear_filter_action.trigger()

    @rule(text=st.sampled_from(["checkpoint", "cache", ".pt", "log", "zz"]))
    def search(self, text: str) -> None:
        self.window.search.setText(text)
        self.qtbot.waitUntil(lambda: self.window.ws.filter.spec.text == text, timeout=WAIT_MS)

    @rule(index=st.integers(0, len(MIN_SIZES) - 1))
    def pick_a_minimum_size(self, index: int) -> None:
        self.window.min_size.setCurrentIndex(index)

    @rule()
    def switch_the_size_mode(self) -> None:
        self.window.apparent_box.click()

    @rule(data=st.data())
    def expand_or_collapse(self, data: st.DataObject) -> None:
        rows = [i for i in self._rows() if self.window.model.hasChildren(i)]
        if rows:
            index = data.draw(st.sampled_from(rows))
            tree = self.window.tree
            (tree.collapse if tree.isExpanded(index) else tree.expand)(index)

    @rule(data=st.data())
    def click_a_row(self, data: st.DataObject) -> None:
        rows = self._rows()
        if not rows:
            return  # the minimum size hides everything
        index = data.draw(st.sampled_from(rows))
        tree = self.window.tree
        tree.scrollTo(index)
        self.qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                              pos=tree.visualRect(index).center())

    @rule(data=st.data())
    def click_a_run(self, data: st.DataObject) -> None:
        runs = self.window.runs
        show_tab(self.window, runs)
        if runs.topLevelItemCount():
            item = runs.topLevelItem(data.draw(st.integers(0, runs.topLevelItemCount() - 1)))
            runs.scrollToItem(item)
            self.qtbot.mouseClick(runs.viewport(), Qt.MouseButton.LeftButton,
                                  pos=runs.visualItemRect(item).center())

    @precondition(lambda self: bool(self.window.ws.plan and self.window.ws.plan.suggestions))
    @rule(data=st.data())
    def apply_a_suggestion(self, data: st.DataObject) -> None:
        panel = self.window.suggestions
        show_tab(self.window, panel)
        item = data.draw(st.sampled_from(panel.suggestion_items()))
        item.setCheckState(0, Qt.CheckState.Checked)
        before = self.window.ws.inventory
        confirm_when_asked(self.window)
        with self.qtbot.waitSignal(self.window.cleanup_finished, timeout=WAIT_MS):
            self.qtbot.mouseClick(panel.clean_button, Qt.MouseButton.LeftButton)
        self._tell("suggestion", before)

    @rule(data=st.data())
    def right_click_a_row_and_move_it_to_the_trash(self, data: st.DataObject) -> None:
        """The right-click menu's "Move to trash…" (disabled on a folder a filter narrows);
        never on a scan root, which cannot be moved."""
        window = self.window
        rows = [i for i in self._rows() if i.parent().isValid()]
        if not rows:
            return
        index = data.draw(st.sampled_from(rows))
        window.tree.scrollTo(index)
        pos = window.tree.visualRect(index).center()
        QApplication.sendEvent(window.tree.viewport(), QContextMenuEvent(
            QContextMenuEvent.Reason.Mouse, pos, window.tree.viewport().mapToGlobal(pos)))
        move = next(a for a in window.menus.last.actions() if a.text().startswith("Move to"))
        window.menus.last.close()
        if move.isEnabled():
            before = window.ws.inventory
            confirm_when_asked(self.window)
            with self.qtbot.waitSignal(window.cleanup_finished, timeout=WAIT_MS):
                move.trigger()
            self._tell("move to trash", before)

    @precondition(lambda self: last_undoable() is not None)
    @rule()
    def undo(self) -> None:
        before = self.window.ws.inventory
        with self.qtbot.waitSignal(self.window.cleanup_finished, timeout=WAIT_MS):
            self.window.undo_action.trigger()
        self._tell("undo", before)

    @rule()
    def rescan(self) -> None:
        with self.qtbot.waitSignal(self.window.scan_finished, timeout=WAIT_MS):
            self.window.rescan_action.trigger()

    # ------------------------------------------------------------------ the model
    @invariant()
    def every_number_on_screen_is_the_disks(self) -> None:
        if self.window.ws.loaded:
            assert_agrees_with_disk(self.window)

    def teardown(self) -> None:
        self.window.close()


#: Sequences of the default run (a fixed draw: every run tries the same ones), and of the
#: deeper run that is opt-in (``-m slow``): each sequence costs seconds of GUI and rescans.
EXAMPLES, DEEPER = 8, 20


@pytest.mark.parametrize("examples", [EXAMPLES, pytest.param(DEEPER, marks=pytest.mark.slow)])
def test_every_number_on_screen_follows_the_disk(qtbot: QtBot, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 examples: int) -> None:
    ViewsFollowTheDisk.qtbot = qtbot
    ViewsFollowTheDisk.monkeypatch = monkeypatch
    ViewsFollowTheDisk.tmp = tmp_path
    # A fixed sequence of examples in every run (MLSPACE_MODEL_RANDOM=1 draws new ones, and
    # MLSPACE_MODEL_EXAMPLES=200 runs longer, for a deeper look).
    run_state_machine_as_test(ViewsFollowTheDisk, settings=settings(
        max_examples=int(os.environ.get("MLSPACE_MODEL_EXAMPLES", examples)),
        stateful_step_count=12, deadline=None, database=None,
        derandomize=not os.environ.get("MLSPACE_MODEL_RANDOM"),
        # Shrinking a GUI run takes minutes; a failure prints its (at most 12) steps anyway.
        phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck)))
