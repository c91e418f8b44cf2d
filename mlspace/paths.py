"""Path helpers shared by the advisor and the app."""

from __future__ import annotations

import os


def within(path: str, folders: set[str]) -> bool:
    """Is ``path`` one of ``folders`` or inside one? Walks up its parents, so the cost is
    the path's depth, not the number of folders."""
    while path and folders:
        if path in folders:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return False
