"""Scanning: walk the disk once and produce an immutable, compact :class:`Snapshot`.

The names are loaded when first asked for (PEP 562): ``mlspace scan`` starts walking before
numpy and the snapshot's classes are imported (they load while the native walker's threads
walk), which is most of the command's start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlspace.lazy import module_getattr

if TYPE_CHECKING:
    from mlspace.scan.listing import Listing
    from mlspace.scan.options import ListingCallback, ScanOptions, ScanProgress
    from mlspace.scan.scanner import normalize_roots, scan
    from mlspace.scan.snapshot import ScanError, Snapshot, Totals, kind_name

_WHERE = {
    "Listing": "listing",
    "ListingCallback": "options",
    "ScanOptions": "options",
    "ScanProgress": "options",
    "normalize_roots": "scanner",
    "scan": "scanner",
    "ScanError": "snapshot",
    "Snapshot": "snapshot",
    "Totals": "snapshot",
    "kind_name": "snapshot",
}

__all__ = ["Listing", "ListingCallback", "ScanError", "ScanOptions", "ScanProgress",
           "Snapshot", "Totals", "kind_name", "normalize_roots", "scan"]


__getattr__ = module_getattr(__name__, _WHERE, globals())
