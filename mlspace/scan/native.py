"""Scanning with the native walker (the C extension ``mlspace.scan._walker``), and choosing
between it and the Python walker.

Why a second walker: the Python walker is bound by the interpreter; the native one lists
folders in threads that never hold the GIL and writes the snapshot's columns itself, so a
scan runs at the kernel's speed on every core, in the memory of its columns. The Python
walker stays as the reference (both give the same snapshot; a property test holds them to
it) and as the fallback wherever the extension was not built (no C compiler, not Linux) or
``MLSPACE_WALKER=python`` asks for it.

This module imports nothing heavy before the walk starts: numpy and the snapshot's classes
load while the threads already walk (the command line's start-up counts until the first
listing).
"""

from __future__ import annotations

import os
import stat
import time
from typing import TYPE_CHECKING, Any

from mlspace.scan.walker import TOO_DEEP, describe_error

if TYPE_CHECKING:
    from mlspace.scan.listing import Listing
    from mlspace.scan.options import (
        CancelFlag,
        ListingCallback,
        Pace,
        ProgressCallback,
        ScanOptions,
    )
    from mlspace.scan.snapshot import Snapshot

ENV = "MLSPACE_WALKER"


def native_problem() -> str | None:
    """Why the native walker cannot run here (None when it can)."""
    try:
        from mlspace.scan import _walker  # noqa: F401
    except ImportError as err:
        return f"the native walker is not built ({err})"
    return None


def chosen_walker() -> str:
    """``native`` or ``python``: the native walker wherever it is built, unless
    MLSPACE_WALKER=python (MLSPACE_WALKER=native insists, and fails where it is missing)."""
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted == "python":
        return "python"
    problem = native_problem()
    if wanted == "native" and problem is not None:
        raise RuntimeError(f"{ENV}=native, but {problem}")
    return "python" if problem is not None else "native"


def walker_description() -> str:
    """One line for people: which walker scans, and why (``scan --verbose``, About)."""
    wanted = os.environ.get(ENV, "").strip().lower()
    problem = native_problem()
    if wanted == "python":
        return f"Python walker ({ENV}=python)"
    if problem is None:
        return "native walker (C extension, threads)"
    return f"Python walker ({problem})"


def error_text(code: int) -> str:
    """The words for an error the native walker carries as a number."""
    from mlspace.scan import _walker

    if code == _walker.ERR_REPLACED:
        return "replaced during the scan"
    if code == _walker.ERR_TOO_DEEP:
        return TOO_DEEP
    return describe_error(OSError(code, os.strerror(code)))


def scan_native(
    roots: list[str],
    options: ScanOptions,
    progress: ProgressCallback | None,
    is_cancelled: CancelFlag,
    on_listing: ListingCallback | None,
    start: float,
    pace: Pace,
) -> Snapshot:
    """Scan the (normalised) ``roots`` with the native walker; see ``scanner.scan``."""
    from mlspace.scan import _walker
    from mlspace.scan.exclude import compile_excludes

    walk = _walker.Walk(options.native_threads(), options.cross_filesystems,
                        compile_excludes(options.exclude), 10 if options.behind_window else 0)
    kept, root_errors = _add_roots(walk, roots)
    first = walk.since(0, 0, 0)  # the roots: the walk's entries follow them
    if is_cancelled():
        walk.cancel()  # before the threads start: they list nothing
    walk.start()
    # What follows loads while the threads walk.
    from mlspace.scan.build import freeze_snapshot
    from mlspace.scan.snapshot import ScanError

    watcher = _Watcher(walk, progress, on_listing, start, first["mark"], len(root_errors),
                       [p for p, listed in kept if listed] if options.live_totals else None,
                       pace)
    if on_listing is not None:
        watcher.hand_over(first, final=True)
    # The cancel flag is looked at and progress reported as often as for the Python walker.
    while True:
        if is_cancelled():
            walk.cancel()  # the threads stop within a folder's listing
        if walk.wait(pace.cancel_poll):
            break
        watcher.look()
    watcher.look(final=True)
    result = walk.finish()
    cancelled = bool(result["cancelled"]) or is_cancelled()
    return freeze_snapshot(
        roots=tuple(p for p, _ in kept), root_entries=tuple(range(len(kept))),
        names=memoryview(result["names"]).toreadonly(), cols=_columns(result),
        table=_table(result), dir_paths=tuple(result["paths"]),
        errors=tuple(ScanError(p, m) for p, m in root_errors)
        + tuple(ScanError(p, error_text(c)) for p, c in result["errors"]),
        other_filesystems=tuple(result["other_filesystems"]),
        duration=time.monotonic() - start, cancelled=cancelled,
        counted=_array(result["counted"], "bool"),
        own_totals={k: _array(v, "int64") for k, v in result["own_totals"].items()},
        walker="native")


