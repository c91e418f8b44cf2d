"""Where the window's actions stand: its menu bar and its toolbar (the actions and what they
do are the window's; this module only lays them out)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QMenu, QMenuBar, QToolBar, QWidget

#: A menu: its title, and its entries in order (None: a separator).
MenuLayout = tuple[str, Sequence[QAction | QMenu | None]]


def fill_menu_bar(bar: QMenuBar, menus: Sequence[MenuLayout]) -> None:
    for title, entries in menus:
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is None:
                menu.addSeparator()
            elif isinstance(entry, QMenu):
                menu.addMenu(entry)
            else:
                menu.addAction(entry)


def main_toolbar(actions: Sequence[QAction], groups: Sequence[Sequence[QWidget]]
                 ) -> QToolBar:
    """The one toolbar: ``actions``, then each group of widgets after a separator."""
    bar = QToolBar("Main")
    bar.setObjectName("main-toolbar")
    bar.setMovable(False)
    for action in actions:
        bar.addAction(action)
    for group in groups:
        bar.addSeparator()
        for widget in group:
            bar.addWidget(widget)
    return bar


def apparent_box(apparent: QAction) -> QCheckBox:
    """The toolbar's switch between sizes on disk and apparent sizes (the View menu's
    checkable ``apparent`` action, which it follows and sets)."""
    box = QCheckBox("Apparent sizes")
    box.setToolTip("On disk: space the files really take (default).\n"
                   "Apparent: the sizes files report (sparse files look big).")
    box.toggled.connect(apparent.setChecked)
    return box


def about_text() -> str:
    """What the About dialog says: the version, and which walker scans (the native one, or
    the Python one and why), since that decides how fast a scan is."""
    from mlspace import __version__
    from mlspace.scan.native import walker_description

    return (f"<b>mlspace {__version__}</b><p>Shows where the disk went in ML workspaces and "
            f"gives it back safely.</p><p>Scans with the {html.escape(walker_description())}."
            "</p>")
