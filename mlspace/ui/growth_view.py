"""The Growth tab: space per category over the saved scans of the folders shown, stacked, and
a click on a scan to compare it with now.

Every scan the app finishes is kept in mlspace's history (mlspace.ui.saved_scans), as is
``mlspace scan PATH --save``; this tab reads the history's scans of exactly the folders
shown. The chart needs only each scan's totals, which sit in its file's footer, and those
are read in a worker thread (mlspace.ui.threads.Background) whenever a new scan is shown
(once the other views have drawn it).
Clicking a scan reads that whole scan, also in a worker, and matches it entry by entry with
the scan shown (mlspace.index.growth.sizes_then); the workspace then derives each entry's
change from it and what is on disk now, so the tree's Change column and the treemap's growth
colours follow a cleanup or an undo like every other number. A rescan of the same folders
matches the chosen scan again.
"""

from __future__ import annotations

import html
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor, QPalette, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from mlspace.classify import ORDER
from mlspace.index.growth import GrowthPoint, SizesThen, growth_points, short_date, sizes_then
from mlspace.scan import Snapshot
from mlspace.ui.bar_chart import paint_like
from mlspace.ui.colors import category_color
from mlspace.ui.threads import Background
from mlspace.ui.workspace import Workspace

NO_HISTORY = ("<b>No saved scans of this folder yet.</b><br>Every scan the app finishes is "
              "kept in mlspace's history (not a cancelled scan, nor the demo), and so is "
              "<code>mlspace scan PATH --save</code>. Scan this folder again later (F5), "
              "and this tab shows how each category grew, scan by scan.")
#: How near (in pixels, along the time axis) a click must be to a scan to pick it.
PICK_PX = 24
_UNITS = ("Bytes", "KiB", "MiB", "GiB", "TiB", "PiB")


def _unit(largest: float) -> tuple[float, str]:
    """The binary unit the chart's size axis counts in: the largest size reads 1 to 1023."""
    power = 0
    while power + 1 < len(_UNITS) and largest >= 1024 ** (power + 1):
        power += 1
    return float(1024 ** power), _UNITS[power]


def _compare(point: GrowthPoint, shown: Snapshot) -> tuple[GrowthPoint, SizesThen]:
    """Read a saved scan and match it with the scan shown (in the worker)."""
    from mlspace.index.saved import open_saved

    return point, sizes_then(open_saved(point.path).snapshot, shown)


