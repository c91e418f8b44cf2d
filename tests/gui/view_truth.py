"""What the window shows, read off its widgets, and what a fresh scan of the disk would show.

``on_screen(window)`` reads every number a person sees: the tree's rows in every expanded
folder (the change since a compared saved scan included), the bars and their labels in the
category, owner and age charts, the treemap's tiles (with their change), every row of the
Runs tab and the Details pane. ``fresh(window)`` scans and classifies the same folders
again (``mlspace.scan.scan`` + ``classify``), loads that into a new workspace with the same
size mode, filter, selection, treemap folder and expanded folders (matched by path), and
the same saved scan compared (read again and matched with the fresh scan), and reads the
same views built on it. After any action the two must be equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from gui_helpers import show_tab, wait_drawn
from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTreeView

from mlspace.advise import advise
from mlspace.ages import age_table
from mlspace.classify import classify, load_rules
from mlspace.classify.rules import CompiledRules
from mlspace.index.growth import sizes_then
from mlspace.index.saved import open_saved
from mlspace.scan import scan
from mlspace.ui.charts import AgeChart, CategoryChart, OwnerChart
from mlspace.ui.details import DetailsPanel
from mlspace.ui.main_window import MainWindow
from mlspace.ui.runs_view import RunsView
from mlspace.ui.tree_model import (
    COLUMNS,
    MODIFIED,
    NAME,
    SIZE,
    VALUE_ROLE,
    TreeModel,
    children_sizes,
)
from mlspace.ui.workspace import Workspace

_AGO = re.compile(r" \([^()]* ago\)")


@dataclass
class Screen:
    tree: dict[str, list[tuple]] = field(default_factory=dict)  # folder path -> its rows
    category_bars: list[tuple] = field(default_factory=list)
    owner_bars: list[tuple] = field(default_factory=list)  # and whether the chart shows
    age_bars: list[tuple] = field(default_factory=list)
    # the focused folder's children: size, and change since the compared scan
    treemap: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    runs: dict[str, tuple] = field(default_factory=dict)  # run path -> its row and children
    details: str = ""


def _row(model: TreeModel, index: QModelIndex) -> tuple:
    """One tree row as shown: every column's text (the time behind Modified rather than its
    words: "3 min ago" depends on when it is read), and the size behind the Size column."""
    cells = []
    for column in range(len(COLUMNS)):
        cell = model.index(index.row(), column, index.parent())
        cells.append(cell.data(VALUE_ROLE) if column == MODIFIED else cell.data() or "")
    size = model.index(index.row(), SIZE, index.parent()).data(VALUE_ROLE)
    return (*cells, size)


def _tree(model: TreeModel, expanded: set[str]) -> dict[str, list[tuple]]:
    """The rows of the top level and of every expanded folder that is shown, by path."""
    out: dict[str, list[tuple]] = {}

    def visit(parent: QModelIndex, key: str) -> None:
        rows = [model.index(r, NAME, parent) for r in range(model.rowCount(parent))]
        out[key] = sorted(_row(model, i) for i in rows)
        for index in rows:
            path = model.path(model.entry(index))
            if path in expanded:
                visit(index, path)

    visit(QModelIndex(), "")
    return out


def expanded_paths(window: MainWindow) -> set[str]:
    """The folders expanded in the window's tree (only those whose parents are expanded
    too: the rows a person can see)."""
    tree: QTreeView = window.tree
    model = window.model
    found: set[str] = set()

    def visit(parent: QModelIndex) -> None:
        for r in range(model.rowCount(parent)):
            index = model.index(r, NAME, parent)
            if tree.isExpanded(index):
                found.add(model.path(model.entry(index)))
                visit(index)

    visit(QModelIndex())
    return found


def _bars(chart: CategoryChart | OwnerChart | AgeChart) -> list[tuple]:
    """Each drawn bar segment (start, width) and each value label, as pyqtgraph holds them."""
    segments = [tuple(zip(item.opts["x0"].tolist(), item.opts["width"].tolist(), strict=True))
                for item in chart.items]
    return [*segments, tuple(chart.value_labels.texts())]


def _runs(view: RunsView) -> dict[str, tuple]:
    def texts(item: object) -> tuple[str, ...]:
        return tuple(item.text(c) for c in range(view.columnCount()))  # type: ignore[attr-defined]

    out = {}
    for i in range(view.topLevelItemCount()):
        item = view.topLevelItem(i)
        children = tuple(sorted(texts(item.child(c)) for c in range(item.childCount())))
        out[item.toolTip(0)] = (texts(item), children)
    return out


def _treemap(ws: Workspace) -> dict[str, tuple[int, int | None]]:
    snap = ws.inventory.snapshot
    return {snap.path(e): (s, ws.change(e)) for e, s in children_sizes(ws, ws.focus)} \
        if ws.focus >= 0 else {}


def _owner_bars(chart: OwnerChart) -> list[tuple]:
    return [not chart.isHidden(), *[(chart.label(k), v) for k, v in chart.values()],
            *_bars(chart)]


def on_screen(window: MainWindow) -> Screen:
    """Everything the window shows now (the Runs tab as it is when a person opens it),
    once its views have redrawn what the last change asked."""
    wait_drawn(window)
    tabs = window.tabs
    current = tabs.currentWidget()
    show_tab(window, window.runs)  # a hidden tab rebuilds when shown, as for a person
    runs = _runs(window.runs)
    show_tab(window, current)
    canvas = window.treemap.canvas
    canvas.relayout()
    snap = window.ws.inventory.snapshot
    shown_tiles = {snap.path(e) for _, e, depth in canvas.tiles if depth == 0}
    treemap = _treemap(window.ws)
    assert shown_tiles <= set(treemap), "a tile the workspace does not list"
    return Screen(
        tree=_tree(window.model, expanded_paths(window)),
        category_bars=[*window.category_chart.values(), *_bars(window.category_chart)],
        owner_bars=_owner_bars(window.owner_chart),
        age_bars=[window.age_chart.table().tolist(), *_bars(window.age_chart)],
        treemap=treemap,
        runs=runs,
        details=_AGO.sub("", window.details.toPlainText()),
    )


@cache
def _rules() -> CompiledRules:
    """The default rules, compiled once (tests have no user rules): what the app's scans
    classify with, without parsing them again after every step."""
    return load_rules().compile()


def fresh(window: MainWindow) -> Screen:
    """What the same views show built on a fresh scan of the window's folders, with the
    window's size mode, filter, selection, treemap folder, expanded folders and compared
    saved scan."""
    app = window.ws
    inventory = classify(scan(list(app.inventory.snapshot.roots)), _rules())
    ws = Workspace()
    ws.load(inventory, age_table(inventory), advise(inventory), apparent=app.apparent,
            names_here=app.names_here)
    if app.compared is not None:
        ws.set_compared(app.compared, sizes_then(open_saved(app.compared.path).snapshot,
                                                 inventory.snapshot))
    ws.set_filter(app.filter.spec)
    snap, old = inventory.snapshot, app.inventory.snapshot
    ws.select(snap.find(old.path(app.selected)) if app.selected >= 0 else -1)
    ws.set_focus(snap.find(old.path(app.focus)) if app.focus >= 0 else -1)
    model = TreeModel(ws)
    header = window.tree.header()
    model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
    charts = _charts(ws)
    runs = RunsView(ws)
    runs.refresh()
    details = DetailsPanel(ws)
    details.show_entry(ws.selected)
    screen = Screen(
        tree=_tree(model, expanded_paths(window)),
        category_bars=[*charts[0].values(), *_bars(charts[0])],
        owner_bars=_owner_bars(charts[2]),
        age_bars=[charts[1].table().tolist(), *_bars(charts[1])],
        treemap=_treemap(ws),
        runs=_runs(runs),
        details=_AGO.sub("", details.toPlainText()),
    )
    for widget in (runs, details):
        widget.deleteLater()
    return screen


_CHARTS: list[tuple[CategoryChart, AgeChart, OwnerChart]] = []


def _charts(ws: Workspace) -> tuple[CategoryChart, AgeChart, OwnerChart]:
    """The three charts, drawn afresh from ``ws``. The widgets are made once and pointed at
    each fresh workspace: every refresh() draws all a chart shows from its workspace alone,
    and three pyqtgraph plots built per check were half the time of the GUI tests that
    check after every step."""
    if not _CHARTS:
        _CHARTS.append((CategoryChart(ws), AgeChart(ws), OwnerChart(ws)))
    charts = _CHARTS[0]
    for chart in charts:
        chart.ws = ws
        chart.refresh()
    return charts


def assert_agrees_with_disk(window: MainWindow) -> None:
    """Every number on screen equals what a fresh scan of the disk says (part by part, so
    a failure names the view that is wrong)."""
    shown, truth = on_screen(window), fresh(window)
    assert shown.tree == truth.tree, "tree"
    assert shown.category_bars == truth.category_bars, "category chart"
    assert shown.owner_bars == truth.owner_bars, "owner chart"
    assert shown.age_bars == truth.age_bars, "age chart"
    assert shown.treemap == truth.treemap, "treemap"
    assert shown.runs == truth.runs, "runs"
    assert shown.details == truth.details, "details"


def row_size(window: MainWindow, path: str) -> int:
    """The Size column's number of the row for ``path`` (its folders are expanded)."""
    entry = window.ws.inventory.snapshot.find(path)
    index = window.model.index_of(entry)
    assert index.isValid(), f"{path} is not shown"
    return window.model.index(index.row(), SIZE, index.parent()).data(VALUE_ROLE)


__all__ = ["Screen", "assert_agrees_with_disk", "expanded_paths", "fresh", "on_screen",
           "row_size"]
