"""The treemap: the focused folder's contents as nested tiles sized by space and coloured by
category, or, while a saved scan is compared (the Growth tab), by how much each grew or
shrank since. Hover shows path and size, click selects, double-click drills down, the
breadcrumb (and Backspace) goes back up. Tiles under 3 px are not drawn."""

from __future__ import annotations

import os

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFontMetrics,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.index.growth import short_date
from mlspace.treemap import Rect, squarify
from mlspace.ui.colors import GREW, SHRANK, UNCHANGED, category_color, growth_color, text_color_on
from mlspace.ui.tree_model import children_sizes
from mlspace.ui.workspace import Workspace

MIN_TILE = 3.0
MAX_DEPTH = 3
HEADER = 16.0  # a folder tile's label strip, when it is big enough to have one
LABEL_WIDTH = 40  # tiles narrower than this show no label
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
        self._sizes: list[int] = []  # each tile's size as laid out (what its label says)
        self.by_growth = False  # colour by growth, while a saved scan is compared
        self.setMouseTracking(True)
        self.setMinimumSize(200, 150)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # Several signals often arrive together (load = inventory + focus + selection):
        # lay out once, on a turn of the event loop of its own.
        for signal in (workspace.view_changed, workspace.focus_changed):
            signal.connect(self.relayout_later)
        workspace.compare_changed.connect(self._compared)
        workspace.inventory_changed.connect(self._new_scan)
        workspace.selection_changed.connect(self.update)

    def _new_scan(self) -> None:
        """The tiles name the old scan's entries: drop them now, before anything paints or
        hovers, and lay out the new scan on a later turn."""
        self.tiles, self._looks = [], []
        self.relayout_later()

    def relayout_later(self, *_: object) -> None:
        self.ws.redraws.later(self.relayout)

    def relayout(self) -> None:
        self.tiles, self._sizes = [], []
        if self.ws.inventory is not None and self.ws.focus >= 0:
            self._layout(self.ws.focus, QRectF(self.rect()).adjusted(1, 1, -1, -1), 0)
        self._looks = self._make_looks()
        self.update()

    def _make_looks(self) -> list[tuple[QColor, str]]:
        """Every tile's colour, and the label of those big enough to show one (a label is
        made for the few hundred tiles that show text, not the thousands that do not)."""
        text_height = QFontMetrics(self.font()).height() + 2
        shown = [rect.width() > LABEL_WIDTH and rect.height() > text_height
                 for rect, _, _ in self.tiles]
        return self._looks_for([(e, d) for _, e, d in self.tiles], self._sizes, shown)

    def _looks_for(self, tiles: list[tuple[int, int]], sizes: list[int],
                   labelled: list[bool]) -> list[tuple[QColor, str]]:
        """Colours (and labels where ``labelled``) of (entry, depth) tiles of ``sizes``, by
        one batch question to the workspace, not one per tile."""
        entries = [entry for entry, _ in tiles]
        if not entries:
            return []
        changes = self.ws.changes(entries) if self.growing else None
        if changes is not None:
            change, now = (values.tolist() for values in changes)
            shares = [c / max(n, n - c, 1) for c, n in zip(change, now, strict=True)]
            scale = {share: growth_color(share) for share in set(shares)}  # most are 0
            colors = [scale[share] for share in shares]
            numbers: list[str | None] = [fmt.change(c) if show else None
                                         for c, show in zip(change, labelled, strict=True)]
        else:
            colors = [category_color(c) for c in self.ws.dominant_categories(entries)]
            numbers = [fmt.size(size) if show else None
                       for size, show in zip(sizes, labelled, strict=True)]
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        shades: dict[tuple[int, int], QColor] = {}  # (colour, depth): a few dozen at most
        looks = []
        for (entry, depth), color, number in zip(tiles, colors, numbers, strict=True):
            key = (color.rgba(), depth)
            shade = shades.get(key)
            if shade is None:
                shade = shades[key] = color.lighter(100 + 12 * depth)
            if number is None:
                looks.append((shade, ""))
            else:
                name = snap.name(entry)
                looks.append((shade, f"{os.path.basename(name) or name}  {number}"))
        return looks

    @property
    def growing(self) -> bool:
        """Are tiles coloured by growth now (asked for, and a saved scan is compared)?"""
        return self.by_growth and self.ws.compared is not None

    def _compared(self) -> None:
        """Another saved scan compared (or none): only the growth colours change."""
        if self.by_growth:
            self.relayout_later()

    def set_by_growth(self, on: bool) -> None:
        self.by_growth = on
        self.relayout_later()

    def look_of(self, entry: int) -> tuple[QColor, str] | None:
        """The colour and label of an entry's tile as drawn (None: no tile)."""
        for (_, tile, depth), size, look in zip(self.tiles, self._sizes, self._looks,
                                                strict=True):
            if tile == entry:
                return look if look[1] else self._looks_for([(entry, depth)], [size],
                                                            [True])[0]
        return None

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        self.relayout_later()

    def _layout(self, folder: int, area: QRectF, depth: int) -> None:
        kids = [(e, s) for e, s in children_sizes(self.ws, folder) if s > 0]
        if not kids or area.width() < MIN_TILE or area.height() < MIN_TILE:
            return
        rects = squarify([s for _, s in kids],
                         Rect(area.x(), area.y(), area.width(), area.height()),
                         min_area=MIN_TILE * MIN_TILE)
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        for (entry, size), r in zip(kids, rects, strict=True):
            if r.w < MIN_TILE or r.h < MIN_TILE:  # most of a big folder's files
                continue
            tile = QRectF(r.x, r.y, r.w, r.h)
            self.tiles.append((tile, entry, depth))
            self._sizes.append(size)
            if depth + 1 < MAX_DEPTH and r.h > 2 * HEADER and snap.row_of(entry) >= 0:
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
        text_height = metrics.height() + 2
        border = QPen(palette.color(QPalette.ColorRole.Base), 1)
        highlight = QPen(palette.color(QPalette.ColorRole.Highlight), 3)
        selected = self.ws.selected
        for (rect, entry, _), (color, text) in zip(self.tiles, self._looks, strict=True):
            painter.fillRect(rect, color)
            painter.setPen(highlight if entry == selected else border)
            painter.drawRect(rect)
            if text and rect.width() > LABEL_WIDTH and rect.height() > text_height:
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
            text = f"{snap.path(entry)}\n{fmt.size(self.ws.size(entry))} · {category}"
            change, compared = self.ws.change(entry), self.ws.compared
            if change is not None and compared is not None:
                text += f"\n{fmt.change(change)} since {short_date(compared.finished)}"
            QToolTip.showText(event.globalPosition().toPoint(), text, self)

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
        workspace.focus_changed.connect(lambda: workspace.redraws.later(self.refresh))
        workspace.inventory_changed.connect(self._new_scan)

    def _new_scan(self) -> None:
        """The buttons name the old scan's folders: drop them now, before one is clicked,
        and show the new scan's on a later turn."""
        self._clear()
        self.ws.redraws.later(self.refresh)

    def _clear(self) -> None:
        while self.row.count():
            item = self.row.takeAt(0)
            if item.widget():
                item.widget().deleteLater()

    def refresh(self) -> None:
        self._clear()
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


