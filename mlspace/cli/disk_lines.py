"""The disk line of each scanned filesystem on the command line: above the table of `scan`,
`inventory`, `plan` and `clean`, and as ``disks`` in their JSON. A saved scan gets none: the
disk now says nothing true about a scan made then, maybe on another machine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlspace.advise import Plan
    from mlspace.report.disk_status import DiskStatus


def statuses(roots: Sequence[str], plan: Plan | None, saved: bool = False
             ) -> list[DiskStatus]:
    if saved:
        return []
    from mlspace.report.disk_status import disk_status

    return disk_status(roots, plan)


def lines_text(found: Sequence[DiskStatus]) -> str:
    """The lines, each on its own, with a blank line after them (empty when none)."""
    return "".join(f"{s.line()}\n" for s in found) + ("\n" if found else "")


def print_disk_lines(roots: Sequence[str], plan: Plan | None) -> None:
    """The disk as it is now (after a cleanup: what it really got back shows here)."""
    print(lines_text(statuses(roots, plan)).rstrip("\n"))
