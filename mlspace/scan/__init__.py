"""Scanning: walk the disk once and produce an immutable, compact :class:`Snapshot`."""

from mlspace.scan.listing import Listing
from mlspace.scan.scanner import (
    ListingCallback,
    ScanOptions,
    ScanProgress,
    normalize_roots,
    scan,
)
from mlspace.scan.snapshot import ScanError, Snapshot, Totals, kind_name

__all__ = [
    "Listing",
    "ListingCallback",
    "ScanError",
    "ScanOptions",
    "ScanProgress",
    "Snapshot",
    "Totals",
    "kind_name",
    "normalize_roots",
    "scan",
]
