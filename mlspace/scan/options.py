"""What a scan is asked to do and what it tells back while it walks, for either walker.

Both walkers (the Python one that ``scanner`` coordinates, the native one in ``native``)
take these, so they live below both: neither walker imports the other's module for them.
They are named tuples, which are made in a tenth of a dataclass's time, since they are made
at every command's start-up; ScanOptions stays a dataclass (the app replaces its fields).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mlspace.scan.listing import Listing
    from mlspace.scan.live_totals import GrowingEntry


@dataclass(frozen=True)
class ScanOptions:
    """How to scan. ``workers`` <= 1 walks in this process only (the Python walker)."""

    cross_filesystems: bool = False
    exclude: tuple[str, ...] = ()
    workers: int = min(8, os.cpu_count() or 1)
    #: Report the roots' top-level entries as they grow (the app shows them while it scans;
    #: the CLI does not pay for them).
    live_totals: bool = False
    #: The native walker's threads; 0: THREADS_PER_WORKER per worker. A worker process of
    #: the Python walker is a core's worth of interpreter; a native thread mostly waits on
    #: the kernel, and on a cold cache on the disk, which answers faster with more requests
    #: in flight (on 2 cores, 16 threads scanned the cold 300k tree in 3.0-3.1 s, 8 in
    #: 3.5-4.2 s, 2 in 4.3-5.7 s, du in 5.3-5.7 s; warm, 16 cost nothing measurable).
    threads: int = 0
    #: Scanning behind a window: the native walker's threads run at nice 10, so the
    #: window's own thread is not one among 17 runnable threads on two cores.
    behind_window: bool = False

    def native_threads(self) -> int:
        return self.threads or min(64, THREADS_PER_WORKER * max(1, self.workers))


#: See ScanOptions.threads.
THREADS_PER_WORKER = 8


class ScanProgress(NamedTuple):
    """A progress report: entries and bytes (on disk) seen so far, and where the scan is."""

    files: int
    bytes: int
    current_dir: str
    errors: int
    elapsed: float
    busy: int = 0  # workers walking now (0 while this process walks alone)
    growing: tuple[GrowingEntry, ...] = ()  # the roots' top-level entries so far, biggest first


class Pace(NamedTuple):
    """How often a walk looks up from its work: progress at most every ``progress_interval``
    seconds, the cancel flag every ``cancel_poll`` seconds, a listing consumer handed
    stretches of at least ``listing_entries``. The coordinator reads its tunables when a
    scan starts (tests turn them down) and hands them to the walker this way."""

    progress_interval: float
    cancel_poll: float
    listing_entries: int


ProgressCallback = Callable[[ScanProgress], None]
ListingCallback = Callable[["Listing"], None]
CancelFlag = Callable[[], bool]
