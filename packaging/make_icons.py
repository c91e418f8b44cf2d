"""Render resources/icons/mlspace.svg to the PNG sizes desktops want (16 to 512 px).

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py

Run it after changing the SVG; the PNGs are committed so installs need no renderer."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"


def main() -> None:
    app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "mlspace.svg"))
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        image.save(str(ICONS / f"mlspace-{size}.png"))
    del app


if __name__ == "__main__":
    main()
