"""``mlspace scan``: totals and the largest folders, a per-entry listing (json, csv), or the
scan saved as a file (mlspace's Parquet, ncdu's JSON export) or in mlspace's history."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from mlspace.cli.apparent import with_sparse_note
from mlspace.cli.exits import UsageError, exit_code_for
from mlspace.cli.output import binary_output, output_stream, written_in_place
from mlspace.cli.sources import load_or_scan, scan_and_classify

if TYPE_CHECKING:
    from mlspace.classify import Inventory
    from mlspace.scan import Snapshot

SCAN_FORMATS = ("table", "json", "csv", "parquet", "ncdu")
#: What the extension of -o FILE chooses when --format is not given.
_FORMAT_BY_EXTENSION = {".parquet": "parquet", ".json": "json", ".csv": "csv"}


def _scan_format(args: argparse.Namespace) -> str:
    if args.format:
        chosen = args.format
    else:
        extension = os.path.splitext(args.output or "")[1].lower()
        chosen = _FORMAT_BY_EXTENSION.get(extension, "table")
    if chosen == "parquet" and not args.output:
        raise UsageError("a Parquet scan is a file: give -o FILE.parquet")
    return chosen


def cmd_scan(args: argparse.Namespace) -> int:
    from mlspace.report.summary import scan_summary

    chosen = _scan_format(args)
    if chosen in ("table", "ncdu") and not args.save:
        source, inventory = load_or_scan(args), None
    else:
        source, inventory = scan_and_classify(args)
    snapshot = source.snapshot
    if chosen == "table":
        with output_stream(args.output) as out:
            t = snapshot.grand_totals()
            out.write(with_sparse_note(scan_summary(snapshot, apparent=args.apparent),
                                       t.disk_usage, t.apparent_size, args.apparent) + "\n")
    elif chosen == "ncdu":
        _write_ncdu(snapshot, args.output)
    elif inventory is not None and chosen == "parquet":
        from mlspace.index.parquet_write import write_parquet

        with written_in_place(args.output) as partial:
            write_parquet(partial, inventory, source.info)
    elif inventory is not None:
        _write_listing(inventory, chosen, args.output)
    if args.save and inventory is not None:
        from mlspace.index import history

        entry = history.save(inventory, source.info)
        print(f"mlspace: scan saved as {entry.id} (see `mlspace history`)", file=sys.stderr)
    return exit_code_for(snapshot)


def _write_listing(inventory: Inventory, chosen: str, output: str | None) -> None:
    """The per-entry listing (json or csv), with each entry's category and artifact."""
    from mlspace.report.listing import write_csv, write_json
    from mlspace.report.records import category_records

    snapshot = inventory.snapshot
    owners = inventory.artifact_of_entries()
    ids = [a.id for a in inventory.artifacts]
    extra = {
        "category": lambda e: inventory.category(e).id,
        "artifact": lambda e: ids[owners[e]] if owners[e] >= 0 else None,
    }
    with output_stream(output) as out:
        if chosen == "json":
            write_json(snapshot, out, extra, {"categories": category_records(inventory)})
        else:
            write_csv(snapshot, out, extra)


def _write_ncdu(snapshot: Snapshot, output: str | None) -> None:
    """ncdu's JSON export, to stdout or to FILE (gzip-compressed when FILE ends in .gz)."""
    from mlspace.index.ncdu_write import check_exportable, write_ncdu

    problem = check_exportable(snapshot)
    if problem:
        raise UsageError(problem)
    with binary_output(output) as out:
        write_ncdu(snapshot, out)
