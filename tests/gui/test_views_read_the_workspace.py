"""One source of truth: only the workspace reads the scan's own totals. A view that read
``snapshot.totals`` or the inventory's per-folder tables would show the disk as scanned,
not as it is after a cleanup, and disagree with the other views until F5 (issue 14)."""

from __future__ import annotations

import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "mlspace" / "ui"
SCAN_TIME = {
    "a snapshot's totals": re.compile(r"\bsnap(shot)?\.totals\("),
    "per-category totals": re.compile(r"category_totals\("),
    "a snapshot's folder columns": re.compile(r"\.dir_(disk|apparent|files|dirs|newest)\b"),
    "a snapshot's times": re.compile(r"\bsnap(shot)?\.mtime\b"),
    "the scan's runs": re.compile(r"\binv(entory)?\.runs\b"),
}
#: The workspace (what it derives the numbers now with, mlspace.tables, is outside ui/).
DERIVING = {"workspace.py"}


def test_only_the_workspace_reads_scan_time_numbers() -> None:
    offenders = [f"{path.name}:{n}: {what}"
                 for path in sorted(UI.glob("*.py")) if path.name not in DERIVING
                 for n, line in enumerate(path.read_text().splitlines(), 1)
                 for what, pattern in SCAN_TIME.items() if pattern.search(line)]
    assert offenders == []
