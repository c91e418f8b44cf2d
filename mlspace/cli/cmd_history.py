"""``mlspace history`` and ``mlspace diff``: the scans kept by ``scan --save``, and what
changed between two scans (saved files, history ids, or a folder scanned now)."""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from mlspace import fmt
from mlspace.cli.apparent import with_sparse_note
from mlspace.cli.exits import EXIT_OK, UsageError
from mlspace.cli.output import output_stream, tell_skipped, wants_json
from mlspace.cli.sources import inventory_of, open_saved_scan, scan_and_classify

if TYPE_CHECKING:
    from mlspace.index.diff import Side


def cmd_history(args: argparse.Namespace) -> int:
    from mlspace.index import history

    root = os.path.abspath(args.path) if args.path else None
    kept, problems = history.read_entries(root)
    tell_skipped(problems)
    if not kept:
        print(f"No saved scans{f' of {root}' if root else ''}: keep one with "
              f"`mlspace scan {args.path or 'PATH'} --save`.")
        return EXIT_OK
    with output_stream(None) as out:
        out.write(f"{'ID':<22}  {'DATE':<16}  {'HOST':<14}  {'TOTAL':>10}  {'FILES':>11}  ROOT\n")
        for e in kept:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.finished))
            out.write(f"{e.id:<22}  {when:<16}  {e.host[:14]:<14}  {fmt.size(e.disk_usage):>10}"
                      f"  {fmt.count(e.files):>11}  {', '.join(e.roots)}\n")
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from mlspace.index.diff import diff
    from mlspace.index.diff_text import diff_table

    if _is_folder_to_scan(args.new):  # scanned now, its worker processes started from here alone
        old = _diff_side(args.old, args, now=False)
        new = _diff_side(args.new, args, now=True)
    else:  # two saved scans open side by side (reading and numpy let go of the interpreter)
        with ThreadPoolExecutor(1) as pool:
            opening = pool.submit(_diff_side, args.old, args, False)
            new = _diff_side(args.new, args, now=True)
            old = opening.result()
    doc = diff(old, new)
    with output_stream(args.output) as out:
        if wants_json(args):
            json.dump(doc, out, indent=1)
            out.write("\n")
        else:
            disk, apparent = doc["totals"]["after"], doc["apparent"]["totals"]["after"]
            out.write(with_sparse_note(diff_table(doc, apparent=args.apparent), disk,
                                       apparent, args.apparent) + "\n")
    return EXIT_OK


def _is_folder_to_scan(spec: str) -> bool:
    """A folder, and not one holding a scan saved as a Parquet dataset."""
    from mlspace.index.sniff import saved_scan_format

    return os.path.isdir(spec) and not saved_scan_format(spec)


def _diff_side(spec: str, args: argparse.Namespace, now: bool) -> Side:
    """OLD or NEW of `mlspace diff`: a saved scan's file, a history id, or a folder: its
    latest saved scan (OLD) or a scan made now (NEW)."""
    from mlspace.index import history
    from mlspace.index.diff import Side
    from mlspace.index.sniff import saved_scan_format

    if _is_folder_to_scan(spec):
        if now:
            args.paths = [spec]
            source, inventory = scan_and_classify(args)
            return Side(inventory, source.info, fresh=True)
        root = os.path.abspath(spec)
        entry = history.latest(root)
        if entry is None:
            raise UsageError(f"no saved scan of {root}: keep one with "
                             f"`mlspace scan {spec} --save`")
        saved = open_saved_scan(str(entry.path))
        return Side(inventory_of(saved), saved.info, id=entry.id)
    if saved_scan_format(spec):
        saved = open_saved_scan(spec)
        return Side(inventory_of(saved), saved.info, file=spec)
    try:
        entry = history.find(spec)
    except LookupError as err:
        if os.path.lexists(spec):
            raise UsageError(f"{spec} is not a folder or a saved scan") from None
        raise UsageError(str(err.args[0])) from None
    saved = open_saved_scan(str(entry.path))
    return Side(inventory_of(saved), saved.info, id=entry.id)
