"""The right-click menus: of what is selected (in the tree, the treemap and the Runs tab),
and of a bar of the category chart.

A menu offers the suggestions that apply, then what the user may choose by hand (*Move to
trash…*, the cold tier's choices); every choice that moves something goes through the
window's one cleanup gate (``confirm_and_clean``), which asks first. The first item names
what the menu is about and is never an action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint
from PySide6.QtWidgets import QMenu

from mlspace import fmt
from mlspace.advise import REVIEW, RISKY, PlanItem, Suggestion
from mlspace.advise.model import plan_item
from mlspace.classify import Category
from mlspace.scan.hardlinks import pinned

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts

#: Which category's space each policy frees (for the right-click menu of a category bar).
POLICY_CATEGORY = {
    "checkpoint-retention": Category.CHECKPOINT, "strip-resume-state": Category.CHECKPOINT,
    "augmented-copies": Category.AUGMENTED, "debug-dumps": Category.DEBUG,
    "crash-leftovers": Category.CHECKPOINT, "python-caches": Category.CACHE,
    "datasets-cache": Category.CACHE, "log-archives": Category.LOG,
    "hub-detached": Category.CACHE,
    "archive-checkpoints": Category.CHECKPOINT, "archive-datasets": Category.DATASET,
    "archive-logs": Category.LOG,  # to the cold tier
}


class SelectionMenus(QObject):
    """Owned by the window; builds each menu when asked, from the workspace as it is then."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.ws = window.ws
        self.last: QMenu | None = None  # the menu shown last (a test reads what it offers)

    def popup(self, global_pos: QPoint) -> None:
        """Show the selection's menu at ``global_pos``."""
        self.last = self.for_selection()
        self.last.popup(global_pos)

    def for_selection(self) -> QMenu:
        """The selection's menu: its suggestions, then the choices by hand."""
        menu = QMenu(self.window)
        inv, entry = self.ws.inventory, self.ws.selected
        if inv is None or entry < 0:
            return menu
        snap = inv.snapshot
        menu.addAction(f"{snap.name(entry)} — {fmt.size(self.ws.size(entry))}").setEnabled(False)
        refused = self.ws.cleanup_refused([snap.path(entry)])
        if refused:
            menu.addAction(f"No cleanup from this scan: {refused}").setEnabled(False)
        for suggestion in self.ws.suggestions_for(entry):
            self._offer(menu, suggestion)
        menu.addSeparator()
        trash_action = menu.addAction("Move to trash…")
        trash_action.triggered.connect(lambda: self.trash_selected())
        if refused:
            trash_action.setEnabled(False)
        elif snap.row_of(entry) >= 0 and self.ws.filter.spec.narrows:
            trash_action.setEnabled(False)
            trash_action.setText("Move to trash… (show everything first: a filter hides part "
                                 "of this folder)")
        self.window.tiering.add_to_menu(menu, entry, refused)
        menu.addSeparator()
        menu.addAction(self.window.open_fm_action)
        menu.addAction(self.window.copy_path_action)
        menu.addAction("Show in treemap").triggered.connect(self.show_in_treemap)
        return menu

    def popup_for_category(self, category: object, global_pos: QPoint) -> None:
        """A category bar's menu: the suggestions that free space of that category, and
        *Show only* it."""
        assert isinstance(category, Category)
        menu = QMenu(self.window)
        size = dict(self.ws.chart_categories()).get(category, 0) if self.ws.inventory else 0
        menu.addAction(f"{category.info.label} — {fmt.size(size)}").setEnabled(False)
        for suggestion in self.ws.plan.suggestions if self.ws.plan else ():
            if POLICY_CATEGORY.get(suggestion.policy) == category:
                self._offer(menu, suggestion)
        menu.addSeparator()
        only = menu.addAction(f"Show only {category.info.label}")
        only.triggered.connect(lambda: self.ws.toggle_category(category))
        self.last = menu
        menu.popup(global_pos)

    def _offer(self, menu: QMenu, suggestion: Suggestion) -> None:
        """A suggestion as a menu item: what it frees, its reason on hover, off where this
        scan may not clean up."""
        act = menu.addAction(f"{suggestion.title} — frees {fmt.size(self.ws.frees(suggestion))}")
        act.setToolTip(suggestion.reason)
        act.setEnabled(not self.ws.cleanup_refused(suggestion.paths))
        act.triggered.connect(lambda: self.window.confirm_and_clean([suggestion]))

    def trash_selected(self, archive: bool = False) -> None:
        """A cleanup of the selection by hand, with the same checks and undo as suggestions;
        marked risky when it holds a checkpoint the tools' records point to, or raw data.
        ``archive``: to the cold tier, a link left (never risky: nothing leaves for good)."""
        inv, entry = self.ws.inventory, self.ws.selected
        if inv is None or entry < 0:
            return
        snap = inv.snapshot
        row = snap.row_of(entry)
        if row >= 0:  # what is left of it, as the cleanup's re-check will count it
            totals, held = self.ws.totals(entry), pinned(snap)
            item = PlanItem(snap.path(entry), True, totals.disk_usage - int(held.disk[row]),
                            totals.apparent_size - int(held.apparent[row]),
                            totals.newest_mtime, totals.files, int(snap.ino[entry]))
        else:
            item = plan_item(snap, entry)
        protected = {a for s in inv.series for a in s.protected}
        artifact = self.ws.artifact_at(entry)
        risky = (artifact is not None and artifact.id in protected) or \
            self.ws.category_of(entry).id == "dataset"
        reason = ("You chose this yourself. It holds a checkpoint a tool marks as best or latest, "
                  "or raw data." if risky else "You chose this yourself.")
        title = f"Archive {snap.name(entry)}" if archive else \
            f"Move {snap.name(entry)} to the trash"
        manual = Suggestion(f"manual-{entry}", "manual", title, reason,
                            RISKY if risky and not archive else REVIEW, (item,), None)
        self.window.confirm_and_clean([manual], archive)

    def show_in_treemap(self) -> None:
        """The treemap tab, opened on the selection's folder (a file's parent)."""
        inv, entry = self.ws.inventory, self.ws.selected
        if inv is None or entry < 0:
            return
        folder = entry if inv.snapshot.row_of(entry) >= 0 else inv.snapshot.parent(entry)
        self.ws.set_focus(folder)
        self.window.tabs.setCurrentWidget(self.window.treemap)
