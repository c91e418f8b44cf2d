"""Scan on a Dask cluster: the same walk, its folders shared among a cluster's workers.

Why: on shared storage (NFS, Lustre, GPFS) one walker waits on metadata round trips, not on
the CPU, so the walk goes as fast as there are requests in flight; workers on many nodes (or
many threads on one) keep many in flight.

How: this machine (the client) lists the first levels until there are several folders per
worker thread. Each group of folders becomes a Dask task that walks with the ordinary walker
under an entry budget and hands back the folders it did not reach, which become new tasks
(``scanner.share_work``, the loop the local process pool runs), so one huge subtree is still
shared. Tasks only read, so Dask may retry one, or run it again when its worker died. A task
returns the walker's compact columns (arrays and one name block per folder, never an object
per file); they are merged here by the same ``SnapshotBuilder`` as a local scan's, so hard links
seen by different tasks count once, every worker's errors are kept, and the saved index is the
one a local scan writes.

Device numbers are per machine: the same NFS mount may be device 0:52 on one node and 0:61 on
the next. A task therefore walks with its own machine's number for a root's filesystem, and its
chunk is translated back to this machine's numbers before it is merged (see ``_DeviceMap``).

What runs on the workers is in ``cluster_task``. Dask is imported inside the functions only:
importing this module loads none of it.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import queue
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mlspace.scan import cluster_task, scanner
from mlspace.scan.cluster_task import CANCEL_CHECK, ClusterError, walk_task, walks_not_done
from mlspace.scan.exclude import compile_excludes
from mlspace.scan.walker import DirTask, WalkChunk, walk

if TYPE_CHECKING:
    from distributed import Client, Future, LocalCluster

LOCAL_PREFIX = "local:"
#: Folders listed here before the first tasks go out, per worker thread of the cluster.
SUBTREES_PER_THREAD = 4
#: A task walks for about this long: its entry budget follows the walk's measured speed, so
#: on slow storage a big subtree is still cut into many tasks and the last ones end together
#: (20,000 entries, the local pool's budget, take 2 s at 0.1 ms a stat).
TASK_SECONDS = 0.5
#: The smallest budget a task gets, so that fast answers do not drown in per-task overhead.
MIN_TASK_BUDGET = 500
#: A task that raised (not one whose worker died: Dask reruns those by itself) runs again.
TASK_RETRIES = 2
#: How long closing waits for cancelled tasks to stop walking (seconds).
STOP_TIMEOUT = 10.0
#: How often the cluster's thread count is asked again (workers come and go; seconds).
THREADS_REFRESH = 1.0
INSTALL_HINT = "scanning on a cluster needs Dask: pip install 'mlspace[cluster]'"


@dataclass(frozen=True)
class ClusterAddress:
    """Where to scan: a running scheduler, or a LocalCluster of ``local_workers`` processes
    started here for the scan."""

    scheduler: str = ""
    local_workers: int = 0

    def __str__(self) -> str:
        return self.scheduler or f"{LOCAL_PREFIX}{self.local_workers}"


def parse_address(text: str) -> ClusterAddress:
    """``local:N``, or a scheduler address (``tcp://host:8786``, ``tls://…``, ``host:8786``).
    Raises ValueError with a message for the user."""
    text = text.strip()
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{text}: use local:N with N worker processes, e.g. local:4")
        return ClusterAddress(local_workers=int(count))
    protocol, separator, rest = text.rpartition("://")
    host, _, port = rest.rpartition(":")
    if (separator and not protocol.isalnum()) or not host or not port.isdigit():
        raise ValueError(f"{text}: not a scheduler address; use tcp://HOST:PORT (the scheduler "
                         "prints it, port 8786 by default) or local:N")
    return ClusterAddress(scheduler=text)


@contextlib.contextmanager
def connect(address: ClusterAddress | str) -> Iterator[Client]:
    """A client connected to the cluster; a LocalCluster it started is closed on the way out.
    Raises ClusterError when Dask is not installed or the scheduler cannot be reached."""
    if isinstance(address, str):
        address = parse_address(address)
    try:
        import distributed
    except ImportError as err:
        raise ClusterError(INSTALL_HINT) from err
    if address.local_workers:
        with _local_cluster(address.local_workers) as cluster, \
                distributed.Client(cluster) as client:
            yield client
        return
    try:
        client = distributed.Client(address.scheduler)
    except OSError as err:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {err}") from err
    with client:
        yield client


@contextlib.contextmanager
def _local_cluster(workers: int) -> Iterator[LocalCluster]:
    """A LocalCluster of ``workers`` processes of one thread each (a warm walk is bound by
    the interpreter, see scanner). They start from a fork server that has Dask imported
    already (about 1 s on two cores, against 2 s for Dask's default of fresh interpreters);
    plain fork would be faster still but is unsafe once the client's threads run.

    The scan waits for them rather than walking here meanwhile (see DaskSharer): this
    cluster's scheduler and nannies run in this process, and a walk here holds the
    interpreter they need to start the workers, which then took twice as long."""
    import dask
    import distributed

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() \
        else "spawn"
    # Kept while the cluster lives: a worker a nanny restarts reads it too.
    with dask.config.set({"distributed.worker.multiprocessing-method": method}), \
            distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                     dashboard_address="127.0.0.1:0",
                                     preload=[cluster_task.__name__]) as cluster:
        yield cluster


class DaskSharer:
    """Walks everything below the roots on a cluster: pass it as ``scan(..., sharer=...)``.

    With ``parts_dir`` (a folder every worker and this machine see at the same path) the
    workers write their chunks there as Parquet parts and send back only the parts' paths;
    each part is read here, merged and removed (see chunk_file for why)."""

    def __init__(self, client: Client, parts_dir: str = "") -> None:
        self.client = client
        self.parts_dir = parts_dir

    def __call__(self, tasks: list[DirTask], options: scanner.ScanOptions,
                 merge: scanner.Merger, is_cancelled: scanner.CancelFlag) -> list[DirTask]:
        if self.parts_dir:
            self.client.run(cluster_task.load_part_writer, wait=False)
        pool = _DaskPool(self.client, options, {t.root_dev: t.path for t in reversed(tasks)},
                         self.parts_dir)
        pending = _until_workers(tasks, options, merge, is_cancelled, pool)
        wanted = SUBTREES_PER_THREAD * max(1, pool.workers())
        pending = _first_levels(pending, options, merge, is_cancelled, wanted, pool.budget)
        if not pending or is_cancelled():
            return pending
        return scanner.share_work(pool, pending, merge, is_cancelled)


def _until_workers(tasks: list[DirTask], options: scanner.ScanOptions, merge: scanner.Merger,
                   is_cancelled: scanner.CancelFlag, pool: _DaskPool) -> list[DirTask]:
    """Walk here while the cluster has no worker yet (batch jobs still queued, an adaptive
    cluster scaled to zero): the scan need not wait for them. Each stretch is one task's
    budget, so the workers are noticed soon after they join."""
    exclude = compile_excludes(options.exclude)
    pending = tasks
    while pending and not is_cancelled() and not pool.workers(fresh=True):
        start = time.perf_counter()
        chunk = walk(pending, pool.budget(), cross_filesystems=options.cross_filesystems,
                     exclude=exclude, cancelled=is_cancelled)
        pool.budget.measured(len(chunk), time.perf_counter() - start)
        pending = merge(chunk)
        merge.flush()
    return pending


def _first_levels(tasks: list[DirTask], options: scanner.ScanOptions, merge: scanner.Merger,
                  is_cancelled: scanner.CancelFlag, wanted: int, budget: _Budget
                  ) -> list[DirTask]:
    """List folders here, breadth first, until ``wanted`` are waiting (or the in-process
    budget is spent), so the first tasks are many subtrees rather than one deep path. The
    speed of these listings gives the first tasks their budget."""
    exclude = compile_excludes(options.exclude)
    waiting = list(tasks)
    listed = 0
    start = time.perf_counter()
    while waiting and len(waiting) < wanted and listed < scanner.IN_PROCESS_BUDGET:
        if is_cancelled():
            break
        # A budget of one entry lists exactly one folder (the walker checks it between folders).
        chunk = walk([waiting.pop(0)], 1, cross_filesystems=options.cross_filesystems,
                     exclude=exclude)
        listed += len(chunk)
        waiting.extend(merge(chunk))
    budget.measured(listed, time.perf_counter() - start)
    return waiting


class _Budget:
    """Entries per task: what one worker thread walks in about TASK_SECONDS at the speed seen
    lately (recent tasks weigh most, large ones more than small), within MIN_TASK_BUDGET and
    the scanner's WORKER_BUDGET."""

    def __init__(self) -> None:
        self.entries = 0.0
        self.seconds = 0.0

    def measured(self, entries: int, seconds: float) -> None:
        self.entries = 0.8 * self.entries + entries
        self.seconds = 0.8 * self.seconds + seconds

    def __call__(self) -> int:
        cap = scanner.WORKER_BUDGET
        if self.entries < 1 or self.seconds <= 0:
            return min(cap, MIN_TASK_BUDGET)
        wanted = int(self.entries / self.seconds * TASK_SECONDS)
        return max(min(cap, MIN_TASK_BUDGET), min(cap, wanted))


class _DaskPool:
    """A scanner.WorkPool whose groups are Dask tasks (``walk_task``) on the client's cluster."""

    def __init__(self, client: Client, options: scanner.ScanOptions,
                 roots: dict[int, str], parts_dir: str) -> None:
        self.client = client
        self.options = options
        self.roots = roots
        self.parts_dir = parts_dir
        self.scan_id = f"mlspace-scan-{uuid.uuid4().hex}"
        self.done: queue.SimpleQueue[Future] = queue.SimpleQueue()
        self.futures: set[Future] = set()
        self.devices = _DeviceMap()
        self.budget = _Budget()
        self._threads = 0
        self._threads_asked = -math.inf

    def workers(self, fresh: bool = False) -> int:
        now = time.monotonic()
        if fresh or now - self._threads_asked > THREADS_REFRESH:
            self._threads = sum(self.client.nthreads().values())
            self._threads_asked = now
        return self._threads

    def slots(self) -> int:
        return 2 * max(1, self.workers())  # with no worker yet, tasks wait at the scheduler

    def submit(self, group: list[DirTask]) -> None:
        future = self.client.submit(
            walk_task, group, self.budget(), self.options.cross_filesystems,
            self.options.exclude, self.roots, self.scan_id, self.parts_dir,
            pure=False,  # a new walk each time: never a result remembered from an earlier scan
            retries=TASK_RETRIES,
        )
        self.futures.add(future)
        future.add_done_callback(self.done.put)

    def next_done(self, timeout: float) -> WalkChunk | None:
        try:
            future = self.done.get(timeout=timeout)
        except queue.Empty:
            return None
        self.futures.discard(future)
        try:
            walked = future.result()  # raises the task's error, or KilledWorker
        except ModuleNotFoundError as err:
            raise ClusterError(f"a worker cannot run mlspace's tasks ({err}): every worker "
                               "needs the same mlspace installed") from err
        future.release()
        chunk = _take_part(walked.part) if walked.part else walked.chunk
        self.budget.measured(len(chunk), walked.seconds)
        return self.devices.to_client(chunk, walked.devices)

    def close(self) -> None:
        """Cancel the tasks in flight and tell running ones to stop (a running Dask task is
        not interrupted by a cancel: it polls the scan's event), then wait until they did."""
        if not self.futures:
            return
        from distributed import Event

        event = Event(self.scan_id, client=self.client)
        event.set()
        keys = [future.key for future in self.futures]
        self.client.cancel(list(self.futures))
        self.futures.clear()
        deadline = time.monotonic() + STOP_TIMEOUT
        quiet = 0  # answers in a row with nothing left: two, as a queued task may arrive late
        with contextlib.suppress(Exception):  # a worker gone or not answering: nothing to wait
            while time.monotonic() < deadline and quiet < 2:
                left = sum(self.client.run(walks_not_done, self.scan_id, keys).values())
                quiet = 0 if left else quiet + 1
                time.sleep(CANCEL_CHECK / 2)
        event.clear()  # the scheduler forgets a cleared event


def _take_part(path: str) -> WalkChunk:
    """The chunk a worker wrote to ``path``, which is then removed (its entries are merged
    here; only parts of tasks that never reported back stay, until the scan's end)."""
    from mlspace.scan.chunk_file import DamagedPart, read_chunk

    try:
        chunk = read_chunk(path)
    except DamagedPart as err:
        raise ClusterError(f"a worker's part cannot be read here ({err}): this machine needs "
                           "the output folder at the same path as the workers") from err
    with contextlib.suppress(OSError):
        os.unlink(path)
    return chunk


class _DeviceMap:
    """Translates the device numbers in a worker's chunk to this machine's: the roots' from the
    task's own table, any other (a mount crossed with cross_filesystems) by a stat here of a
    folder the task listed on it."""

    def to_client(self, chunk: WalkChunk, known: dict[int, int]) -> WalkChunk:
        chunk.pending = [DirTask(t.path, t.ref, known.get(t.root_dev, t.root_dev))
                         for t in chunk.pending]
        if not chunk.dirs:
            return chunk
        column = np.frombuffer(chunk.dirs, dtype=np.int64).reshape(-1, 4)[:, 3]
        translated = column.copy()
        for dev in np.unique(column).tolist():
            here = known.get(dev)
            if here is None:
                sample = chunk.dir_paths[int(np.argmax(column == dev))]
                try:
                    here = os.stat(sample).st_dev
                except OSError:
                    here = dev  # gone since: keep the worker's number
            translated[column == dev] = here
        column[:] = translated
        return chunk
