"""Scan coordinator: walks the roots in this process, then fans the rest out to worker processes.

Why processes and not threads: a warm-cache scan is bound by the interpreter, and Python threads
hand the GIL over at every ``stat``, which made a threaded walk 3-6x slower than a plain one.
Two processes over subtrees beat one by about 25% warm and 30% cold (issue 2's measurements).

Small trees never pay for a pool: the first ``IN_PROCESS_BUDGET`` entries are walked here, and a
pool is started only if directories remain. Workers get groups of directories and an entry
budget; what they do not reach comes back as pending work, so one huge subtree is still shared.
Cancellation terminates the pool, which stops the walk at once whatever a worker is listing.

The sharing loop (:func:`share_work`) does not care where a group is walked: a
:class:`WorkPool` here is the process pool, and ``scan(..., sharer=...)`` lets another one take
over after the roots, as the Dask cluster of ``mlspace.scan.cluster`` does.
"""

from __future__ import annotations

import math
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from mlspace.scan.exclude import compile_excludes
from mlspace.scan.listing import LISTING_ENTRIES
from mlspace.scan.native import chosen_walker, scan_native
from mlspace.scan.options import (
    CancelFlag,
    ListingCallback,
    Pace,
    ProgressCallback,
    ScanOptions,
    ScanProgress,
)
from mlspace.scan.walker import DirTask, WalkChunk, walk, walk_in_worker

# numpy, the snapshot builder and multiprocessing are imported where they are used: a scan
# with the native walker starts walking before they load (see mlspace.scan.native).
if TYPE_CHECKING:
    import multiprocessing.context

    from mlspace.scan.build import SnapshotBuilder
    from mlspace.scan.snapshot import Snapshot

#: Entries walked in this process before a pool is considered (about 30 ms of work).
IN_PROCESS_BUDGET = 20_000
#: Entries a worker records before it returns and hands back what it did not reach.
WORKER_BUDGET = 20_000
#: Progress callbacks are rate-limited to this interval (seconds).
PROGRESS_INTERVAL = 0.1
#: How often the coordinator looks at the cancel flag while workers run (seconds).
CANCEL_POLL = 0.02


