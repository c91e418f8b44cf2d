"""Files shipped with mlspace (icons, desktop entry, rules), found through importlib.resources
so they work from a checkout, an installed wheel and a frozen app alike."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def resource(*parts: str) -> Traversable:
    item = resources.files("mlspace.resources")
    for part in parts:
        item = item / part
    return item


def icon_png(size: int) -> Traversable:
    return resource("icons", f"mlspace-{size}.png")


def icon_svg() -> Traversable:
    return resource("icons", "mlspace.svg")
