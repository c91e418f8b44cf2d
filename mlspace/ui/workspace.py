"""The state every view shares: the inventory, the size mode, the filter and the selection.

Views never talk to each other; they listen to this object. Selecting a tile in the treemap
selects the row in the tree and fills the details panel because all three follow
``selection_changed`` here: one selection drives every view.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Signal

from mlspace.advise import AdviceSettings, Plan, Suggestion, advise
from mlspace.ages import BUCKETS, AgeTable
from mlspace.classify import Artifact, Category, Inventory
from mlspace.filtering import FilterResult, FilterSpec, apply_filter
from mlspace.paths import within
from mlspace.scan.walker import KIND_DIR


class Workspace(QObject):
    inventory_changed = Signal()
    plan_changed = Signal()
    view_changed = Signal()  # size mode or filter: sizes and visibility changed
    selection_changed = Signal(int)  # an entry index, -1 for none
    focus_changed = Signal(int)  # the folder the treemap shows

    def __init__(self) -> None:
        super().__init__()
        self.inventory: Inventory | None = None
        self.ages: AgeTable | None = None
        self.apparent = False
        self.filter = FilterResult(FilterSpec(), None, *(None,) * 3)  # type: ignore[arg-type]
        self.selected = -1
        self.focus = -1
        self.read_only_reason = ""
        self.plan: Plan | None = None
        self.full_plan: Plan | None = None
        self._gone: set[str] = set()  # paths moved to the trash since the scan
        self.removed: np.ndarray | None = None  # entries moved to the trash since the scan
        # Per-folder space by category without what was trashed: None until something is.
        self._folder_categories: tuple[np.ndarray, np.ndarray] | None = None
        self.advice = AdviceSettings()
        self._artifact_at: dict[int, Artifact] = {}

    # ---------------------------------------------------------------- loading
    def load(self, inventory: Inventory, ages: AgeTable, plan: Plan | None = None,
             apparent: bool | None = None) -> None:
        """Show a new scan. ``plan`` is computed with it in the worker thread; without one
        (tests, imports) it is computed here."""
        self.inventory = inventory
        self.ages = ages
        if apparent is not None:
            self.apparent = apparent
        self._artifact_at = {a.entry: a for a in inventory.artifacts}
        self.removed = np.zeros(len(inventory.snapshot), dtype=bool)
        self._folder_categories = None
        self._gone = set()
        self.filter = apply_filter(inventory, ages, FilterSpec())
        self.full_plan = plan if plan is not None else advise(inventory, self.advice)
        self.replan()
        roots = inventory.snapshot.root_entries
        self.selected = -1
        self.focus = roots[0] if len(roots) == 1 else -1
        self.inventory_changed.emit()
        self.focus_changed.emit(self.focus)

    @property
    def loaded(self) -> bool:
        return self.inventory is not None

    # ---------------------------------------------------------------- viewing
    def set_apparent(self, apparent: bool) -> None:
        if apparent != self.apparent:
            self.apparent = apparent
            self.view_changed.emit()

    def set_filter(self, spec: FilterSpec) -> None:
        if self.inventory is None or self.ages is None or spec == self.filter.spec:
            return
        self.filter = apply_filter(self.inventory, self.ages, spec, self.removed)
        self.view_changed.emit()

    def toggle_category(self, category: Category) -> None:
        """Click a category: show only it; click it again: show all."""
        current = self.filter.spec.categories
        chosen = None if current == frozenset({category}) else frozenset({category})
        self.set_filter(replace(self.filter.spec, categories=chosen))

    def toggle_age(self, bucket: int, category: Category | None = None) -> None:
        spec = self.filter.spec
        if spec.bucket == bucket and (category is None or spec.categories == {category}):
            self.set_filter(replace(spec, bucket=None, categories=None))
        else:
            cats = frozenset({category}) if category is not None else spec.categories
            self.set_filter(replace(spec, bucket=bucket, categories=cats))

    def clear_filter(self) -> None:
        self.set_filter(FilterSpec(min_size=0))

    def select(self, entry: int) -> None:
        if entry != self.selected:
            self.selected = entry
            self.selection_changed.emit(entry)

    def set_focus(self, entry: int) -> None:
        if entry != self.focus:
            self.focus = entry
            self.focus_changed.emit(entry)

    # ---------------------------------------------------------------- cleanups
    def replan(self) -> None:
        """The scan's suggestions that still apply: one that names anything moved to the
        trash since drops out, and comes back when that is undone (no re-advising)."""
        if self.inventory is None or self.full_plan is None:
            return
        gone = self._gone
        kept = tuple(s for s in self.full_plan.suggestions
                     if not gone or not any(within(p, gone) for p in s.paths))
        self.plan = Plan(self.full_plan.roots, kept)
        self.plan_changed.emit()

    def mark_removed(self, paths: list[str], removed: bool = True) -> None:
        """Paths moved to the trash (or, with removed=False, put back): update every view."""
        if self.inventory is None or self.removed is None:
            return
        snap = self.inventory.snapshot
        for path in paths:
            entry = snap.find(path)
            if entry >= 0:
                self.removed[list(snap.subtree(entry))] = removed
            (self._gone.add if removed else self._gone.discard)(path)
        self.filter = apply_filter(self.inventory, self.ages, self.filter.spec,  # type: ignore[arg-type]
                                   self.removed)
        disk, apparent, _ = self.inventory.folder_category_totals(self.removed)
        self._folder_categories = (disk, apparent)
        self.view_changed.emit()
        self.replan()

    def chart_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """(space per category, space per age bucket x category) for the charts, in the
        current size mode, without what was moved to the trash since the scan. The user's
        filter is not applied here: the charts are where filters are chosen."""
        assert self.inventory is not None and self.ages is not None
        inv, ages = self.inventory, self.ages
        snap = inv.snapshot
        n_cat = len(Category)
        if self.removed is None or not self.removed.any():
            totals = inv.category_totals()
            per_cat = np.array([(totals[c].apparent_size if self.apparent
                                 else totals[c].disk_usage) for c in Category])
            table = ages.by_category_apparent if self.apparent else ages.by_category
            return per_cat, table
        keep = ~self.removed & snap.counted
        sizes = snap.apparent if self.apparent else snap.blocks * 512
        per_cat = np.bincount(inv.categories[keep], weights=sizes[keep], minlength=n_cat)
        files = keep & (snap.kind != KIND_DIR)
        index = ages.buckets[files].astype(np.int64) * n_cat + inv.categories[files]
        table = np.bincount(index, weights=sizes[files], minlength=len(BUCKETS) * n_cat)
        return per_cat.astype(np.int64), table.reshape(len(BUCKETS), n_cat).astype(np.int64)

    def suggestions_for(self, entry: int) -> list[Suggestion]:
        """Suggestions that name this entry, lie inside it, or are about its series or run."""
        if self.inventory is None or self.plan is None or entry < 0:
            return []
        inv = self.inventory
        path = inv.snapshot.path(entry)
        artifact = self.artifact_at(entry)
        subjects = set()
        if artifact is not None:
            subjects |= {artifact.id, artifact.series, artifact.run}
        series_here = {s.id for s in inv.series
                       if s.path == path or s.path.startswith(path.rstrip("/") + "/")}
        return [s for s in self.plan.suggestions
                if s.subject in subjects | series_here
                or any(p == path or p.startswith(path.rstrip("/") + "/")
                       or path.startswith(p.rstrip("/") + "/") for p in s.paths)]

    # ---------------------------------------------------------------- queries
    def size(self, entry: int) -> int:
        assert self.inventory is not None
        return self.filter.size(self.inventory, entry, self.apparent)

    def visible_children(self, folder: int) -> tuple[np.ndarray, np.ndarray]:
        """A folder's visible children and their sizes (-1: the scan roots), unsorted."""
        assert self.inventory is not None
        snap = self.inventory.snapshot
        kids = (np.asarray(snap.root_entries, dtype=np.int64) if folder < 0 else
                np.arange(snap.children(folder).start, snap.children(folder).stop,
                          dtype=np.int64))
        sizes = self.filter.sizes(self.inventory, kids, self.apparent)
        keep = self.filter.visible_mask(self.inventory, kids, self.apparent, sizes)
        return kids[keep], sizes[keep]

    def visible(self, entry: int) -> bool:
        assert self.inventory is not None
        return self.filter.visible(self.inventory, entry, self.apparent)

    def artifact_at(self, entry: int) -> Artifact | None:
        """The innermost artifact containing ``entry`` (walking up its folders)."""
        assert self.inventory is not None
        snap = self.inventory.snapshot
        while entry >= 0:
            found = self._artifact_at.get(entry)
            if found is not None:
                return found
            entry = snap.parent(entry)
        return None

    def dominant_category(self, entry: int) -> Category:
        """The category holding most of an entry's space (its own, for a file)."""
        assert self.inventory is not None
        inv = self.inventory
        row = inv.snapshot.row_of(entry)
        if row < 0:
            return inv.category(entry)
        spec = self.filter.spec
        if spec.categories is not None and len(spec.categories) == 1:
            return next(iter(spec.categories))
        disk, apparent = self._folder_categories or (inv.dir_category_disk,
                                                     inv.dir_category_apparent)
        per_category = (apparent if self.apparent else disk)[row]
        if per_category.sum() == 0:
            return inv.category(entry)
        return Category(int(per_category.argmax()))
