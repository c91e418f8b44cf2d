"""The treemap: the focused folder's contents as nested tiles sized by space and coloured by
category. Hover shows path and size, click selects, double-click drills down, the breadcrumb
(and Backspace) goes back up. Tiles under 3 px are not drawn."""

from __future__ import annotations

import os

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.treemap import Rect, squarify
from mlspace.ui.colors import category_color, text_color_on
from mlspace.ui.tree_model import children_sizes
from mlspace.ui.workspace import Workspace

MIN_TILE = 3.0
MAX_DEPTH = 3
HEADER = 16.0  # a folder tile's label strip, when it is big enough to have one
SEPARATOR = "›"  # between the breadcrumb's folders


class TreemapCanvas(QWidget):
    tile_double_clicked = Signal(int)
    context_menu_requested = Signal(object)  # global QPoint

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.tiles: list[tuple[QRectF, int, int]] = []  # (rect, entry, depth), outer first
        # Each tile's colour and label, made with the layout: a repaint (hover, selection)
        # then only draws, and asks the workspace nothing for thousands of tiles.
        self._looks: list[tuple[QColor, str]] = []
        self.setMouseTracking(True)
        self.setMinimumSize(200, 150)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # Several signals often arrive together (load = inventory + focus + selection):
        # lay out once, on the next turn of the event loop.
        self._pending = QTimer(self, singleShot=True, interval=0)
        self._pending.timeout.connect(self.relayout)
        for signal in (workspace.view_changed, workspace.focus_changed):
            signal.connect(self._pending.start)
        workspace.inventory_changed.connect(self._new_scan)
        workspace.selection_changed.connect(self.update)

    def _new_scan(self) -> None:
        """The tiles name the old scan's entries: drop them now, before anything paints or
        hovers, and lay out the new scan on the next turn."""
        self.tiles, self._looks = [], []
        self._pending.start()

    def relayout(self, *_: object) -> None:
        self.tiles = []
        if self.ws.inventory is not None and self.ws.focus >= 0:
            self._layout(self.ws.focus, QRectF(self.rect()).adjusted(1, 1, -1, -1), 0)
        self._looks = [self._look(entry, depth) for _, entry, depth in self.tiles]
        self.update()

    def _look(self, entry: int, depth: int) -> tuple[QColor, str]:
        color = QColor(category_color(self.ws.dominant_category(entry))).lighter(100 + 12 * depth)
        name = self.ws.inventory.snapshot.name(entry)  # type: ignore[union-attr]
        return color, f"{os.path.basename(name) or name}  {fmt.size(self.ws.size(entry))}"

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        self._pending.start()

    def _layout(self, folder: int, area: QRectF, depth: int) -> None:
        kids = [(e, s) for e, s in children_sizes(self.ws, folder) if s > 0]
        if not kids or area.width() < MIN_TILE or area.height() < MIN_TILE:
            return
        rects = squarify([s for _, s in kids],
                         Rect(area.x(), area.y(), area.width(), area.height()),
                         min_area=MIN_TILE * MIN_TILE)
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        for (entry, _), r in zip(kids, rects, strict=True):
            tile = QRectF(r.x, r.y, r.w, r.h)
            if tile.width() < MIN_TILE or tile.height() < MIN_TILE:
                continue
            self.tiles.append((tile, entry, depth))
            if depth + 1 < MAX_DEPTH and snap.row_of(entry) >= 0 and tile.height() > 2 * HEADER:
                inner = tile.adjusted(2, HEADER, -2, -2)
                self._layout(entry, inner, depth + 1)

    def tile_at(self, pos: QPointF) -> int:
        """The innermost tile under a point (entry index, -1 for none)."""
        for rect, entry, _ in reversed(self.tiles):
            if rect.contains(pos):
                return entry
        return -1

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        if not self.tiles:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "Nothing to show here")
            return
        metrics = QFontMetrics(painter.font())
        border = palette.color(QPalette.ColorRole.Base)
        for (rect, entry, _), (color, text) in zip(self.tiles, self._looks, strict=True):
            painter.fillRect(rect, color)
            selected = entry == self.ws.selected
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Highlight), 3) if selected
                           else QPen(border, 1))
            painter.drawRect(rect)
            if rect.width() > 40 and rect.height() > metrics.height() + 2:
                painter.setPen(text_color_on(color))
                label = metrics.elidedText(text, Qt.TextElideMode.ElideRight,
                                           int(rect.width()) - 6)
                painter.drawText(rect.adjusted(3, 1, -3, 0),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, label)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        entry = self.tile_at(event.position())
        if entry >= 0:
            snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
            category = self.ws.dominant_category(entry).info.label
            QToolTip.showText(event.globalPosition().toPoint(),
                              f"{snap.path(entry)}\n{fmt.size(self.ws.size(entry))} · {category}",
                              self)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        entry = self.tile_at(event.position())
        if entry >= 0:
            self.ws.select(entry)
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802
        entry = self.tile_at(QPointF(event.pos()))
        if entry >= 0:
            self.ws.select(entry)
            self.context_menu_requested.emit(event.globalPos())

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Drill one level down: into the folder of the outermost tile under the pointer."""
        snap = self.ws.inventory.snapshot if self.ws.inventory else None
        outer = next((e for rect, e, depth in self.tiles
                      if depth == 0 and rect.contains(event.position())), -1)
        if outer >= 0 and snap is not None and snap.row_of(outer) >= 0:
            self.ws.set_focus(outer)
            self.tile_double_clicked.emit(outer)


class Breadcrumb(QWidget):
    """Buttons for the focused folder and each of its parents, with a separator between
    them as in a file manager's path bar: click one to go up."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(2)
        workspace.focus_changed.connect(self.refresh)
        workspace.inventory_changed.connect(self.refresh)

    def refresh(self, *_: object) -> None:
        while self.row.count():
            item = self.row.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        inv, entry = self.ws.inventory, self.ws.focus
        if inv is None or entry < 0:
            self.row.addStretch()
            return
        chain = []
        while entry >= 0:
            chain.append(entry)
            entry = inv.snapshot.parent(entry)
        for position, e in enumerate(reversed(chain)):
            if position:
                separator = QLabel(SEPARATOR)
                separator.setEnabled(False)  # drawn grey: it reads as punctuation, not a link
                self.row.addWidget(separator)
            path = inv.snapshot.path(e)
            # The scanned folder by its name (its path, as long as the row, is the tooltip).
            button = QPushButton(os.path.basename(path.rstrip("/")) or path)
            button.setToolTip(path)
            button.setFlat(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, target=e: self.ws.set_focus(target))
            self.row.addWidget(button)
        self.row.addStretch()


class TreemapView(QWidget):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.breadcrumb = Breadcrumb(workspace)
        self.canvas = TreemapCanvas(workspace)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.breadcrumb)
        layout.addWidget(self.canvas, 1)

    def go_up(self) -> None:
        inv = self.ws.inventory
        if inv is not None and self.ws.focus >= 0:
            parent = inv.snapshot.parent(self.ws.focus)
            if parent >= 0:
                self.ws.set_focus(parent)
