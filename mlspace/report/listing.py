"""Per-entry listings of a scan (the ``mlspace scan --format json|csv`` output).

Written as a stream, one entry at a time, so a million-file scan never builds one huge document
in memory. Keys are stable and documented in docs/cli.md; later layers add keys, never rename.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from typing import TextIO

from mlspace.scan import Snapshot, kind_name

#: Extra per-entry columns a higher layer contributes (e.g. category): name -> value(entry).
ExtraColumns = dict[str, Callable[[int], object]]

CSV_COLUMNS = ("path", "root", "disk_usage", "apparent_size", "mtime", "kind", "nlink", "inode")


def entry_record(snapshot: Snapshot, entry: int, root: int, path: str) -> dict[str, object]:
    """The stable per-entry record: sizes are the entry's own, never cumulative (as in ncdu)."""
    return {
        "path": path,
        "root": root,
        "disk_usage": snapshot.disk_usage(entry) if snapshot.counted[entry] else 0,
        "apparent_size": int(snapshot.apparent[entry]) if snapshot.counted[entry] else 0,
        "mtime": round(float(snapshot.mtime[entry]), 6),
        "kind": kind_name(snapshot.kind[entry]),
        "nlink": int(snapshot.nlink[entry]),
        "inode": int(snapshot.ino[entry]),
    }


def totals_record(snapshot: Snapshot) -> dict[str, int]:
    t = snapshot.grand_totals()
    return {
        "disk_usage": t.disk_usage,
        "apparent_size": t.apparent_size,
        "files": t.files,
        "dirs": t.dirs,
    }


def write_json(
    snapshot: Snapshot,
    out: TextIO,
    extra: ExtraColumns | None = None,
    sections: dict[str, object] | None = None,
) -> None:
    """Write the scan as one JSON document; ``sections`` adds top-level keys (e.g. categories)."""
    extra = extra or {}
    head = {
        "version": 1,
        "roots": list(snapshot.roots),
        "totals": totals_record(snapshot),
        "scan_seconds": round(snapshot.duration, 3),
        "cancelled": snapshot.cancelled,
        **(sections or {}),
    }
    # The head is written as an open object ("}" cut off) so the file list can be streamed in.
    out.write(json.dumps(head, indent=1)[:-2] + ',\n "files": [')
    separator = "\n  "
    for entry, root, path in snapshot.iter_paths():
        record = entry_record(snapshot, entry, root, path)
        record.update((key, value(entry)) for key, value in extra.items())
        out.write(separator + json.dumps(record, ensure_ascii=True))
        separator = ",\n  "
    errors = [{"path": e.path, "error": e.message} for e in snapshot.errors]
    out.write('\n ],\n "errors": ' + json.dumps(errors) + "\n}\n")


def write_csv(snapshot: Snapshot, out: TextIO, extra: ExtraColumns | None = None) -> None:
    """One row per entry, with the documented header."""
    extra = extra or {}
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*CSV_COLUMNS, *extra))
    for entry, root, path in snapshot.iter_paths():
        record = entry_record(snapshot, entry, root, path)
        writer.writerow((*(record[c] for c in CSV_COLUMNS), *(v(entry) for v in extra.values())))
