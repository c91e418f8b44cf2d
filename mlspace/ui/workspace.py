"""The state every view shares: the inventory, the size mode, the filter and the selection.

Views never talk to each other; they listen to this object. Selecting a tile in the treemap
selects the row in the tree and fills the details panel because all three follow
``selection_changed`` here: one selection drives every view.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Signal

from mlspace.ages import AgeTable
from mlspace.classify import Artifact, Category, Inventory
from mlspace.filtering import FilterResult, FilterSpec, apply_filter


class Workspace(QObject):
    inventory_changed = Signal()
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
        self._artifact_at: dict[int, Artifact] = {}

    # ---------------------------------------------------------------- loading
    def load(self, inventory: Inventory, ages: AgeTable, apparent: bool | None = None) -> None:
        self.inventory = inventory
        self.ages = ages
        if apparent is not None:
            self.apparent = apparent
        self._artifact_at = {a.entry: a for a in inventory.artifacts}
        self.filter = apply_filter(inventory, ages, FilterSpec())
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
        self.filter = apply_filter(self.inventory, self.ages, spec)
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
        per_category = (inv.dir_category_apparent if self.apparent else inv.dir_category_disk)[row]
        if per_category.sum() == 0:
            return inv.category(entry)
        return Category(int(per_category.argmax()))
