"""Category, owner and age charts (pyqtgraph). Clicking a bar filters every view to it; clicking
it again shows everything. Bars read the same numbers as the tree: the workspace's, of what
is on disk now, redrawn whenever those change (a filter, a cleanup, an undo).

Nothing in a chart is cut at any width from a 1024 px window up: the title is a label that
says as much as its width allows, and the value axis reaches far enough for the longest
bar's size to end inside the plot (sizes are drawn in pixels, bars in bytes, so how far
depends on the plot's width and is worked out again at every resize).
"""

from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from mlspace import fmt
from mlspace.ages import BUCKETS
from mlspace.classify import ORDER, Category
from mlspace.ui.colors import category_color
from mlspace.ui.workspace import Workspace

_BAR = 0.7
_LABEL_GAP = 4  # pixels kept free between a bar's size and the plot's right edge
_MIN_BAR = 40  # pixels the longest bar keeps when the chart is as narrow as it goes
_AXIS_ROOM = 12  # pixels of a plot's height that are not rows (the bottom axis, margins)
#: Owners' bars share one neutral colour: a colour per person would read as a category.
OWNER_COLOR = QColor("#5f7c99")
K = TypeVar("K")  # what a bar stands for: a Category, an owner's uid


def paint_like(plot: pg.PlotWidget, palette: QPalette) -> None:
    """A plot in the system's colours (light or dark): its background, axes and labels."""
    plot.setBackground(palette.color(QPalette.ColorRole.Base))
    text = palette.color(QPalette.ColorRole.Text)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).setTextPen(text)
        plot.getAxis(axis).setPen(text)


class FittingTitle(QLabel):
    """A chart title that says as much as its width allows: the longest of its wordings
    that fits, so a narrow chart reads "Space by age", not "Space by age (last modif"."""

    def __init__(self, wordings: tuple[str, ...]) -> None:
        super().__init__(wordings[0])
        self.wordings = wordings
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setToolTip(wordings[0])
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.setFont(font)

    def _width(self, text: str) -> int:
        margins = self.contentsMargins()
        return self.fontMetrics().horizontalAdvance(text) + margins.left() + margins.right()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self._width(self.wordings[0]), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self._width(self.wordings[-1]), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.setText(next((w for w in self.wordings if self._width(w) <= self.width()),
                          self.wordings[-1]))


