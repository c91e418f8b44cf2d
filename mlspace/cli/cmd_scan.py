"""``mlspace scan``: totals and the largest folders, a per-entry listing (json, csv), or the
scan saved as a file (mlspace's Parquet, ncdu's JSON export) or in mlspace's history."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from mlspace.cli.apparent import with_sparse_note
from mlspace.cli.exits import EXIT_UNREADABLE, UsageError, exit_code_for
from mlspace.cli.output import dataset_target, is_dataset_output, output_stream
from mlspace.cli.sources import Source, load_or_scan, scan_and_classify
from mlspace.written import binary_output, written_in_place

if TYPE_CHECKING:
    from mlspace.classify import Inventory
    from mlspace.scan import Snapshot

#: What the extension of -o FILE chooses when --format is not given.
_FORMAT_BY_EXTENSION = {".parquet": "parquet", ".json": "json", ".csv": "csv"}


def _scan_format(args: argparse.Namespace) -> str:
    if is_dataset_output(args.output):
        if args.format not in (None, "parquet"):
            raise UsageError(f"{args.output} is a folder, which holds a Parquet dataset: "
                             f"--format {args.format} writes a file, name one")
        return "parquet"
    if args.format:
        chosen = args.format
    else:
        extension = os.path.splitext(args.output or "")[1].lower()
        chosen = _FORMAT_BY_EXTENSION.get(extension, "table")
    if chosen == "parquet" and not args.output:
        raise UsageError("a Parquet scan is a file: give -o FILE.parquet")
    return chosen


def cmd_scan(args: argparse.Namespace) -> int:
    chosen = _scan_format(args)
    if is_dataset_output(args.output):
        return _scan_to_dataset(args)
    if chosen in ("table", "ncdu") and not args.save:
        source, inventory = load_or_scan(args), None
    else:
        source, inventory = scan_and_classify(args)
    snapshot = source.snapshot
    if args.verbose:
        _say_how_it_was_scanned(snapshot, args)
    if chosen == "table":
        from mlspace.cli.disk_lines import lines_text, statuses
        from mlspace.report.summary import scan_summary  # after the walk started: numpy

        disks = statuses(snapshot.roots, None, saved=source.saved is not None)
        with output_stream(args.output) as out:
            t = snapshot.grand_totals()
            out.write(lines_text(disks) + with_sparse_note(
                scan_summary(snapshot, apparent=args.apparent), t.disk_usage,
                t.apparent_size, args.apparent) + "\n")
    elif chosen == "ncdu":
        _write_ncdu(snapshot, args.output)
    elif inventory is not None and chosen == "parquet":
        from mlspace.index.parquet_write import write_parquet

        with written_in_place(args.output) as partial:
            write_parquet(partial, inventory, source.info)
    elif inventory is not None:
        _write_listing(inventory, chosen, args.output, source)
    _say_written(args.output, chosen)
    saved = _save_in_history(args, inventory, source)
    return exit_code_for(snapshot) if saved else EXIT_UNREADABLE


def _say_how_it_was_scanned(snapshot: Snapshot, args: argparse.Namespace) -> None:
    """``--verbose``: which walker scanned, with how many workers, and how fast."""
    if snapshot.source != "disk":
        print("mlspace: opened a saved scan (nothing was walked)", file=sys.stderr)
        return
    from mlspace.cli.sources import scan_options
    from mlspace.scan.native import walker_description

    if args.cluster:
        how = f"Python walker, on the Dask cluster {args.cluster}"
    elif snapshot.walker == "native":
        threads = scan_options(args).native_threads()
        how = f"{walker_description()}, {threads} thread{'s' * (threads != 1)}"
    else:
        how = f"{walker_description()}, {args.workers} worker{'s' * (args.workers != 1)}"
    print(f"mlspace: walker: {how}; {len(snapshot):,} entries in {snapshot.duration:.2f} s",
          file=sys.stderr)


def _say_written(output: str | None, chosen: str) -> None:
    """One line on stderr once -o FILE is written (not for /dev/stdout and the like)."""
    if output and not output.startswith("/dev/"):
        print(f"mlspace: scan written to {output} ({chosen})", file=sys.stderr)


def _scan_to_dataset(args: argparse.Namespace) -> int:
    """The scan saved as a Parquet dataset in the folder -o names. On a cluster the workers
    write their walks into a staging folder inside it (so it must be on storage they all
    see at the same path), which is removed once they are merged."""
    from mlspace.cli.walk_staging import walk_staging
    from mlspace.index.parquet_dataset_write import write_dataset

    with dataset_target(args.output) as folder:
        staged = walk_staging(folder) if args.cluster else contextlib.nullcontext("")
        with staged as staging:
            source, inventory = scan_and_classify(args, parts_dir=staging)
        write_dataset(folder, inventory, source.info)
    _say_written(args.output, "Parquet dataset")
    saved = _save_in_history(args, inventory, source)
    return exit_code_for(source.snapshot) if saved else EXIT_UNREADABLE


def _save_in_history(args: argparse.Namespace, inventory: Inventory | None,
                     source: Source) -> bool:
    """``--save``: keep the scan in the history; False when it could not be (said why)."""
    if args.save and inventory is not None:
        from mlspace.index import history

        try:
            entry = history.save(inventory, source.info)
        except history.HistoryUnavailable as err:
            print(f"mlspace: the scan was not saved: {err}", file=sys.stderr)
            return False
        print(f"mlspace: scan saved as {entry.id} (see `mlspace history`)", file=sys.stderr)
    return True


def _write_listing(inventory: Inventory, chosen: str, output: str | None,
                   source: object) -> None:
    """The per-entry listing (json or csv), with each entry's category and artifact."""
    from mlspace.cli.disk_lines import statuses
    from mlspace.index.listing import write_csv, write_json
    from mlspace.index.records import category_records

    snapshot = inventory.snapshot
    owners = inventory.artifact_of_entries()
    ids = [a.id for a in inventory.artifacts]
    extra = {
        "category": lambda e: inventory.category(e).id,
        "artifact": lambda e: ids[owners[e]] if owners[e] >= 0 else None,
    }
    with output_stream(output) as out:
        if chosen == "json":
            disks = statuses(snapshot.roots, None,
                             saved=source.saved is not None)
            write_json(snapshot, out, extra, {"categories": category_records(inventory),
                                              "disks": [d.record() for d in disks]})
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
