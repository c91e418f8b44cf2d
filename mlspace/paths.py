"""Path helpers shared by the advisor and the app."""

from __future__ import annotations

import os
import re


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


def natural_key(path: str) -> list[str | int]:
    """Sort key that orders numbers by value: checkpoint-2000 before checkpoint-10000, as
    a person reads a run's saves. The split alternates text and digits, so two keys always
    compare text with text and numbers with numbers (a name like "²", a digit to isdigit()
    but not to int(), stays text)."""
    return [int(part) if i % 2 else part for i, part in enumerate(re.split(r"(\d+)", path))]