class _BarChart(QWidget):
    """A horizontal bar chart with clickable bars, labels on the left axis and each bar's
    size at its end."""

    bar_clicked = Signal(int, float)  # bar index, value-axis position of the click
    bar_right_clicked = Signal(int, float, object)  # ... and the global QPoint for a menu

    def __init__(self, titles: tuple[str, ...]) -> None:
        super().__init__()
        self.title = FittingTitle(titles)
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.getAxis("bottom").setStyle(showValues=False)
        self.plot.showGrid(x=True, y=False, alpha=0.2)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        self.plot.getViewBox().sigResized.connect(self.fit_values)
        self.items: list[pg.GraphicsObject] = []
        self.value_labels: list[pg.TextItem] = []
        # Title and plot on one background, as pyqtgraph's own title was.
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.title)
        layout.addWidget(self.plot, 1)
        self.follow_palette()

    def follow_palette(self) -> None:
        paint_like(self.plot, self.palette())

    def clear(self) -> None:
        for item in self.items + self.value_labels:
            self.plot.removeItem(item)
        self.items, self.value_labels = [], []

    def set_labels(self, labels: list[str]) -> None:
        # An empty tick list makes pyqtgraph crash while painting: show no ticks instead.
        self.plot.getAxis("left").setTicks([list(enumerate(labels))] if labels else None)
        self.plot.setYRange(-0.6, max(len(labels), 1) - 0.4, padding=0)
        self.plot.getViewBox().invertY(True)
        # A row shorter than a line of text would draw its label over the next one's.
        self.plot.setMinimumHeight(max(len(labels), 1) * self.fontMetrics().lineSpacing()
                                   + _AXIS_ROOM)

    def add_segment(self, rows: np.ndarray, starts: np.ndarray, widths: np.ndarray,
                    colors: list[QColor], selected: list[bool]) -> None:
        pens = [pg.mkPen(self.palette().color(QPalette.ColorRole.Text), width=2) if s
                else pg.mkPen(None) for s in selected]
        item = pg.BarGraphItem(x0=starts, y=rows, width=widths, height=_BAR,
                               brushes=[pg.mkBrush(c) for c in colors], pens=pens)
        self.plot.addItem(item)
        self.items.append(item)

    def add_value_label(self, row: int, x: float, text: str) -> None:
        label = pg.TextItem(text, anchor=(0, 0.5),
                            color=self.palette().color(QPalette.ColorRole.Text))
        label.setPos(x, row)
        self.plot.addItem(label)
        self.value_labels.append(label)

    def fit_values(self) -> None:
        """Reach along the value axis just far enough for every size to end inside the plot
        (after the bars are added, and at every resize): a bar ending at ``x`` of ``reach``
        bytes is ``x / reach * width`` pixels long, its size ``text`` pixels more, and that
        must stay within ``width``."""
        width = self.plot.getViewBox().width()
        reach, widest = 1.0, 0.0
        for label in self.value_labels:
            text = label.textItem.boundingRect().width() + _LABEL_GAP
            reach = max(reach, label.pos().x() * width / max(width - text, 1.0))
            widest = max(widest, text)
        self.plot.setXRange(0, reach, padding=0)
        # However far a splitter is dragged, keep room for the labels, a size and a bar.
        self.plot.setMinimumWidth(int(self.plot.getAxis("left").width() + widest + _MIN_BAR))

    def _clicked(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        view = self.plot.getViewBox()
        if not view.sceneBoundingRect().contains(pos):
            return
        point: QPointF = view.mapSceneToView(pos)
        row = int(round(point.y()))
        if abs(point.y() - row) > _BAR / 2:
            return
        if event.button() == Qt.MouseButton.RightButton:  # type: ignore[attr-defined]
            screen = event.screenPos()  # type: ignore[attr-defined]
            self.bar_right_clicked.emit(row, point.x(), QPoint(int(screen.x()),
                                                               int(screen.y())))
        else:
            self.bar_clicked.emit(row, point.x())

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the system switched light/dark
            self.follow_palette()


class _OneBarEach(_BarChart, Generic[K]):
    """One bar per key (a category, an owner) with its size at its end: clicking a bar shows
    only that key in every view, clicking it again shows everything."""

    def __init__(self, workspace: Workspace, titles: tuple[str, ...]) -> None:
        super().__init__(titles)
        self.ws = workspace
        self.keys: list[K] = []  # each bar's key, top to bottom
        self.bar_clicked.connect(self._on_bar)
        for signal in (workspace.inventory_changed, workspace.view_changed):
            signal.connect(self.refresh)

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
        self.clear()
        pairs = self.values() if self.ws.inventory is not None else []
        self.keys = [k for k, _ in pairs]
        self.set_labels([self.label(k) for k in self.keys])
        if not pairs:
            return
        widths = np.array([v for _, v in pairs], dtype=float)
        chosen = self.chosen()
        self.add_segment(np.arange(len(pairs)), np.zeros(len(pairs)), widths,
                         [self.color(k) for k in self.keys],
                         [chosen is not None and k in chosen for k in self.keys])
        for row, width in enumerate(widths):
            self.add_value_label(row, width, " " + fmt.size(int(width)))
        self.fit_values()

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


class AgeChart(_BarChart):
    """Space per age bucket, stacked by category."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(("Space by age (last modified)", "Space by age", "By age"))
        self.ws = workspace
        self.stacks: list[list[tuple[Category, float, float]]] = []
        self.bar_clicked.connect(self._on_bar)
        for signal in (workspace.inventory_changed, workspace.view_changed):
            signal.connect(self.refresh)

    def table(self) -> np.ndarray:
        if self.ws.inventory is None or self.ws.ages is None:
            return np.zeros((len(BUCKETS), len(Category)))
        return self.ws.chart_tables()[1]

    def refresh(self) -> None:
        self.clear()
        self.set_labels([b.label for b in BUCKETS])
        table = self.table()
        spec = self.ws.filter.spec
        self.stacks = [[] for _ in BUCKETS]
        starts = np.zeros(len(BUCKETS))
        for cat in ORDER:
            widths = table[:, cat].astype(float)
            if not widths.any():
                continue
            selected = [spec.bucket == b and (spec.categories in (None, frozenset({cat})))
                        for b in range(len(BUCKETS))]
            self.add_segment(np.arange(len(BUCKETS)), starts.copy(), widths,
                             [category_color(cat)] * len(BUCKETS), selected)
            for b in range(len(BUCKETS)):
                if widths[b]:
                    self.stacks[b].append((cat, starts[b], starts[b] + widths[b]))
            starts += widths
        for row, total in enumerate(starts):
            self.add_value_label(row, total, " " + fmt.size(int(total)))
        self.fit_values()

    def _on_bar(self, row: int, x: float) -> None:
        """A click on a segment filters to that age and category; on the bar's label area
        (left of the bars' start, or past the end), to that age alone."""
        if not 0 <= row < len(BUCKETS):
            return
        segment = next((cat for cat, lo, hi in self.stacks[row] if lo <= x <= hi), None)
        self.ws.toggle_age(row, segment)
