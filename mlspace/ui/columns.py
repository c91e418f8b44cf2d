"""Columns that fit the view they are in, from a 1024 px laptop to a wide screen.

Every column but the name is as wide as its widest text, header included, so no number,
date or header is ever cut; the name column takes what is left and elides in the middle,
where a path's least telling part is. When the view is too narrow for that, the least
important columns are hidden, one at a time, until the name has room again, and come back
when the view grows: a column cut at the view's edge or squeezed to "2026-11-30 (…" is worse
than one that is not there. A column that is otherwise always shown (the change since a
compared scan) gives way too when a pane dragged narrow would leave the names almost nothing.

Only the rows on screen are measured (Qt's ResizeToContents measures a thousand more, which
costs seconds when a folder of 20,000 files is expanded), so a column widens as wider rows
scroll in; it narrows again only when the rows change as a whole (a sort, a filter, a new
scan), so columns do not come and go while scrolling.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader, QTreeView

#: The room the name column keeps before any optional column shows (less, and names at a
#: few levels deep are elided to nothing).
NAME_ROOM = 200
#: Less than this, and even a column that is never optional gives way (a pane dragged
#: narrow): names elided to "ch…00" tell nothing, whatever the columns beside them say.
NAME_MIN = 120


class FitColumns(QObject):
    """Keeps ``view``'s columns fitted (see the module docstring). ``optional`` lists the
    columns that may be hidden, the first to go first."""

    def __init__(self, view: QTreeView, name: int = 0, optional: Sequence[int] = (),
                 last_resort: Sequence[int] = ()) -> None:
        super().__init__(view)
        self.view, self.name, self.optional = view, name, tuple(optional)
        self.last_resort = frozenset(last_resort)  # shown but where the names lack NAME_MIN
        self._widest: dict[int, int] = {}  # per column, since the rows last changed whole
        view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = view.header()
        header.setStretchLastSection(False)
        header.setResizeContentsPrecision(0)  # sizeHintForColumn: the rows on screen only
        # Rows, sizes and texts change in bursts (a scan, a filter, a sort): fit once after.
        self._pending = QTimer(self, singleShot=True, interval=0)
        self._pending.timeout.connect(self.fit)
        view.viewport().installEventFilter(self)
        model = view.model()
        for signal in (view.expanded, view.collapsed, view.verticalScrollBar().valueChanged,
                       model.rowsInserted, model.rowsRemoved, model.dataChanged):
            signal.connect(self._pending.start)
        for signal in (model.modelReset, model.layoutChanged, model.headerDataChanged):
            signal.connect(self._start_over)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize:
            self._pending.start()
        return False

    def _start_over(self) -> None:
        self._widest.clear()
        self._pending.start()

    def content_width(self, column: int) -> int:
        """What the column needs to show its header and the rows on screen in full."""
        return max(self.view.sizeHintForColumn(column), header_width(self.view.header(), column))

    def fit(self) -> None:
        """Size every column by its contents, the name by what is left, and hide what the
        view has no room for."""
        header = self.view.header()
        widths = {}
        for column in range(header.count()):
            mode = QHeaderView.ResizeMode.Stretch if column == self.name \
                else QHeaderView.ResizeMode.Fixed
            if header.sectionResizeMode(column) != mode:
                header.setSectionResizeMode(column, mode)
            if column == self.name:
                continue
            # A column without a title does not apply now (the tree's Change column while
            # nothing is compared): hidden, and it takes no room from the others.
            untitled = not header.model().headerData(column, header.orientation())
            if column not in self.optional and header.isSectionHidden(column) != untitled:
                header.setSectionHidden(column, untitled)
            if not untitled:
                widths[column] = max(self._widest.get(column, 0), self.content_width(column))
        self._widest.update(widths)
        viewport = self.view.viewport().width()
        required = sum(w for c, w in widths.items() if c not in self.optional)
        if viewport - required < NAME_MIN:
            for column in self.last_resort & widths.keys():
                header.setSectionHidden(column, True)
                required -= widths.pop(column)
        room = viewport - NAME_ROOM - required
        # Show optional columns, most important first, while the name keeps its room; once
        # one does not fit, no less important one shows in its place.
        for column in reversed(self.optional):
            room -= widths.get(column, 0)
            header.setSectionHidden(column, room < 0 or column not in widths)
        for column, width in widths.items():
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)


def header_width(header: QHeaderView, section: int) -> int:
    """The width a header section needs for its title, room for the sort arrow included, as
    QHeaderView's own size hint computes it; that hint is 0 for a hidden section, and a
    hidden column is just what must be measured before showing it again."""
    option = QStyleOptionHeader()
    option.initFrom(header)
    option.section = section
    option.orientation = header.orientation()
    option.text = str(header.model().headerData(section, header.orientation()) or "")
    bold = QFont(header.font())
    bold.setBold(True)  # as Qt measures: a section of the selected column is drawn bold
    option.fontMetrics = QFontMetrics(bold)
    if header.isSortIndicatorShown():
        option.sortIndicator = QStyleOptionHeader.SortIndicator.SortDown
    size = header.style().sizeFromContents(QStyle.ContentsType.CT_HeaderSection, option,
                                           QSize(), header)
    return max(size.width(), header.minimumSectionSize())