class GrowthView(QWidget):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.points: list[GrowthPoint] = []
        self.chosen: GrowthPoint | None = None  # the scan compared (or being read)
        self._roots: tuple[str, ...] = ()  # the folders the points are of
        self.reader = Background(self)  # the history's footers
        self.comparer = Background(self)  # a whole saved scan, matched with the one shown
        self.markers: pg.ScatterPlotItem | None = None  # a point per scan, on the total

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.plot = pg.PlotWidget(axisItems={"bottom": pg.DateAxisItem()})
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(x=False, y=True, alpha=0.2)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.comparing = QLabel()
        self.comparing.setWordWrap(True)
        self.stop = QPushButton("Stop comparing")
        self.stop.clicked.connect(self.stop_comparing)
        bottom = QHBoxLayout()
        bottom.addWidget(self.comparing, 1)
        bottom.addWidget(self.stop)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend)
        layout.addLayout(bottom)
        paint_like(self.plot, self.palette())

        # Its reader thread would slow down the turns that draw the new scan: it starts once
        # they are done (mlspace.ui.redraws).
        workspace.inventory_changed.connect(lambda: workspace.redraws.once_drawn(self.reload))
        self._apparent = workspace.apparent  # the size mode the chart is drawn in
        self._stale = False  # the chart is to be drawn when the tab is shown
        self._problem = ""  # why the history could not be read
        workspace.view_changed.connect(self._size_mode_changed)
        workspace.compare_changed.connect(self._show_comparing)
        self.reload()

    # ---------------------------------------------------------------- the history
    def reload(self) -> None:
        """A scan is shown: read its folders' history (the new scan is in it by now), and
        compare again with the scan chosen before, when the folders are the same."""
        inv = self.ws.inventory
        roots = tuple(inv.snapshot.roots) if inv is not None else ()
        if roots != self._roots:
            self.chosen = None
        self._roots = roots
        if not roots:
            self.points = []
            self.redraw()
            return
        self.reader.run(lambda: growth_points(roots), self._got_points, self._no_points)
        if self.chosen is not None:
            self.compare(self.chosen)
        self._show_comparing()

    def _got_points(self, points: object) -> None:
        assert isinstance(points, list)
        self.points, self._problem = points, ""
        self.redraw()

    def _no_points(self, message: str) -> None:
        self.points = []
        self._problem = f"The history could not be read: {html.escape(message)}"
        self.redraw()

    # ---------------------------------------------------------------- the chart
    def _size_mode_changed(self) -> None:
        """The view changed: the chart only follows the size mode (not the filter, nor the
        disk: its numbers are the saved scans')."""
        if self.ws.apparent != self._apparent:
            self.redraw()

    def redraw(self) -> None:
        """Draw the chart now if the tab shows, else when it is shown (a hidden chart's
        pyqtgraph items cost tens of milliseconds at every new scan for nothing)."""
        self._apparent = self.ws.apparent
        self._stale = not self.isVisible()
        if not self._stale:
            self._draw()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._stale:
            self._draw()
            self._stale = False

    def _draw(self) -> None:
        self.plot.clear()
        self.markers = None
        points = self.points
        self.legend.setVisible(bool(points))
        self.plot.setVisible(bool(points))
        if not points:
            self.summary.setText(self._problem or (NO_HISTORY if self._roots else ""))
            return
        apparent = self.ws.apparent
        x = np.array([p.finished for p in points])
        sizes = np.array([p.sizes(apparent) for p in points], dtype=float)  # scan x category
        scale, unit = _unit(float(sizes.sum(axis=1).max()))
        below = np.zeros(len(points))
        shown = [c for c in ORDER if sizes[:, c].any()]
        for category in shown:
            above = below + sizes[:, category] / scale
            color = category_color(category)
            lower = pg.PlotDataItem(x, below, pen=pg.mkPen(None))
            upper = pg.PlotDataItem(x, above, pen=pg.mkPen(color, width=1.5))
            fill = QColor(color)
            fill.setAlpha(170)
            self.plot.addItem(pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(fill)))
            self.plot.addItem(upper)
            below = above
        text = self.palette().color(QPalette.ColorRole.Text)
        self.markers = pg.ScatterPlotItem(
            x, below, brush=pg.mkBrush(self.palette().color(QPalette.ColorRole.Base)),
            pen=pg.mkPen(text, width=2))
        self._mark_chosen()
        self.plot.addItem(self.markers)
        self.plot.getAxis("left").setLabel(unit)
        pad = max(float(x.max() - x.min()) * 0.05, 60.0)
        self.plot.setXRange(float(x.min()) - pad, float(x.max()) + pad, padding=0)
        top = float(below.max()) or 1.0
        self.plot.setYRange(-0.04 * top, 1.08 * top, padding=0)  # whole markers at 0 too
        self.legend.setText(" ".join(
            f"<span style='color:{category_color(c).name()}'>■</span>&nbsp;"
            f"{html.escape(c.info.label)}&nbsp;&nbsp;" for c in shown))
        first = time.strftime("%Y-%m-%d %H:%M", time.localtime(points[0].finished))
        size_mode = "apparent size" if apparent else "space on disk"
        self.summary.setText(
            f"{len(points)} saved scan{'s' if len(points) != 1 else ''} of "
            f"{html.escape(', '.join(self._roots))} since {first} ({size_mode}). Click a "
            "scan to compare it with now.")

    def _mark_chosen(self) -> None:
        """The scan compared is drawn larger than the others."""
        if self.markers is not None:
            chosen = self.chosen.id if self.chosen is not None else None
            self.markers.setSize([14 if p.id == chosen else 8 for p in self.points])

    def point_at(self, index: int) -> tuple[float, float]:
        """Where a scan's point is drawn, in the plot's coordinates (tests click there)."""
        apparent = self.ws.apparent
        scale, _ = _unit(max(sum(p.sizes(apparent)) for p in self.points))
        point = self.points[index]
        return point.finished, sum(point.sizes(apparent)) / scale

    def _clicked(self, event: object) -> None:
        """A click picks the scan nearest to it along the time axis, if near enough."""
        view = self.plot.getViewBox()
        pos = event.scenePos()  # type: ignore[attr-defined]
        if not self.points or not view.sceneBoundingRect().contains(pos):
            return
        xs = [view.mapViewToScene(QPointF(p.finished, 0)).x() for p in self.points]
        nearest = int(np.argmin([abs(x - pos.x()) for x in xs]))
        if abs(xs[nearest] - pos.x()) <= PICK_PX:
            self.compare(self.points[nearest])

    # ---------------------------------------------------------------- comparing
    def compare(self, point: GrowthPoint) -> None:
        """Read that scan and match it with the scan shown, in the worker. The worker starts
        on a turn after the click is answered on screen: started first, its reading took
        the interpreter from the window while the plot laid itself out again."""
        inv = self.ws.inventory
        if inv is None:
            return
        self.chosen = point
        self._show_comparing()
        self._mark_chosen()
        shown = inv.snapshot

        def start() -> None:
            if self.chosen is point:  # not another scan picked meanwhile
                self.comparer.run(lambda: _compare(point, shown), self._compared,
                                  self._not_compared)
        self.ws.redraws.later(start)

    def _compared(self, result: object) -> None:
        point, then = result  # type: ignore[misc]
        if self.chosen is not None and point.id == self.chosen.id:
            self.ws.set_compared(point, then)  # refused if another scan is shown by now

    def _not_compared(self, message: str) -> None:
        self.chosen = None
        self.ws.set_compared(None)
        self.comparing.setText(f"That scan could not be read: {message}")
        self._mark_chosen()

    def stop_comparing(self) -> None:
        self.chosen = None
        self.ws.set_compared(None)
        self._mark_chosen()

    def _show_comparing(self) -> None:
        compared, chosen = self.ws.compared, self.chosen
        self.stop.setVisible(chosen is not None)
        if chosen is None:
            self.comparing.setText("")
        elif compared is None or compared.id != chosen.id:
            self.comparing.setText(f"Reading the scan of {short_date(chosen.finished)}…")
        else:
            since = time.strftime("%Y-%m-%d %H:%M", time.localtime(compared.finished))
            host = f" on {compared.host}" if compared.host else ""
            self.comparing.setText(f"Comparing with the scan of {since}{host}: see the tree's "
                                   "Change column, and the treemap's Colour by growth.")

    def wait(self) -> None:
        """Let the workers finish (the window closes)."""
        self.reader.wait()
        self.comparer.wait()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the system switched light/dark
            paint_like(self.plot, self.palette())
            self.redraw()