class GrowthLegend(QWidget):
    """The growth colours' scale under the treemap: what green, grey and red mean."""

    ENDS = ("all of it went", "unchanged", "all of it is new")

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        metrics = self.fontMetrics()
        self.setMinimumHeight(3 * metrics.height() + 4)  # the scale, its ends, the caption
        self.setMinimumWidth(sum(metrics.horizontalAdvance(t) for t in self.ENDS) + 40)

    def caption(self) -> str:
        compared = self.ws.compared
        since = short_date(compared.finished) if compared else "the compared scan"
        return f"Colour: the share of each tile that changed since {since}"

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        metrics = painter.fontMetrics()
        line = metrics.height()
        bar = QRectF(4, 2, self.width() - 8, line - 4)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for stop, color in ((0.0, SHRANK), (0.5, UNCHANGED), (1.0, GREW)):
            gradient.setColorAt(stop, color)
        painter.fillRect(bar, gradient)
        painter.setPen(self.palette().color(QPalette.ColorRole.Text))
        row = QRectF(4, line, self.width() - 8, line)
        for text, align in zip(self.ENDS, (Qt.AlignmentFlag.AlignLeft,
                                           Qt.AlignmentFlag.AlignHCenter,
                                           Qt.AlignmentFlag.AlignRight), strict=True):
            painter.drawText(row, align | Qt.AlignmentFlag.AlignTop, text)
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(QRectF(4, 2 * line, self.width() - 8, line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                         metrics.elidedText(self.caption(), Qt.TextElideMode.ElideRight,
                                            self.width() - 8))


class TreemapView(QWidget):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.breadcrumb = Breadcrumb(workspace)
        self.canvas = TreemapCanvas(workspace)
        self.by_growth = QCheckBox("Colour by growth")
        self.by_growth.setToolTip("Green: shrank, red: grew since the saved scan compared in "
                                  "the Growth tab")
        self.by_growth.toggled.connect(self.canvas.set_by_growth)
        self.by_growth.toggled.connect(self._show_legend)
        self.legend = GrowthLegend(workspace)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.breadcrumb, 1)
        top.addWidget(self.by_growth)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.legend)
        workspace.compare_changed.connect(self._show_legend)
        workspace.inventory_changed.connect(self._show_legend)
        self._show_legend()

    def _show_legend(self) -> None:
        """The toggle applies only while a saved scan is compared; so does the legend."""
        comparing = self.ws.compared is not None
        self.by_growth.setVisible(comparing)
        self.legend.setVisible(comparing and self.by_growth.isChecked())
        self.legend.update()

    def go_up(self) -> None:
        inv = self.ws.inventory
        if inv is not None and self.ws.focus >= 0:
            parent = inv.snapshot.parent(self.ws.focus)
            if parent >= 0:
                self.ws.set_focus(parent)