def _add_roots(walk: Any, roots: list[str]
               ) -> tuple[list[tuple[str, bool]], list[tuple[str, str]]]:
    """Record the roots (stat-ed through a link the user named, as the Python walker does);
    returns the roots kept, with whether each is a folder to list, and the errors as
    (path, message) (ScanError would import numpy, before the walk started)."""
    kept: list[tuple[str, bool]] = []
    errors = []
    for path in roots:
        try:
            st = os.stat(path)
        except OSError as err:
            errors.append((path, describe_error(err)))
            continue
        listed = stat.S_ISDIR(st.st_mode)
        walk.add_root(os.fsencode(path), st.st_mode >> 12, st.st_size,
                      getattr(st, "st_blocks", (st.st_size + 511) // 512),
                      st.st_mtime_ns // 1_000_000_000, st.st_ino, min(st.st_nlink, 0xFFFF),
                      st.st_uid, listed, st.st_dev)
        kept.append((path, listed))
    return kept, errors


def _array(column: Any, dtype: str) -> Any:
    import numpy as np

    return np.frombuffer(column, dtype=dtype)


#: The numpy type of a column the native walker keeps as narrow as its values allow, by
#: its width in bytes (an inode's 8 bytes are a uint64).
_NARROW = {2: "uint16", 4: "uint32"}
_WIDE = {"size": "int64", "blocks": "int64", "mtime": "int64", "ino": "uint64",
         "uid": "uint32"}


def _columns(result: dict[str, Any]) -> dict[str, Any]:
    cols = {"kind": _array(result["kind"], "uint8"), "nlink": _array(result["nlink"], "uint16")}
    for name, width in result["widths"].items():
        cols[name] = _array(result[name], _NARROW.get(width, _WIDE[name]))
    return cols


def _table(result: dict[str, Any]) -> Any:
    return _array(result["rows"], "int64").reshape(-1, 4)


class _Watcher:
    """What the scanning thread does while the native threads walk: progress reports (at
    most every 100 ms), and the entries written so far handed to the listing consumer in
    stretches of at least LISTING_ENTRIES."""

    def __init__(self, walk: Any, progress: ProgressCallback | None,
                 on_listing: ListingCallback | None, start: float,
                 roots_mark: tuple[int, int, int], root_errors: int,
                 live_roots: list[str] | None, pace: Pace) -> None:
        self.walk = walk
        self.pace = pace
        self.progress = progress
        self.on_listing = on_listing
        self.start = start
        self.roots = roots_mark[0]
        self.root_errors = root_errors
        self.mark = roots_mark  # the roots go to the consumer before the walk
        self.last_report = 0.0
        self.live = None
        self.live_mark = roots_mark
        if progress is not None and live_roots is not None:
            from mlspace.scan.live_totals import LiveTotals

            self.live = LiveTotals(live_roots)

    def look(self, final: bool = False) -> None:
        if self.on_listing is not None:
            entries = self.walk.progress()[0]
            if final or entries - self.mark[0] >= self.pace.listing_entries:
                self.hand_over(self.walk.since(*self.mark), final)
        now = time.monotonic()
        if self.progress is None or (not final and
                                     now - self.last_report < self.pace.progress_interval):
            return
        self.last_report = now
        self.report(now)

    def hand_over(self, stretch: dict[str, Any], final: bool = False) -> None:
        """Give the consumer what was written since the last hand-over (``walk.since``), as
        stretches of about LISTING_ENTRIES entries cut between folders, as
        ``Snapshot.listings`` cuts them: bounded temporaries, however much piled up."""
        self.mark = stretch["mark"]
        assert self.on_listing is not None
        counts = _rows(stretch)[:, 2].tolist()
        if not counts:  # the roots (given even when there are none, as the Python walk does)
            if len(stretch["kind"]) or final:
                self.on_listing(_listing(stretch, 0, 0, 0))
            return
        start_row = start_entry = taken = 0
        for row, count in enumerate(counts):
            taken += count
            if row + 1 == len(counts) or taken >= self.pace.listing_entries:
                self.on_listing(_listing(stretch, start_row, row + 1, start_entry))
                start_row, start_entry, taken = row + 1, start_entry + taken, 0

    def report(self, now: float) -> None:
        from mlspace.scan.options import ScanProgress

        entries, blocks, errors, last, busy = self.walk.progress()
        growing = ()
        if self.live is not None:
            stretch = self.walk.since(*self.live_mark)
            self.live_mark = stretch["mark"]
            self.live.add(_chunk(stretch))
            growing = self.live.entries()
        assert self.progress is not None
        self.progress(ScanProgress(entries - self.roots, blocks * 512, os.fsdecode(last),
                                   errors + self.root_errors, now - self.start, busy, growing))


def _rows(stretch: dict[str, Any]) -> Any:
    import numpy as np

    return np.frombuffer(stretch["rows"], dtype=np.int64).reshape(-1, 4)


def _listing(stretch: dict[str, Any], row_start: int, row_end: int, skip: int) -> Listing:
    """Rows ``row_start:row_end`` of a stretch with their children (which follow ``skip``
    entries of the stretch); with no rows, the stretch's entries alone (the roots)."""
    import numpy as np

    from mlspace.scan.listing import Listing, offsets_of

    rows = _rows(stretch)
    base_entry = stretch["mark"][0] - len(stretch["kind"])
    base_row = stretch["mark"][1] - len(rows)
    offsets = stretch.get("offsets")
    if offsets is None:
        offsets = stretch["offsets"] = offsets_of(stretch["names"])
    count = int(rows[row_start:row_end, 2].sum()) if row_end > row_start else \
        len(stretch["kind"])
    names = stretch["names"][int(offsets[skip]):int(offsets[skip + count])]
    return Listing(first_entry=base_entry + skip, name_buffer=names,
                   name_offsets=offsets[skip:skip + count + 1] - offsets[skip],
                   kind=np.frombuffer(stretch["kind"], dtype=np.uint8)[skip:skip + count],
                   first_row=base_row + row_start,
                   dir_entry=rows[row_start:row_end, 0].copy(),
                   dir_first=rows[row_start:row_end, 1].copy(),
                   dir_count=rows[row_start:row_end, 2].copy())


def _chunk(stretch: dict[str, Any]) -> Any:
    """A stretch as the walk chunk the live totals take (rows local to it, names per row)."""
    from array import array

    import numpy as np

    from mlspace.scan.walker import WalkChunk

    chunk = WalkChunk()
    count = len(stretch["kind"])
    base = stretch["mark"][0] - count
    rows = np.frombuffer(stretch["rows"], dtype=np.int64).reshape(-1, 4).copy()
    rows[:, 1] -= base
    chunk.dirs = array("q", rows.tobytes())
    chunk.dir_paths = list(stretch["paths"])
    chunk.kind = array("B", stretch["kind"])
    chunk.size = array("q", stretch["size"])
    chunk.blocks = array("q", stretch["blocks"])
    names = stretch["names"].split(b"\0")
    chunk.names = [b"\0".join(names[first:first + n]) for _, first, n, _ in rows.tolist() if n]
    return chunk
