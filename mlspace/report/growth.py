"""The report's growth section: how the report's folders grew over the scans kept in
mlspace's history, and what changed most since the last one.

The totals per scan come from each saved file's footer (mlspace.index.growth); the changes
are ``mlspace diff``'s between the newest scan kept before this one and this one, so the
report names the same folders, with the same numbers, as ``mlspace diff`` would.
"""

from __future__ import annotations

import time

from mlspace.classify import ORDER, Inventory
from mlspace.index.errors import CannotOpen
from mlspace.index.growth import GrowthPoint, growth_points

#: Scans listed (the newest); changes listed since the previous scan.
MAX_SCANS = 12
TOP_CHANGES = 10


def growth_record(inventory: Inventory, scanned_at: float | None = None) -> dict | None:
    """The section's data, or None when no scan of these folders was kept before this one.
    ``scanned_at``: when this scan was made (a scan kept in the history at that time is
    this one, not an earlier one); now when not given."""
    when = time.time() if scanned_at is None else scanned_at
    before = [p for p in growth_points(inventory.snapshot.roots) if p.finished < when]
    if not before:
        return None
    totals = inventory.category_totals()
    this = {"id": None, "date": _date(when),
            "disk_usage": inventory.snapshot.grand_totals().disk_usage,
            "categories": {c.id: totals[c].disk_usage for c in ORDER}}
    scans = [_scan_record(p) for p in before[-(MAX_SCANS - 1):]] + [this]
    previous = before[-1]
    return {"scans": scans, "earlier": max(0, len(before) - (MAX_SCANS - 1)),
            "since": {"id": previous.id, "date": _date(previous.finished)},
            "delta": this["disk_usage"] - scans[-2]["disk_usage"],
            "changes": _changes(previous, inventory)}


def _scan_record(point: GrowthPoint) -> dict:
    return {"id": point.id, "date": _date(point.finished), "disk_usage": sum(point.disk),
            "categories": {c.id: point.disk[c] for c in ORDER}}


def _changes(previous: GrowthPoint, inventory: Inventory) -> list[dict] | None:
    """``diff``'s changes from the previous scan to this one, largest first (None when that
    scan cannot be read any more)."""
    from mlspace.index.diff import Side, diff
    from mlspace.index.saved import open_saved

    try:
        saved = open_saved(previous.path)
    except CannotOpen:
        return None
    doc = diff(Side(saved.inventory(), saved.info, id=previous.id), Side(inventory))
    return doc["changes"][:TOP_CHANGES]  # type: ignore[index]


def _date(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(when))
