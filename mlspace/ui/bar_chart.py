"""The horizontal bar chart every chart of the app is drawn with (pyqtgraph): clickable
bars, labels on the left axis, each bar's size at its end, nothing cut at any width.

The title is a label that says as much as its width allows, and the value axis reaches far
enough for the longest bar's size to end inside the plot (sizes are drawn in pixels, bars in
bytes, so how far depends on the plot's width and is worked out again at every resize).
What the bars stand for is the charts' (mlspace.ui.charts).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

_BAR = 0.7
_LABEL_GAP = 4  # pixels kept free between a bar's size and the plot's right edge
_MIN_BAR = 40  # pixels the longest bar keeps when the chart is as narrow as it goes
_AXIS_ROOM = 12  # pixels of a plot's height that are not rows (the bottom axis, margins)
_TEXT_MARGIN = 4  # pixels on each side of a size's text (as pyqtgraph's TextItem keeps)

#: One colour's part of every bar: rows, where each part starts and how long it is (bytes),
#: its colour on each row, and whether each is outlined as the filter's choice.
Segment = tuple[np.ndarray, np.ndarray, np.ndarray, list[QColor], list[bool]]


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


class ValueLabels(pg.GraphicsObject):
    """Every bar's size at its end, drawn by this one item in pixels (over the bars, and the
    same size however far the value axis reaches). A pyqtgraph TextItem per size lays out a
    text document of its own, a millisecond or more apiece at every redraw (18 ms for the
    first one the app makes); this item measures plain text."""

    def __init__(self, view: pg.ViewBox, font: QFont) -> None:
        super().__init__()
        self.view = view
        self.text_font = font
        self.metrics = QFontMetricsF(font)
        self.color = QColor()
        self.labels: list[tuple[int, float, str]] = []  # row, where the bar ends, text
        self._drawn: list[QRectF] | None = None  # where the last paint put them (None:
        # a paint is due)
        # A child of the view box, not of its data: its coordinates are the box's pixels.
        self.setParentItem(view)
        self.setZValue(1)  # over the bars (the view box's data group is at 0)
        view.sigResized.connect(self._resized)
        view.sigTransformChanged.connect(self._moved)

    def _resized(self, *_: object) -> None:
        self.prepareGeometryChange()  # the bounding rectangle is the view box's

    def _moved(self, *_: object) -> None:
        """The view's range or size changed: redraw if the sizes moved with their bars.
        (pyqtgraph says so while it prepares a paint too: an update then would paint the
        plot a second time.)"""
        if self._drawn is not None and self.rects() != self._drawn:
            self._repaint()

    def set_labels(self, labels: list[tuple[int, float, str]], color: QColor) -> None:
        self.labels, self.color = labels, color
        self._repaint()

    def _repaint(self) -> None:
        self._drawn = None
        self.update()

    def texts(self) -> list[str]:
        return [text for _, _, text in self.labels]

    def text_width(self, text: str) -> float:
        """The pixels a size takes beside its bar, margins included."""
        return self.metrics.horizontalAdvance(text) + 2 * _TEXT_MARGIN

    def rects(self) -> list[QRectF]:
        """Where each size's text is drawn, in this item's coordinates (the view box's)."""
        height = self.metrics.height()
        out = []
        for row, x, text in self.labels:
            end = self.view.mapFromView(QPointF(x, row))
            out.append(QRectF(end.x() + _TEXT_MARGIN, end.y() - height / 2,
                              self.metrics.horizontalAdvance(text), height))
        return out

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self.view.rect()

    def paint(self, painter: QPainter, *_: object) -> None:
        painter.setFont(self.text_font)
        painter.setPen(self.color)
        self._drawn = self.rects()
        for rect, (_, _, text) in zip(self._drawn, self.labels, strict=True):
            painter.drawText(rect.bottomLeft() - QPointF(0, self.metrics.descent()), text)


class BarChart(QWidget):
    """A horizontal bar chart with clickable bars, labels on the left axis and each bar's
    size at its end."""

    bar_clicked = Signal(int, float)  # bar index, value-axis position of the click
    bar_right_clicked = Signal(int, float, object)  # ... and the global QPoint for a menu

    def __init__(self, titles: tuple[str, ...], segments: int) -> None:
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
        # An item per bar segment, made now and reused at every redraw: adding an item to
        # a plot costs pyqtgraph a millisecond or two (it connects the item to the view),
        # which the turn that shows a scan cannot spare. Those not needed are hidden.
        self._pool = [self._hidden_segment() for _ in range(segments)]
        self.items: list[pg.BarGraphItem] = []  # the segments drawn now
        self.value_labels = ValueLabels(self.plot.getViewBox(), self.font())
        self._ticks: list[str] | None = None  # the row labels the axis shows
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
        self.value_labels.set_labels(self.value_labels.labels, self._text_color())

    def _text_color(self) -> QColor:
        return self.palette().color(QPalette.ColorRole.Text)

    def set_labels(self, labels: list[str]) -> None:
        """The rows' labels on the left axis (redrawn only when they change: pyqtgraph then
        lays the axis out again)."""
        if labels == self._ticks:
            return
        self._ticks = labels
        # An empty tick list makes pyqtgraph crash while painting: show no ticks instead.
        self.plot.getAxis("left").setTicks([list(enumerate(labels))] if labels else None)
        self.plot.setYRange(-0.6, max(len(labels), 1) - 0.4, padding=0)
        self.plot.getViewBox().invertY(True)
        # A row shorter than a line of text would draw its label over the next one's.
        self.plot.setMinimumHeight(max(len(labels), 1) * self.fontMetrics().lineSpacing()
                                   + _AXIS_ROOM)

    def _hidden_segment(self) -> pg.BarGraphItem:
        item = pg.BarGraphItem(x0=[0.0], y=[0.0], width=[0.0], height=_BAR)
        item.hide()
        self.plot.addItem(item)
        return item

    def set_segments(self, segments: list[Segment]) -> None:
        """Draw these bar segments (a segment: one colour's part of every bar)."""
        selected_pen = pg.mkPen(self._text_color(), width=2)
        no_pen = pg.mkPen(None)
        shown = self._pool[:len(segments)]
        for item, (rows, starts, widths, colors, selected) in zip(shown, segments, strict=True):
            item.setOpts(x0=starts, y=rows, width=widths, height=_BAR,
                         brushes=[pg.mkBrush(c) for c in colors],
                         pens=[selected_pen if s else no_pen for s in selected])
            item.show()
        for item in self._pool[len(segments):]:
            item.hide()
        self.items = shown

    def set_values(self, labels: list[tuple[int, float, str]]) -> None:
        """Each bar's size (row, where the bar ends, text) at its end, and the value axis
        fitted to them."""
        self.value_labels.set_labels(labels, self._text_color())
        self.fit_values()

    def fit_values(self) -> None:
        """Reach along the value axis just far enough for every size to end inside the plot
        (after the bars are added, and at every resize): a bar ending at ``x`` of ``reach``
        bytes is ``x / reach * width`` pixels long, its size ``text`` pixels more, and that
        must stay within ``width``."""
        width = self.plot.getViewBox().width()
        reach, widest = 1.0, 0.0
        for _, x, label in self.value_labels.labels:
            text = self.value_labels.text_width(label) + _LABEL_GAP
            reach = max(reach, x * width / max(width - text, 1.0))
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