class _Reporter:
    """Accumulates what was merged and calls the user's callback at most every 100 ms."""

    def __init__(self, callback: ProgressCallback | None, start: float,
                 live_roots: list[str] | None = None) -> None:
        from mlspace.scan.live_totals import LiveTotals

        self.callback = callback
        self.start = start
        self.live = LiveTotals(live_roots) if callback and live_roots is not None else None
        self.files = 0
        self.bytes = 0
        self.errors = 0
        self.current = ""
        self.busy = 0
        self.last_call = 0.0

    def add(self, chunk: WalkChunk) -> None:
        import numpy as np

        self.files += len(chunk)
        self.bytes += int(np.frombuffer(chunk.blocks, dtype=np.int64).sum()) * 512
        self.errors += len(chunk.errors)
        self.current = chunk.last_dir or self.current
        if self.live is not None:
            self.live.add(chunk)
        self.emit()

    def emit(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.callback is None or (not force and now - self.last_call < PROGRESS_INTERVAL):
            return
        self.last_call = now
        growing = self.live.entries() if self.live is not None else ()
        self.callback(ScanProgress(self.files, self.bytes, self.current, self.errors,
                                   now - self.start, self.busy, growing))


def normalize_roots(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Absolute roots, without duplicates or roots nested inside another root (each file is
    counted once even when a user names both a folder and its parent)."""
    absolute = []
    for p in paths:
        path = os.path.abspath(os.fspath(p))
        if path not in absolute:
            absolute.append(path)
    real = {p: _real_or_same(p) for p in absolute}
    kept = []
    for p in absolute:
        inside_other = any(
            q != p and (real[p] + os.sep).startswith(real[q].rstrip(os.sep) + os.sep)
            for q in absolute
        )
        if not inside_other:
            kept.append(p)
    return kept


def _real_or_same(path: str) -> str:
    """The real path, or the path as given when a folder on the way changes while it is
    resolved (the walk then records what it meets, with errors)."""
    try:
        return os.path.realpath(path)
    except OSError:
        return path


def scan(
    roots: Sequence[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    progress: ProgressCallback | None = None,
    cancelled: CancelFlag | None = None,
    on_listing: ListingCallback | None = None,
    sharer: WorkSharer | None = None,
) -> Snapshot:
    """Scan ``roots`` into a :class:`Snapshot`. Never raises for unreadable paths: they are
    recorded in ``snapshot.errors``. If cancelled, returns what was scanned, marked cancelled.

    ``on_listing`` is given each stretch of entries as it is recorded (the roots first), in
    entry order, so a consumer can work while the workers walk; it runs in this process.
    ``sharer``, if given, walks everything below the roots in place of this process and its
    pool (e.g. ``mlspace.scan.cluster.DaskSharer``); its chunks are merged here all the same.
    """
    options = options or ScanOptions()
    start = time.monotonic()
    is_cancelled = cancelled or (lambda: False)
    if sharer is None and chosen_walker() == "native":
        return scan_native(normalize_roots(roots), options, progress, is_cancelled, on_listing,
                           start, Pace(PROGRESS_INTERVAL, CANCEL_POLL, LISTING_ENTRIES))
    from mlspace.scan.build import SnapshotBuilder

    builder = SnapshotBuilder()
    tasks = [t for t in (builder.add_root(r) for r in normalize_roots(roots)) if t is not None]
    if on_listing is not None:
        on_listing(builder.listing_since((0, 0, 0)))
    reporter = _Reporter(progress, start,
                         [t.path for t in tasks] if options.live_totals else None)
    exclude = compile_excludes(options.exclude)
    merge = Merger(builder, reporter, on_listing)

    def walk_here(work: list[DirTask], budget: int) -> list[DirTask]:
        chunk = walk(
            work,
            budget,
            cross_filesystems=options.cross_filesystems,
            exclude=exclude,
            cancelled=is_cancelled,
        )
        return merge(chunk)

    if sharer is not None:
        pending = sharer(tasks, options, merge, is_cancelled) if tasks else []
    else:
        # The first stretch is handed over once the pool has work, not before.
        pending = walk_here(tasks, IN_PROCESS_BUDGET) if tasks else []
        if pending and options.workers > 1 and not is_cancelled():
            pending = share_work(_ProcessPool(options), pending, merge, is_cancelled)
    while pending and not is_cancelled():
        merge.flush()
        pending = walk_here(pending, WORKER_BUDGET)
    merge.flush(final=True)
    reporter.emit(force=True)
    return builder.freeze(time.monotonic() - start, cancelled=bool(pending) or is_cancelled())


class Merger:
    """Adds a walked chunk to the snapshot being built and reports progress; flush() then
    hands the new stretches of entries to the listing consumer, if there is one (the pool
    loop flushes after giving the workers new work, so they never wait on the consumer)."""

    def __init__(self, builder: SnapshotBuilder, reporter: _Reporter,
                 on_listing: ListingCallback | None) -> None:
        self.builder = builder
        self.reporter = reporter
        self.on_listing = on_listing
        self.since: tuple[int, int, int] | None = None

    def __call__(self, chunk: WalkChunk) -> list[DirTask]:
        if self.since is None:
            self.since = self.builder.mark()
        pending = self.builder.merge(chunk)
        self.reporter.add(chunk)
        return pending

    def flush(self, final: bool = False) -> None:
        """Hand over what was merged since the last hand-over, once it is at least
        LISTING_ENTRIES entries (a consumer pays a fixed cost per stretch), or when
        ``final``."""
        if self.on_listing is None or self.since is None:
            return
        if not final and self.builder.entries - self.since[0] < LISTING_ENTRIES:
            return
        self.on_listing(self.builder.listing_since(self.since))
        self.since = None


WorkSharer = Callable[[list[DirTask], ScanOptions, Merger, CancelFlag], list[DirTask]]
"""Walks everything below the root tasks, merging each chunk with ``merge``; returns the
directories not walked (empty unless cancelled)."""


class WorkPool(Protocol):
    """Somewhere groups of directories are walked while this process merges: the worker
    processes of this machine, or a cluster's workers."""

    def slots(self) -> int:
        """Groups to keep in flight: about two per worker, so none waits while we merge."""

    def workers(self) -> int:
        """How many groups can be walked at the same time (for the progress's busy count)."""

    def submit(self, group: list[DirTask]) -> None:
        """Start walking ``group``; its chunk comes back from next_done()."""

    def next_done(self, timeout: float) -> WalkChunk | None:
        """The next walked chunk, or None after ``timeout`` seconds; raises a walk's error."""

    def close(self) -> None:
        """Stop whatever is still in flight."""


def share_work(
    pool: WorkPool,
    pending: list[DirTask],
    merge: Merger,
    is_cancelled: CancelFlag,
) -> list[DirTask]:
    """Share ``pending`` among the pool's workers until all is walked or the scan is cancelled.
    Returns the directories not walked; after a cancel that list may be incomplete (work in
    flight is dropped), which is fine: the snapshot is then marked cancelled anyway."""
    work: deque[DirTask] = deque(pending)
    outstanding = 0
    try:
        while work or outstanding:
            slots = pool.slots()
            while work and outstanding < slots:
                # A slot's share of what waits, not all of it: what one task hands back is
                # spread over the next free slots, so no worker idles while another holds it.
                group_size = math.ceil(len(work) / slots)
                pool.submit([work.popleft() for _ in range(group_size)])
                outstanding += 1
            merge.reporter.busy = min(outstanding, pool.workers())
            merge.flush()  # while the workers walk
            chunk = pool.next_done(CANCEL_POLL)
            if chunk is None:
                if is_cancelled():
                    return list(work)
                continue
            outstanding -= 1
            work.extend(merge(chunk))
            if is_cancelled():
                return list(work)
        return []
    finally:
        merge.reporter.busy = 0
        pool.close()


class _ProcessPool:
    """Worker processes on this machine; closing terminates them, which stops the walk at
    once whatever a worker is listing."""

    def __init__(self, options: ScanOptions) -> None:
        self.options = options
        self.results: queue.SimpleQueue[WalkChunk | BaseException] = queue.SimpleQueue()

        self.pool = _pool_context().Pool(options.workers, initializer=_leave_interrupts)

    def slots(self) -> int:
        return self.options.workers * 2

    def workers(self) -> int:
        return self.options.workers

    def submit(self, group: list[DirTask]) -> None:
        self.pool.apply_async(
            walk_in_worker,
            (group, WORKER_BUDGET, self.options.cross_filesystems, self.options.exclude),
            callback=self.results.put,
            error_callback=self.results.put,
        )

    def next_done(self, timeout: float) -> WalkChunk | None:
        try:
            result = self.results.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(result, BaseException):
            raise result
        return result

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()


def _leave_interrupts() -> None:
    """In a worker: Ctrl+C reaches the whole process group, and is the parent's to handle
    (it terminates the workers); a worker would print its own KeyboardInterrupt traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork is fastest but unsafe once other threads run (a GUI, a worker thread): then use
    forkserver on POSIX; spawn where neither exists (Windows) or fork is unsafe (macOS)."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and threading.active_count() == 1 and "fork" in methods:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods and sys.platform != "darwin":
        context = multiprocessing.get_context("forkserver")
        # Preload only the walker: the default preloads the caller's __main__ (the GUI).
        context.set_forkserver_preload(["mlspace.scan.walker"])
        return context
    return multiprocessing.get_context("spawn")
