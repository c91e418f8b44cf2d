"""The questions every view asks about sizes, counts and categories of what is on disk
now, under the filter and the size mode: answered from the workspace's derived state, with
no Qt, so they are tested without a display (mlspace.ui.workspace holds that state and
tells the views when it changes)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from mlspace.classify import Category, CategoryTotals, Inventory
from mlspace.filtering import FilterResult
from mlspace.owners import owner_name, owners_of
from mlspace.scan import Totals
from mlspace.tables import shown
from mlspace.tables.categories import breakdown, dominant, dominant_of_many
from mlspace.tables.charts import category_bars, chart_tables, owner_bars
from mlspace.tables.now import CategoryTables, DiskNow


class ViewQueries:
    """Sizes, counts, categories and chart bars of the scan as it is now. A class that
    mixes this in keeps ``inventory``, ``now``, ``filter``, ``apparent`` and ``names_here``
    current and drops ``_shown`` whenever the filter or the disk changes."""

    inventory: Inventory | None
    now: DiskNow | None
    filter: FilterResult
    apparent: bool
    names_here: bool
    _shown: CategoryTables | None

    def _now(self) -> DiskNow:
        assert self.now is not None
        return self.now

    # ---------------------------------------------------------------- sizes and counts
    def size(self, entry: int) -> int:
        """What the row, tile or run shows: its size under the filter, in the size mode."""
        assert self.inventory is not None
        return self.filter.size(self.inventory, entry, self.apparent)

    def sizes(self, entries: Iterable[int]) -> np.ndarray:
        """``size`` of many entries in one pass (a list of runs, not one call a row)."""
        assert self.inventory is not None
        return self.filter.sizes(self.inventory, np.fromiter(entries, dtype=np.int64),
                                 self.apparent)

    def visible_children(self, folder: int) -> tuple[np.ndarray, np.ndarray]:
        """A folder's visible children and their sizes (-1: the scan roots), unsorted."""
        assert self.inventory is not None
        return shown.visible_children(self.inventory, self.filter, folder, self.apparent)

    def visible(self, entry: int) -> bool:
        assert self.inventory is not None
        return self.filter.visible(self.inventory, entry, self.apparent)

    def shown_files(self, entry: int) -> int | None:
        """Files a folder shows under the filter (None for a file)."""
        assert self.inventory is not None
        return shown.files_shown(self.inventory, self.filter, entry)

    def totals(self, entry: int) -> Totals:
        """An entry's totals as on disk now, whatever the filter: what is left of a folder,
        with its newest time (a folder a cleanup moved something out of is new)."""
        return self._now().totals(entry)

    # ---------------------------------------------------------------- categories
    def _categories_shown(self) -> CategoryTables:
        """Per folder row x category, of what the filter shows."""
        if self._shown is None:
            self._shown = shown.categories_shown(self._now(), self.filter)
        return self._shown

    def category_breakdown(self, entry: int) -> dict[Category, CategoryTotals]:
        """Per category, what an entry holds on disk now, whatever the filter."""
        return breakdown(self._now(), entry)

    def category_of(self, entry: int) -> Category:
        """What an entry is: a file's own category, a folder's commonest by space on disk
        now. The filter does not change it (Details says what the selection *is*)."""
        assert self.inventory is not None
        now = self._now().categories()
        return dominant(self.inventory, entry, now, now, self.apparent)

    def dominant_category(self, entry: int) -> Category:
        """The category holding most of what a row or tile shows: under a filter, of what
        the filter shows of it (with one category chosen, that one)."""
        assert self.inventory is not None
        one = shown.picked(self.filter.spec)
        if one is not None and self.inventory.snapshot.row_of(entry) >= 0:
            return one
        return dominant(self.inventory, entry, self._categories_shown(),
                        self._now().categories(), self.apparent)

    def dominant_categories(self, entries: list[int]) -> list[Category]:
        """dominant_category() of many entries at once (the treemap's thousands of tiles)."""
        assert self.inventory is not None
        return dominant_of_many(self.inventory, entries, self._categories_shown(),
                                self._now().categories(), self.apparent,
                                shown.picked(self.filter.spec))

    def owner_label(self, uid: int) -> str:
        return owner_name(uid, self.names_here)

    @property
    def shared(self) -> bool:
        """Does the scan hold more than one owner's files (the owner chart shows then)?"""
        return self.inventory is not None and len(owners_of(self.inventory.snapshot).uids) > 1

    def chart_owners(self) -> list[tuple[int, int]]:
        """The owner chart's bars: (uid, space) of each owner of something on disk now,
        largest first, in the size mode, whatever the filter (as the category chart)."""
        return owner_bars(self._now(), self.apparent)

    def chart_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """(space per category, space per age bucket x category) for the charts, in the
        current size mode, of what is on disk now. The user's filter is not applied here:
        the charts are where filters are chosen."""
        per_cat, table, _ = chart_tables(self._now(), self.apparent)
        return per_cat, table

    def chart_categories(self) -> list[tuple[Category, int]]:
        """The category chart's bars: every category that holds files or space now."""
        return category_bars(self._now(), self.apparent)
