"""The window's third page, where a scan is shown: the folder tree beside the tabs (treemap,
suggestions, runs, growth), the charts and the details, under the disk's line.

Every view here follows the workspace alone; the window connects the few requests they make
of it (a right-click menu, a cleanup, an export).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from mlspace.ui.charts import AgeChart, CategoryChart, OwnerChart
from mlspace.ui.details import DetailsPanel
from mlspace.ui.disk_bar import DiskBar
from mlspace.ui.filter_bar import FilterBar
from mlspace.ui.growth_view import GrowthView
from mlspace.ui.runs_view import RunsView
from mlspace.ui.suggestions_panel import SuggestionsPanel
from mlspace.ui.tree_pane import TreePane
from mlspace.ui.treemap_view import TreemapView
from mlspace.ui.workspace import Workspace


class ViewsPage(QWidget):
    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.tree = TreePane(ws)
        self.treemap = TreemapView(ws)
        self.suggestions = SuggestionsPanel(ws)
        self.runs = RunsView(ws)
        self.growth = GrowthView(ws)
        self.tabs = QTabWidget()
        for view, title in ((self.treemap, "Treemap"), (self.suggestions, "Suggestions"),
                            (self.runs, "Runs"), (self.growth, "Growth")):
            self.tabs.addTab(view, title)
        self.category_chart = CategoryChart(ws)
        self.owner_chart = OwnerChart(ws)  # shown when the scan has several owners
        self.age_chart = AgeChart(ws)
        charts = QSplitter(Qt.Orientation.Horizontal)
        for chart in (self.category_chart, self.owner_chart, self.age_chart):
            charts.addWidget(chart)
        self.details = DetailsPanel(ws)

        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        for part in (self.tabs, charts, self.details):
            self.right_splitter.addWidget(part)
        self.right_splitter.setSizes([380, 200, 220])  # room for a checkpoint's facts
        self.filters = FilterBar(ws)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.filters.label)
        left_layout.addWidget(self.tree)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.right_splitter)
        self.splitter.setSizes([600, 600])  # at 1024 px the tree still has its Category
        self.disk_bar = DiskBar(ws)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.disk_bar)
        column.addWidget(self.splitter, 1)
