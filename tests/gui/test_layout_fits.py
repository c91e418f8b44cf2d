"""Issue 14, items 6 and 7 (and issue 15's owner chart, Growth tab and Change column): the
window is usable from a 1024x700 laptop up. No column header,
cell, chart title or chart label is cut or elided (Qt's own style says how much room a
header's text gets), names sort as a person counts, the breadcrumb reads as a path, runs are
named with their parent folders, and Details shows a checkpoint without scrolling.

Each size's screenshots are saved under the test's tmp_path (one per tab) to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from growth_helpers import compare_with_first_scan, kept_workspace, new_window, scan_grow_scan
from gui_helpers import show_tab, wait_drawn
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF, QPainter, QPalette, QPicture
from PySide6.QtWidgets import (
    QApplication,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyle,
    QStyleOptionHeader,
    QTreeView,
)
from pytestqt.qtbot import QtBot

from mlspace.ui.charts import AgeChart, CategoryChart, OwnerChart
from mlspace.ui.main_window import MainWindow
from mlspace.ui.runs_view import BEST
from mlspace.ui.tree_model import CHANGE, NAME
from mlspace.ui.treemap_view import SEPARATOR

SIZES = [(1024, 700), (1920, 1080)]


def _settle(window: MainWindow) -> None:
    """Let the views redraw what the last change asked, then paint twice: pyqtgraph sizes
    its axes to their labels while painting, and the charts then fit their values to the
    new plot width."""
    wait_drawn(window)
    for _ in range(2):
        window.grab()
        QApplication.processEvents()
        QApplication.processEvents()


def _shown_at(qtbot: QtBot, window: MainWindow, size: tuple[int, int], tmp_path: Path,
              tab: int) -> None:
    window.tabs.setCurrentIndex(tab)

    def resized() -> bool:
        # Asked again until it holds: under xdist a resize was twice seen lost (the window
        # stayed 1280 wide for 15 s), never refused, and its minimum width is far below.
        if window.size().width() != size[0]:
            window.resize(*size)
            return False
        return True

    qtbot.waitUntil(resized, timeout=15_000)
    _settle(window)
    window.grab().save(str(tmp_path / f"{size[0]}x{size[1]}-{tab}.png"))


# ---------------------------------------------------------------- headers and cells
def _header_label_width(header: QHeaderView, section: int) -> int:
    """The width the style gives a section's text (less margins and the sort arrow): the
    same rectangle QHeaderView paints the text in, eliding what does not fit."""
    option = QStyleOptionHeader()
    option.initFrom(header)
    option.state |= QStyle.StateFlag.State_Horizontal
    option.rect = QRect(0, 0, header.sectionSize(section), header.height())
    option.section = section
    if header.isSortIndicatorShown() and header.sortIndicatorSection() == section:
        option.sortIndicator = QStyleOptionHeader.SortIndicator.SortDown
    return header.style().subElementRect(QStyle.SubElement.SE_HeaderLabel, option,
                                         header).width()


def _header_problems(header: QHeaderView) -> list[str]:
    view = header.parentWidget()
    assert isinstance(view, QTreeView)
    bold = QFont(header.font())
    bold.setBold(True)  # the widest a title is drawn (the selected column's)
    metrics = QFontMetrics(bold)
    problems = []
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        title = str(header.model().headerData(section, Qt.Orientation.Horizontal))
        start, width = header.sectionViewportPosition(section), header.sectionSize(section)
        if metrics.horizontalAdvance(title) > _header_label_width(header, section):
            problems.append(f"header {title!r} elided in {width} px")
        if start < 0 or start + width > header.viewport().width():
            problems.append(f"column {title!r} cut by the view's edge")
        stretched = header.sectionResizeMode(section) == QHeaderView.ResizeMode.Stretch
        if not stretched and view.sizeHintForColumn(section) > width:
            problems.append(f"cells of {title!r} need {view.sizeHintForColumn(section)} px, "
                            f"have {width}")
    return problems


# ---------------------------------------------------------------- charts
def _chart_problems(chart: CategoryChart | OwnerChart | AgeChart) -> list[str]:
    problems = []
    title = chart.title
    if title.fontMetrics().horizontalAdvance(title.text()) > title.contentsRect().width():
        problems.append(f"title {title.text()!r} cut")
    view = chart.plot.getViewBox()
    plot_area = view.sceneBoundingRect()
    labels = chart.value_labels
    metrics = QFontMetricsF(labels.text_font)
    for (row, x, text), drawn in zip(labels.labels, labels.rects(), strict=True):
        # Where the size is drawn, as wide as Qt measures its text: past its bar's end, and
        # inside the plot.
        left = labels.mapToScene(drawn.topLeft()).x()
        right = left + metrics.horizontalAdvance(text)
        bar_end = view.mapViewToScene(QPointF(x, row)).x()
        if right > plot_area.right() + 0.5 or left < max(bar_end, plot_area.left()) - 0.5:
            problems.append(f"value {text!r} outside the plot")
    axis = chart.plot.getAxis("left")
    wanted = [text for level in axis._tickLevels for _, text in level]
    picture = QPicture()
    painter = QPainter(picture)
    _, _, drawn = axis.generateDrawSpecs(painter)  # what pyqtgraph paints, and where
    painter.end()
    if sorted(text for _, _, text in drawn) != sorted(wanted):
        problems.append(f"axis labels dropped: {set(wanted) - {t for _, _, t in drawn}}")
    rects = sorted((rect for rect, _, _ in drawn), key=lambda r: r.top())
    if any(a.bottom() > b.top() + 0.5 for a, b in zip(rects, rects[1:], strict=False)):
        problems.append("axis labels overlap")
    if axis.sceneBoundingRect().left() < 0:
        problems.append("axis cut at the chart's left edge")
    return problems


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_header_cell_or_chart_label_is_cut(window: MainWindow, qtbot: QtBot,
                                              size: tuple[int, int], tmp_path: Path) -> None:
    window.tree.expand(window.model.index(0, 0))
    problems = []
    for tab in range(window.tabs.count()):
        _shown_at(qtbot, window, size, tmp_path, tab)
        headers = [h for h in window.findChildren(QHeaderView)
                   if h.isVisible() and h.orientation() == Qt.Orientation.Horizontal]
        assert window.tree.header() in headers
        for header in headers:
            problems += [f"{window.tabs.tabText(tab)} tab, {type(header.parentWidget()).__name__}"
                         f": {p}" for p in _header_problems(header)]
    for chart in (window.category_chart, window.age_chart):
        problems += [f"{type(chart).__name__}: {p}" for p in _chart_problems(chart)]
    assert problems == []


def test_a_narrow_window_hides_whole_columns_and_a_wide_one_shows_them(
        window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    """What does not fit at 1024 px is hidden, not cut; at 1920 px every column is back
    (but Change, which shows only while a saved scan is compared)."""
    header = window.tree.header()
    _shown_at(qtbot, window, (1024, 700), tmp_path, 0)
    assert any(header.isSectionHidden(c) for c in range(header.count()))
    _shown_at(qtbot, window, (1920, 1080), tmp_path, 0)
    assert [c for c in range(header.count()) if header.isSectionHidden(c)] == [CHANGE]


def test_a_long_filter_and_a_checked_total_leave_the_layout_where_it_was(
        window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    """At 1024 px, a long name filter with a minimum size (the line above the tree says
    both) and a suggestion checked (the total says how much) neither widen the window nor
    move the divider: the line wraps instead."""
    suggestions = window.suggestions
    _shown_at(qtbot, window, (1024, 700), tmp_path, window.tabs.indexOf(suggestions))
    before = (window.width(), window.splitter.sizes())
    window.search.setText("pytorch_model_weights_final_epoch_0099")
    window.filters.apply_search()
    window.min_size.setCurrentIndex(window.min_size.count() - 1)
    suggestions.tree.topLevelItem(0).child(0).setCheckState(0, Qt.CheckState.Checked)
    _settle(window)
    assert "checked" in suggestions.total.text()
    assert window.filter_label.isVisible() and "at least" in window.filter_label.text()
    assert (window.width(), window.splitter.sizes()) == before


def test_a_long_status_is_cut_with_an_ellipsis_and_whole_on_hover(
        window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    """The demo's status line (totals, files, time, why sizes are apparent) is longer than
    1024 px: it ends in "…" instead of mid-word, and the window keeps its width."""
    _shown_at(qtbot, window, (1024, 700), tmp_path, 0)
    status = window.status
    assert "Demo: big files are sparse" in status.text()
    # As after opening a saved scan: its origin comes first.
    status.setText("Scan of gpu-node3:/scratch/lab/projects/llm-finetune, made 3 days ago · "
                   + status.text())
    _settle(window)
    assert window.width() == 1024
    shown = status.elided()
    assert shown.endswith("…") and status.text().startswith(shown[:-1])
    assert QFontMetrics(status.font()).horizontalAdvance(shown) <= status.contentsRect().width()


def test_the_best_checkpoint_shows_in_full_at_1024(window: MainWindow, qtbot: QtBot,
                                                   tmp_path: Path) -> None:
    runs = window.runs
    _shown_at(qtbot, window, (1024, 700), tmp_path, window.tabs.indexOf(runs))
    assert not runs.header().isSectionHidden(BEST)
    metrics = runs.fontMetrics()
    items = [runs.topLevelItem(i) for i in range(runs.topLevelItemCount())]
    best = [item.text(BEST) for item in items if item.text(BEST)]
    assert "epoch=3-step=1560-val_acc=0.74.ckpt" in best  # the metric is not said twice
    for text in best:
        assert metrics.horizontalAdvance(text) < runs.columnWidth(BEST), text


# ---------------------------------------------------------------- item 7
def test_names_sort_as_a_person_counts(window: MainWindow, demo_root: Path) -> None:
    window.tree.sortByColumn(NAME, Qt.SortOrder.AscendingOrder)
    snap = window.ws.inventory.snapshot
    folder = window.model.index_of(snap.find(f"{demo_root}/outputs/bert-large-lr3e-4"))
    names = [window.model.index(r, NAME, folder).data()
             for r in range(window.model.rowCount(folder))]
    checkpoints = [n for n in names if n.startswith("checkpoint-")]
    assert checkpoints == sorted(checkpoints, key=lambda n: int(n.split("-")[1]))
    assert names.index("checkpoint-2000") < names.index("checkpoint-10000")


def test_breadcrumb_parts_have_separators(window: MainWindow, demo_root: Path) -> None:
    snap = window.ws.inventory.snapshot
    window.ws.set_focus(snap.find(f"{demo_root}/outputs/bert-large-lr3e-4"))
    wait_drawn(window)
    row = window.treemap.breadcrumb.row
    widgets = [row.itemAt(i).widget() for i in range(row.count()) if row.itemAt(i).widget()]
    assert [w.text() for w in widgets] == [
        os.path.basename(demo_root), SEPARATOR, "outputs", SEPARATOR, "bert-large-lr3e-4"]
    assert [type(w) for w in widgets] == [QPushButton, QLabel] * 2 + [QPushButton]
    assert widgets[0].toolTip() == str(demo_root)  # the scanned folder's full path


def test_runs_are_named_with_their_parent_folders(window: MainWindow) -> None:
    show_tab(window, window.runs)
    runs = window.runs
    names = {runs.topLevelItem(i).text(0) for i in range(runs.topLevelItemCount())}
    assert {"lightning_logs/version_0", "lightning_logs/version_1",
            "outputs/bert-large-lr3e-4"} <= names
    assert "version_0" not in names


def test_details_show_a_checkpoint_without_scrolling(window: MainWindow, qtbot: QtBot,
                                                     demo_root: Path) -> None:
    """At the default 1280x820: its path, sizes, step, metric, best and run all in view."""
    inv = window.ws.inventory
    best = inv.artifact_by_id[f"checkpoint:{demo_root}/outputs/bert-large-lr3e-4/checkpoint-7000"]
    window.ws.select(best.entry)
    _settle(window)
    details = window.details
    lines = details.toPlainText().splitlines()
    for field, value in (("Step", "7000"), ("eval_loss", "1.82"),
                         ("Run", "outputs/bert-large-lr3e-4 (HF Trainer)"),
                         ("Apparent", "4.2 GiB")):
        assert lines[lines.index(field) + 1] == value
    assert any(line.startswith("best — ") for line in lines)
    assert not details.verticalScrollBar().isVisible()
    assert not details.horizontalScrollBar().isVisible()
    assert details.document().size().height() <= details.viewport().height()


def test_a_chart_dragged_narrow_keeps_its_labels_whole(window: MainWindow, qtbot: QtBot,
                                                       tmp_path: Path) -> None:
    """The charts' splitter dragged all the way: the age chart says less ("By age"), but
    no title, label or size is cut, and it cannot be made narrower than that."""
    _shown_at(qtbot, window, (1024, 700), tmp_path, 0)
    chart = window.age_chart
    splitter = chart.parentWidget()  # the charts' splitter (the owner chart hides here)
    splitter.setSizes([10_000] + [1] * (splitter.count() - 1))
    _settle(window)
    window.grab().save(str(tmp_path / "narrow-age-chart.png"))
    assert chart.title.text() != chart.title.wordings[0]
    assert _chart_problems(chart) == []


# ---------------------------------------------------------------- issue 15: owners, growth
def _label_problems(label: QLabel) -> list[str]:
    """A word-wrapped label needs the height its text takes at its width."""
    need = label.heightForWidth(label.contentsRect().width())
    return [f"label {label.text()[:40]!r} needs {need} px, has {label.height()}"] \
        if need > label.contentsRect().height() else []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_owner_chart_growth_tab_and_change_column_fit(qtbot: QtBot, tmp_path: Path,
                                                      size: tuple[int, int]) -> None:
    """Comparing with a saved scan, with two owners (when root may make one): no header,
    chart label or text of the Growth tab is cut, the Change column shows, and the names
    keep room (the share bar goes first)."""
    root = kept_workspace(tmp_path / "lab")
    two_owners = hasattr(os, "geteuid") and os.geteuid() == 0
    if two_owners:
        for path in [root / "data", *(root / "data").rglob("*")]:
            os.chown(path, 4242, 4242, follow_symlinks=False)
    window = new_window(qtbot, size)
    scan_grow_scan(window, qtbot, root)
    compare_with_first_scan(window, qtbot, scans=2)
    window.tree.expand(window.model.index(0, 0))
    problems = []
    for tab in range(window.tabs.count()):
        _shown_at(qtbot, window, size, tmp_path, tab)
        problems += [f"{window.tabs.tabText(tab)} tab, tree: {p}"
                     for p in _header_problems(window.tree.header())]
    header = window.tree.header()
    assert not header.isSectionHidden(CHANGE)
    assert header.sectionSize(NAME) >= 150, "the names have no room left"
    split = window.splitter.sizes()
    window.splitter.setSizes([330, sum(split) - 330])  # the tree pane dragged narrow
    show_tab(window, window.treemap)
    _settle(window)
    assert header.sectionSize(NAME) >= 150, "a narrow pane left the names no room"
    window.splitter.setSizes(split)
    _settle(window)
    assert not header.isSectionHidden(CHANGE)  # back with the room
    growth = window.growth
    show_tab(window, growth)
    _settle(window)
    for label in (growth.summary, growth.comparing, growth.legend):
        problems += [f"Growth tab: {p}" for p in _label_problems(label)]
    stop = growth.stop.geometry().translated(growth.stop.parentWidget().mapTo(window,
                                                                             QPoint(0, 0)))
    if not window.rect().contains(stop) or stop.width() < growth.stop.sizeHint().width():
        problems.append("Growth tab: the Stop comparing button is cut")
    charts = [window.category_chart, window.age_chart]
    assert window.owner_chart.isVisible() == two_owners
    if two_owners:
        charts.append(window.owner_chart)
    for chart in charts:
        problems += [f"{type(chart).__name__}: {p}" for p in _chart_problems(chart)]
    assert problems == []


def test_category_names_read_as_text(window: MainWindow) -> None:
    """The Category column's names are in their category's hue, dark enough to read on the
    tree's background: the Caches yellow itself has 1.5:1 on white."""
    from mlspace.classify import Category
    from mlspace.ui.colors import TEXT_CONTRAST, category_color, contrast
    from mlspace.ui.tree_model import CATEGORY, VALUE_ROLE

    palette = window.tree.palette()
    rows = [palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.AlternateBase)]
    assert contrast(category_color(Category.CACHE), rows[0]) < TEXT_CONTRAST
    model, root = window.model, window.model.index(0, 0)
    seen = set()
    for row in range(model.rowCount(root)):
        cell = model.index(row, CATEGORY, root)
        seen.add(Category(cell.data(VALUE_ROLE)))
        color = cell.data(Qt.ItemDataRole.ForegroundRole).color()
        assert min(contrast(color, background) for background in rows) >= TEXT_CONTRAST, \
            cell.data()
    assert Category.CACHE in seen
