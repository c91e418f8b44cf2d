"""Keeping Python's cyclic garbage collector off the objects a scan lives with.

A full pass of the collector walks every object it tracks, holding the GIL. With the app and
a million-entry scan loaded (over 100,000 objects, spread over a heap of hundreds of
megabytes) one pass took 30 to 90 ms, in whichever thread it happened to start (the scan's
worker, or the reader of a saved scan, as well as the GUI thread), and the window froze
that long. What is alive as a scan starts (the app, the scan shown) and what its worker
hands over (the new scan's inventory, runs, artifacts and plan) lives until the next scan:
moved out of the passes, it no longer makes them long. It is still freed by reference
counting when the next scan replaces it (a scan is not part of a reference cycle); only the
few dozen small objects caught in cycles at that moment are never collected.
"""

from __future__ import annotations

import gc


def spare_long_lived() -> None:
    """Leave every object alive now out of the collector's passes (see the module)."""
    gc.freeze()
