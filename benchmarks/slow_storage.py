"""Benchmark-only: make the walker wait as it would on network storage (NFS, Lustre, GPFS).

Each directory listing and each ``stat`` first sleeps a fixed latency, as a round trip to a
metadata server would; sleeping lets go of the CPU and of the interpreter, as waiting on the
network does. The walker itself is untouched: its module's ``os`` is swapped for a wrapper in
the process that calls :func:`install` (on a cluster: ``client.run(install, ...)`` in every
worker), and :func:`uninstall` puts the real module back.

Only the Python walker can be slowed so (the native one calls the kernel itself), so while
installed, scans in this process and its children use the Python walker (MLSPACE_WALKER).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from types import ModuleType, TracebackType
from typing import Any

from mlspace.scan import native, walker


class _Entry:
    """A directory entry whose ``stat`` waits first."""

    __slots__ = ("_entry", "_latency", "name")

    def __init__(self, entry: os.DirEntry[str], latency: float) -> None:
        self._entry = entry
        self._latency = latency
        self.name = entry.name

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        time.sleep(self._latency)
        return self._entry.stat(follow_symlinks=follow_symlinks)


class _Listing:
    """``os.scandir``'s iterator, yielding slow entries."""

    def __init__(self, listing: Any, stat_latency: float) -> None:
        self._listing = listing
        self._stat_latency = stat_latency

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._listing.close()

    def __iter__(self) -> Iterator[_Entry]:
        return (_Entry(entry, self._stat_latency) for entry in self._listing)


class _SlowOs:
    """The ``os`` module, but for a ``scandir`` that waits per listing and per stat."""

    def __init__(self, real: ModuleType, list_latency: float, stat_latency: float) -> None:
        self._real = real
        self.list_latency = list_latency
        self.stat_latency = stat_latency

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def scandir(self, fd: int) -> _Listing:
        time.sleep(self.list_latency)
        return _Listing(self._real.scandir(fd), self.stat_latency)


def install(list_latency: float, stat_latency: float) -> None:
    """From now on, in this process, every listing waits ``list_latency`` seconds and every
    stat ``stat_latency`` seconds."""
    global _walker_before
    if not isinstance(walker.os, _SlowOs):
        _walker_before = os.environ.get(native.ENV)
    os.environ[native.ENV] = "python"
    walker.os = _SlowOs(os, list_latency, stat_latency)  # type: ignore[assignment]


def uninstall() -> None:
    if isinstance(walker.os, _SlowOs):
        if _walker_before is None:
            os.environ.pop(native.ENV, None)
        else:
            os.environ[native.ENV] = _walker_before
    walker.os = os


_walker_before: str | None = None


def measured_sleep(seconds: float, samples: int = 2000) -> float:
    """What ``time.sleep(seconds)`` really takes here (the timer adds ~50-100 µs)."""
    start = time.perf_counter()
    for _ in range(samples):
        time.sleep(seconds)
    return (time.perf_counter() - start) / samples
