"""The ``mlspace`` command: the same engine as the app, headless, for servers over SSH.

Exit codes: 0 ok, 1 finished but some paths could not be read (results still printed),
2 bad usage or a missing root (a message, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

from mlspace import __version__, fmt
from mlspace.scan import ScanOptions, ScanProgress, Snapshot, scan

if TYPE_CHECKING:
    from mlspace.classify import Inventory

EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A problem with what the user typed; printed as one line, exit code 2."""


def _add_scan_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="folders to scan")
    parser.add_argument(
        "--exclude", action="append", default=[], metavar="PATTERN",
        help="leave out entries whose name (or, with a '/', whose path) matches this glob",
    )
    parser.add_argument(
        "--cross-filesystems", action="store_true",
        help="also enter other filesystems mounted inside the folders",
    )
    parser.add_argument(
        "--workers", type=int, default=ScanOptions().workers,
        help="scanning processes (default: %(default)s; 1 scans in this process)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlspace",
        description="See where the disk went in ML workspaces, and get it back safely.",
    )
    parser.add_argument("--version", action="version", version=f"mlspace {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    scan_cmd = commands.add_parser("scan", help="scan folders and print totals or a listing")
    _add_scan_arguments(scan_cmd)
    scan_cmd.add_argument("--format", choices=("table", "json", "csv"), default="table")
    scan_cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    scan_cmd.add_argument(
        "--apparent", action="store_true", help="rank by apparent size instead of size on disk"
    )
    inventory_cmd = commands.add_parser(
        "inventory", help="runs, checkpoint series (best and latest) and space per category"
    )
    _add_scan_arguments(inventory_cmd)
    inventory_cmd.add_argument("--format", choices=("table", "json"), default="table")
    inventory_cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE")

    demo_cmd = commands.add_parser("demo", help="write the sample ML workspace into a folder")
    demo_cmd.add_argument("folder", metavar="DIR", help="an empty or new folder")
    return parser


def build_gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlspace",
        description="Open the mlspace app. Commands for terminals and servers: "
        + ", ".join(sorted(COMMANDS)) + " (mlspace COMMAND --help).",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="folders to open and scan")
    parser.add_argument("--demo", action="store_true", help="open a generated sample workspace")
    parser.add_argument("--screenshot", metavar="FILE",
                        help="scan (the folders, or the demo), save the window as PNG, exit")
    parser.add_argument("--version", action="version", version=f"mlspace {__version__}")
    return parser


def run_gui(argv: Sequence[str]) -> int:
    args = build_gui_parser().parse_args(argv)
    for path in args.paths:
        if not os.path.exists(path):
            raise UsageError(f"no such file or folder: {path}")
    from mlspace.ui.app import run

    return run(args.paths, demo=args.demo, screenshot=args.screenshot)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        try:
            return run_gui(argv)
        except UsageError as err:
            print(f"mlspace: {err}", file=sys.stderr)
            return EXIT_USAGE
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except UsageError as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nmlspace: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: that is not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def scan_from_args(args: argparse.Namespace) -> Snapshot:
    """Check the roots exist, then scan with progress on stderr when it is a terminal."""
    for path in args.paths:
        if not os.path.exists(path):
            raise UsageError(f"no such file or folder: {path}")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    options = ScanOptions(
        cross_filesystems=args.cross_filesystems,
        exclude=tuple(args.exclude),
        workers=args.workers,
    )
    show = sys.stderr.isatty()
    snapshot = scan(args.paths, options, progress=_print_progress if show else None)
    if show:
        sys.stderr.write("\r\033[K")
    return snapshot


def _print_progress(p: ScanProgress) -> None:
    where = p.current_dir if len(p.current_dir) < 60 else "…" + p.current_dir[-59:]
    sys.stderr.write(f"\r\033[K{fmt.count(p.files)} files, {fmt.size(p.bytes)}  {where}")
    sys.stderr.flush()


@contextlib.contextmanager
def output_stream(path: str | None) -> Iterator[TextIO]:
    """stdout, or a file written beside its final name and moved in place when complete, so
    an interrupted run never leaves a truncated report that looks whole."""
    if path is None:
        # Names that are not valid UTF-8 go out as the bytes they are on disk.
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
        yield sys.stdout
        return
    partial = path + ".partial"
    try:
        with open(partial, "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
            yield out
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror}") from err
    os.replace(partial, path)


def exit_code_for(snapshot: Snapshot) -> int:
    return EXIT_UNREADABLE if snapshot.errors else EXIT_OK


def classify_with_warnings(snapshot: Snapshot) -> Inventory:
    """Classify, telling the user on stderr when their rules file could not be used."""
    from mlspace.classify import classify

    inventory = classify(snapshot)
    for warning in inventory.warnings:
        print(f"mlspace: warning: {warning}", file=sys.stderr)
    return inventory


def cmd_scan(args: argparse.Namespace) -> int:
    from mlspace.report.listing import write_csv, write_json
    from mlspace.report.records import category_records
    from mlspace.report.summary import scan_summary

    snapshot = scan_from_args(args)
    if args.format == "table":
        with output_stream(args.output) as out:
            out.write(scan_summary(snapshot, apparent=args.apparent) + "\n")
        return exit_code_for(snapshot)
    inventory = classify_with_warnings(snapshot)
    owners = inventory.artifact_of_entries()
    ids = [a.id for a in inventory.artifacts]
    extra = {
        "category": lambda e: inventory.category(e).id,
        "artifact": lambda e: ids[owners[e]] if owners[e] >= 0 else None,
    }
    with output_stream(args.output) as out:
        if args.format == "json":
            write_json(snapshot, out, extra, {"categories": category_records(inventory)})
        else:
            write_csv(snapshot, out, extra)
    return exit_code_for(snapshot)


def cmd_inventory(args: argparse.Namespace) -> int:
    import json

    from mlspace.report.listing import totals_record
    from mlspace.report.records import (
        artifact_record,
        category_records,
        run_record,
        series_record,
    )
    from mlspace.report.story import inventory_story

    snapshot = scan_from_args(args)
    inventory = classify_with_warnings(snapshot)
    with output_stream(args.output) as out:
        if args.format == "json":
            doc = {
                "version": 1,
                "roots": list(snapshot.roots),
                "totals": totals_record(snapshot),
                "categories": category_records(inventory),
                "runs": [run_record(r) for r in inventory.runs],
                "series": [series_record(s) for s in inventory.series],
                "artifacts": [artifact_record(a) for a in inventory.artifacts],
                "errors": [{"path": e.path, "error": e.message} for e in snapshot.errors],
            }
            json.dump(doc, out, indent=1)
            out.write("\n")
        else:
            out.write(inventory_story(inventory) + "\n")
    return exit_code_for(snapshot)


def cmd_demo(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mlspace.demo import generate

    try:
        root = generate(Path(args.folder))
    except FileExistsError as err:
        raise UsageError(str(err)) from None
    print(f"Demo workspace written to {root}\nOpen it with: mlspace {root}")
    return EXIT_OK


COMMANDS = {"scan": cmd_scan, "inventory": cmd_inventory, "demo": cmd_demo}
