"""Category, owner and age charts (pyqtgraph). Clicking a bar filters every view to it; clicking
it again shows everything. Bars read the same numbers as the tree: the workspace's, of what
is on disk now, redrawn whenever those change (a filter, a cleanup, an undo), each chart on
a turn of the event loop of its own (mlspace.ui.redraws).

Nothing in a chart is cut at any width from a 1024 px window up: each is a
:class:`~mlspace.ui.bar_chart.BarChart`, whose title and value axis fit its width.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel

from mlspace import fmt
from mlspace.ages import BUCKETS
from mlspace.classify import ORDER, Category
from mlspace.ui.bar_chart import BarChart, Segment
from mlspace.ui.colors import category_color
from mlspace.ui.workspace import Workspace

#: Owners' bars share one neutral colour: a colour per person would read as a category.
OWNER_COLOR = QColor("#5f7c99")
K = TypeVar("K")  # what a bar stands for: a Category, an owner's uid


class _OneBarEach(BarChart, Generic[K]):
    """One bar per key (a category, an owner) with its size at its end: clicking a bar shows
    only that key in every view, clicking it again shows everything."""

    def __init__(self, workspace: Workspace, titles: tuple[str, ...]) -> None:
        super().__init__(titles, segments=1)
        self.ws = workspace
        self.keys: list[K] = []  # each bar's key, top to bottom
        self.bar_clicked.connect(self._on_bar)
        for signal in (workspace.inventory_changed, workspace.view_changed):
            signal.connect(lambda: workspace.redraws.later(self.refresh))

    def values(self) -> list[tuple[K, int]]:
        """The bars: (key, space) of what is on disk now (the workspace's numbers)."""
        raise NotImplementedError

    def label(self, key: K) -> str:
        raise NotImplementedError

    def color(self, key: K) -> QColor:
        raise NotImplementedError

    def chosen(self) -> frozenset[K] | None:
        """The keys the filter shows (None: all)."""
        raise NotImplementedError

    def toggle(self, key: K) -> None:
        raise NotImplementedError

    def refresh(self) -> None:
        pairs = self.values() if self.ws.inventory is not None else []
        self.keys = [k for k, _ in pairs]
        self.set_labels([self.label(k) for k in self.keys])
        widths = np.array([v for _, v in pairs], dtype=float)
        chosen = self.chosen()
        self.set_segments([(np.arange(len(pairs)), np.zeros(len(pairs)), widths,
                            [self.color(k) for k in self.keys],
                            [chosen is not None and k in chosen for k in self.keys])]
                          if pairs else [])
        self.set_values([(row, width, " " + fmt.size(int(width)))
                         for row, width in enumerate(widths)])

    def _on_bar(self, row: int, _x: float) -> None:
        if 0 <= row < len(self.keys):
            self.toggle(self.keys[row])


class CategoryChart(_OneBarEach[Category]):
    """Space per category."""

    category_menu_requested = Signal(object, object)  # Category, global QPoint

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace, ("Space by category", "By category"))
        self.bar_right_clicked.connect(
            lambda row, _x, pos: 0 <= row < len(self.keys)
            and self.category_menu_requested.emit(self.keys[row], pos))
        # What the cold tier holds for this scan: not a category (those bytes are no longer
        # on this disk; their links or stubs are a few bytes each), so a line under the bars.
        self.archived = QLabel()
        self.archived.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.archived.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.layout().addWidget(self.archived)

    def refresh(self) -> None:
        super().refresh()
        archived = self.ws.archived_total() if self.ws.inventory is not None else 0
        self.archived.setText(f"Archived in the cold tier: {fmt.size(archived)}")
        self.archived.setToolTip("Moved to the cold tier from these folders; links or stubs "
                                 "stand in their place (Details says where each one is)")
        self.archived.setVisible(archived > 0)

    @property
    def categories(self) -> list[Category]:
        return self.keys

    def values(self) -> list[tuple[Category, int]]:
        """The bars: space per category of what is on disk now (the workspace's numbers)."""
        return [] if self.ws.inventory is None else self.ws.chart_categories()

    def label(self, key: Category) -> str:
        return key.info.label

    def color(self, key: Category) -> QColor:
        return category_color(key)

    def chosen(self) -> frozenset[Category] | None:
        return self.ws.filter.spec.categories

    def toggle(self, key: Category) -> None:
        self.ws.toggle_category(key)


class OwnerChart(_OneBarEach[int]):
    """Space per owner, shown only when the scan holds more than one owner's files: on a
    shared volume, whose checkpoints these are is the first question."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace, ("Space by owner", "By owner"))
        self.setVisible(False)

    def values(self) -> list[tuple[int, int]]:
        """The bars: space per owner (uid) of what is on disk now."""
        return self.ws.chart_owners() if self.ws.shared else []

    def refresh(self) -> None:
        self.setVisible(self.ws.shared)
        super().refresh()

    def label(self, key: int) -> str:
        return self.ws.owner_label(key)

    def color(self, key: int) -> QColor:
        return OWNER_COLOR

    def chosen(self) -> frozenset[int] | None:
        return self.ws.filter.spec.owners

    def toggle(self, key: int) -> None:
        self.ws.toggle_owner(key)


class AgeChart(BarChart):
    """Files' space per age bucket, stacked by category. Folders' own listings are left
    out: a folder's age changes whenever an entry in it comes or goes (a cleanup, an
    undo), so bars holding them could not stay equal to a fresh scan after each action."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(("Files by age (last modified)", "Files by age", "By age"),
                         segments=len(ORDER))
        self.title.setToolTip("The space of files, by when each was last modified. Folders' "
                              "own listings are not in these bars, so they add up to a "
                              "little less than the tree's total.")
        self.ws = workspace
        self.stacks: list[list[tuple[Category, float, float]]] = []
        self.bar_clicked.connect(self._on_bar)
        for signal in (workspace.inventory_changed, workspace.view_changed):
            signal.connect(lambda: workspace.redraws.later(self.refresh))

    def table(self) -> np.ndarray:
        if self.ws.inventory is None or self.ws.ages is None:
            return np.zeros((len(BUCKETS), len(Category)))
        return self.ws.chart_tables()[1]

    def refresh(self) -> None:
        self.set_labels([b.label for b in BUCKETS])
        table = self.table()
        spec = self.ws.filter.spec
        self.stacks = [[] for _ in BUCKETS]
        starts = np.zeros(len(BUCKETS))
        segments: list[Segment] = []
        for cat in ORDER:
            widths = table[:, cat].astype(float)
            if not widths.any():
                continue
            selected = [spec.bucket == b and (spec.categories in (None, frozenset({cat})))
                        for b in range(len(BUCKETS))]
            segments.append((np.arange(len(BUCKETS)), starts.copy(), widths,
                             [category_color(cat)] * len(BUCKETS), selected))
            for b in range(len(BUCKETS)):
                if widths[b]:
                    self.stacks[b].append((cat, starts[b], starts[b] + widths[b]))
            starts += widths
        self.set_segments(segments)
        self.set_values([(row, total, " " + fmt.size(int(total)))
                         for row, total in enumerate(starts)])

    def _on_bar(self, row: int, x: float) -> None:
        """A click on a segment filters to that age and category; on the bar's label area
        (left of the bars' start, or past the end), to that age alone."""
        if not 0 <= row < len(BUCKETS):
            return
        segment = next((cat for cat, lo, hi in self.stacks[row] if lo <= x <= hi), None)
        self.ws.toggle_age(row, segment)
