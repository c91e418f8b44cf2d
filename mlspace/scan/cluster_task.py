"""What runs on a Dask worker for a cluster scan (see mlspace.scan.cluster, the client side).

A task walks a group of folders with the ordinary walker and sends back the chunk with what the
client needs to merge it: the table from this machine's device numbers to the client's, and how
long the walk took (the client sizes the next tasks by it). It also counts the walks running in
this process and stops early when the client cancels, so a cancel leaves no worker busy.

Loaded in the worker processes of connect()'s LocalCluster as they start (``dask_setup``);
imports nothing of Dask until a task asks whether its scan was cancelled.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

from mlspace.scan.exclude import compile_excludes
from mlspace.scan.walker import DirTask, WalkChunk, describe_error, walk

#: How often a running task asks the scheduler whether the scan was cancelled (seconds).
CANCEL_CHECK = 0.2


class ClusterError(RuntimeError):
    """The cluster cannot do the scan: Dask missing, no scheduler there, a worker that does
    not see the scanned folders. The message says what to do."""


def dask_setup(worker: object) -> None:
    """Dask's preload hook, run as each worker process of connect()'s LocalCluster starts
    (it also imports this module there before the first task). Ctrl+C in a terminal reaches
    the whole process group: these workers must not die of it, with tracebacks, before the
    client has cancelled its tasks and closed the cluster."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Walked:
    """What a task sends back: the chunk (in the worker's device numbers), or the path of
    the part it was written to and how many entries that holds; the table from the worker's
    numbers to the client's for the roots' filesystems; and the walk's time."""

    chunk: WalkChunk
    devices: dict[int, int]
    seconds: float = 0.0
    part: str = ""
    entries: int = 0


_running: Counter[str] = Counter()
_running_lock = threading.Lock()


def running_walks(scan_id: str | None = None) -> int:
    """Tasks of the scan (of any scan, by default) walking in this worker process now; ask
    every worker with ``client.run(running_walks)``."""
    with _running_lock:
        return _running[scan_id] if scan_id is not None else sum(_running.values())


#: A worker's states of a task that may still start walking, or still walks.
_NOT_DONE = frozenset({"waiting", "ready", "constrained", "executing", "long-running",
                       "cancelled", "resumed"})


def walks_not_done(scan_id: str, keys: list[object], dask_worker: Any = None) -> int:
    """Tasks of the scan that this worker still walks or may yet start: counted by walk, and
    by the worker's state of the tasks' ``keys`` (a cancel reaches a worker's queue after
    the client's call returns, so a queued task could start after the walks were counted).
    Dask passes ``dask_worker`` to a function run with ``client.run``."""
    tasks = dask_worker.state.tasks if dask_worker is not None else {}
    queued = sum(1 for key in keys
                 if (task := tasks.get(key)) is not None and task.state in _NOT_DONE)
    return max(running_walks(scan_id), queued)


def walk_task(group: list[DirTask], budget: int, cross_filesystems: bool,
              exclude: tuple[str, ...], roots: dict[int, str], scan_id: str,
              parts_dir: str = "") -> Walked:
    """The Dask task: walk ``group`` (folders with the client's device numbers) on this
    worker, until done or ``budget`` entries are recorded, or the scan is cancelled. With
    ``parts_dir`` the chunk is written there as a Parquet part and only its path returns."""
    to_local = {dev: _local_device(roots[dev]) for dev in {t.root_dev for t in group}}
    tasks = [DirTask(t.path, t.ref, to_local[t.root_dev]) for t in group]
    with _running_lock:
        _running[scan_id] += 1
    start = time.perf_counter()
    try:  # the part is written while the task still counts as running: a cancel waits for it
        chunk = walk(tasks, budget, cross_filesystems=cross_filesystems,
                     exclude=compile_excludes(exclude), cancelled=_CancelFlag(scan_id))
        devices = {local: client for client, local in to_local.items()}
        seconds = time.perf_counter() - start
        if not parts_dir:
            return Walked(chunk, devices, seconds)
        return Walked(WalkChunk(), devices, seconds, _write_part(chunk, parts_dir), len(chunk))
    finally:
        with _running_lock:
            _running[scan_id] -= 1
            if not _running[scan_id]:
                del _running[scan_id]


async def load_part_writer() -> None:
    """Import what writing a part needs (pyarrow: a few tenths of a second), run on every
    worker as a scan with parts starts, while this machine lists the first levels (a
    coroutine: Dask runs only those on the workers without waiting for them)."""
    import mlspace.scan.chunk_file  # noqa: F401


def _write_part(chunk: WalkChunk, parts_dir: str) -> str:
    """Write the chunk as a part of its own name (a task Dask runs again writes a new one;
    the client reads only the parts whose paths came back)."""
    from mlspace.scan.chunk_file import write_chunk

    path = os.path.join(parts_dir, f"walk-{uuid.uuid4().hex}.parquet")
    try:
        write_chunk(chunk, path)
    except OSError as err:
        raise ClusterError(
            f"worker on {socket.gethostname()} cannot write its part into {parts_dir} "
            f"({describe_error(err)}): every worker needs the output folder at the same "
            "path, on the shared storage; or write one file (-o FILE.parquet)") from err
    return path


def _local_device(root: str) -> int:
    """This machine's device number for a root's filesystem."""
    try:
        return os.stat(root).st_dev
    except OSError as err:
        raise ClusterError(
            f"worker on {socket.gethostname()} cannot see {root} ({describe_error(err)}): "
            "every worker needs the scanned folders mounted at the same paths") from err


class _CancelFlag:
    """True once the client set the scan's event; asks the scheduler at most every
    CANCEL_CHECK seconds, so a short task never asks at all."""

    def __init__(self, scan_id: str) -> None:
        self.scan_id = scan_id
        self.next_check = time.monotonic() + CANCEL_CHECK
        self.cancelled = False

    def __call__(self) -> bool:
        now = time.monotonic()
        if self.cancelled or now < self.next_check:
            return self.cancelled
        self.next_check = now + CANCEL_CHECK
        try:
            from distributed import Event

            self.cancelled = Event(self.scan_id).is_set()
        except Exception:  # not in a worker, or the scheduler is gone: walk on to the budget
            pass
        return self.cancelled
