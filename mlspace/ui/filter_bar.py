"""The filter's widgets outside the views: the name search and the minimum size in the
toolbar, and the line above the tree that says what is hidden and how to show it again.

The filter itself lives in the workspace (charts, tree and treemap set parts of it by
clicks); these widgets set their parts and show the whole, so a new scan, which resets the
filter, also empties the search box.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit

from mlspace import fmt
from mlspace.ages import BUCKETS
from mlspace.filtering import FilterSpec
from mlspace.ui.workspace import Workspace

MIN_SIZES = (("Any size", 0), ("≥ 1 MiB", 1 << 20), ("≥ 100 MiB", 100 << 20),
             ("≥ 1 GiB", 1 << 30), ("≥ 10 GiB", 10 << 30))
#: The search applies once typing pauses this long (ms): each keystroke would redraw all.
SEARCH_PAUSE = 250


class FilterBar(QObject):
    """Owns the search box, the size box and the filter line; the window places them."""

    def __init__(self, ws: Workspace) -> None:
        super().__init__(ws)
        self.ws = ws
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter file names…")
        self.search.setClearButtonEnabled(True)
        self.search.setMaximumWidth(240)
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_PAUSE)
        self._search_timer.timeout.connect(self.apply_search)
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self.min_size = QComboBox()
        for label, _ in MIN_SIZES:
            self.min_size.addItem(label)
        self.min_size.currentIndexChanged.connect(self._apply_min_size)
        self.label = QLabel()
        self.label.setStyleSheet("padding: 2px 6px;")
        self.label.setWordWrap(True)  # a long filter wraps: unwrapped, it widened the window
        ws.view_changed.connect(self.show_filter)

    def clear(self) -> None:
        """Show everything: the boxes emptied, and every part of the filter dropped."""
        self.search.clear()
        self.min_size.setCurrentIndex(0)
        self.ws.set_filter(FilterSpec())

    def apply_search(self) -> None:
        """The search box's text as the name filter (at once, not after the pause)."""
        self._search_timer.stop()
        self.ws.set_filter(replace(self.ws.filter.spec, text=self.search.text().strip()))

    def _apply_min_size(self, index: int) -> None:
        self.ws.set_filter(replace(self.ws.filter.spec, min_size=MIN_SIZES[index][1]))

    def show_filter(self) -> None:
        """Say what the filter hides, and have the boxes show its parts."""
        spec = self.ws.filter.spec
        parts = []
        if spec.categories:
            parts.append(" + ".join(sorted(c.info.label for c in spec.categories)))
        if spec.bucket is not None:
            parts.append(f"modified: {BUCKETS[spec.bucket].label.lower()}")
        if spec.text:
            parts.append(f"names containing “{spec.text}”")
        if spec.owners:
            parts.append("owned by " + " + ".join(sorted(map(self.ws.owner_label,
                                                             spec.owners))))
        if spec.min_size:
            parts.append(f"at least {fmt.size(spec.min_size)}")
        matches = self.ws.filter.matches
        nothing = bool(parts) and matches is not None and not matches.any()
        self.label.setVisible(bool(parts))
        self.label.setText("Showing only " + ", ".join(parts)
                           + (": nothing matches" if nothing else "")
                           + " — Esc shows everything")
        self._sync_boxes()

    def _sync_boxes(self) -> None:
        """The search box and the size box show the workspace's filter (a new scan resets
        it), except while the user is typing a search that is not applied yet."""
        spec = self.ws.filter.spec
        if not self._search_timer.isActive() and self.search.text().strip() != spec.text:
            self.search.blockSignals(True)
            self.search.setText(spec.text)
            self.search.blockSignals(False)
        index = next((i for i, (_, size) in enumerate(MIN_SIZES) if size == spec.min_size),
                     None)
        if index is not None and index != self.min_size.currentIndex():
            self.min_size.blockSignals(True)
            self.min_size.setCurrentIndex(index)
            self.min_size.blockSignals(False)
