"""The ``mlspace`` command: the same engine as the app, headless, for servers over SSH.

Exit codes: 0 ok, 1 finished but some paths could not be read (results still printed),
2 bad usage or a missing root (a message, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from mlspace import __version__, fmt
from mlspace.scan import ListingCallback, ScanOptions, ScanProgress, Snapshot, scan

if TYPE_CHECKING:
    from mlspace.advise import Plan
    from mlspace.classify import Inventory
    from mlspace.classify.rules import CompiledRules
    from mlspace.index.diff import Side
    from mlspace.index.info import ScanInfo
    from mlspace.index.saved import SavedScan

EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A problem with what the user typed; printed as one line, exit code 2."""


def _add_scan_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="folders to scan, or one saved scan (an mlspace .parquet, or an "
                        "ncdu JSON export from `ncdu -o` or `gdu -o`, plain or gzip)")
    _add_scan_options(parser)


def _add_scan_options(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument(
        "--cluster", metavar="ADDRESS",
        help="walk on a Dask cluster: its scheduler (tcp://HOST:8786), or local:N to start N "
        "worker processes here (needs pip install 'mlspace[cluster]'; --workers is then unused)",
    )


def _add_advice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keep-best", type=int, default=1, metavar="K",
                        help="checkpoints to keep per run by its best metric (default 1)")
    parser.add_argument("--keep-latest", type=int, default=2, metavar="N",
                        help="latest checkpoints to keep per run (default 2)")
    parser.add_argument("--keep-for", action="append", default=[], metavar="FOLDER=K:N",
                        help="keep K best and N latest for the run or series in FOLDER "
                        "(repeatable), e.g. outputs/bert=2:3")
    parser.add_argument("--duplicates", action="store_true",
                        help="also find exact duplicate files (reads the candidates' contents)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlspace",
        description="See where the disk went in ML workspaces, and get it back safely.",
        epilog="Without a command, mlspace opens the app: `mlspace [PATH...]` scans those "
        "folders, `mlspace --demo` opens a generated sample "
        "workspace, `mlspace --install-desktop` adds mlspace to your application menu "
        "(`mlspace --help-app` for all of the app's options). `mlspace COMMAND --help` "
        "explains a command.",
    )
    parser.add_argument("--version", action="version", version=f"mlspace {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(command_parsers=commands.choices)  # their own usage for errors

    scan_cmd = commands.add_parser(
        "scan", help="scan folders and print totals, a listing, or save the scan")
    _add_scan_arguments(scan_cmd)
    scan_cmd.add_argument(
        "--format", choices=SCAN_FORMATS,
        help="table (default), json or csv listing, parquet (mlspace's saved scan) or ncdu "
        "(ncdu's JSON export); by default the extension of -o FILE chooses")
    scan_cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    scan_cmd.add_argument("--save", action="store_true",
                          help="also keep the scan in mlspace's history (see `mlspace history`)")
    scan_cmd.add_argument(
        "--apparent", action="store_true", help="rank by apparent size instead of size on disk"
    )
    inventory_cmd = commands.add_parser(
        "inventory", help="runs, checkpoint series (best and latest) and space per category"
    )
    _add_scan_arguments(inventory_cmd)
    inventory_cmd.add_argument("--format", choices=("table", "json"), default="table")
    inventory_cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE")

    plan_cmd = commands.add_parser("plan", help="suggest safe cleanups (changes nothing)")
    _add_scan_arguments(plan_cmd)
    _add_advice_arguments(plan_cmd)
    plan_cmd.add_argument("--format", choices=("table", "json"), default="table")
    plan_cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE")

    clean_cmd = commands.add_parser(
        "clean", help="rescan, re-plan and move the named suggestions to the trash")
    _add_scan_arguments(clean_cmd)
    _add_advice_arguments(clean_cmd)
    clean_cmd.add_argument("--apply", nargs="+", required=True, metavar="ID",
                           help="ids of suggestions from `mlspace plan`")
    clean_cmd.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    clean_cmd.add_argument("--dry-run", action="store_true",
                           help="show what would go, move nothing")

    undo_cmd = commands.add_parser("undo", help="put back what a cleanup moved to the trash")
    undo_cmd.add_argument("cleanup", nargs="?", metavar="CLEANUP_ID",
                          help="which cleanup (default: the last one)")
    undo_cmd.add_argument("--list", action="store_true", help="list past cleanups")
    undo_cmd.add_argument("--beside", action="store_true",
                          help="if a path exists again, restore next to it")

    report_cmd = commands.add_parser(
        "report", help="scan, classify, plan and write a report (.html, .csv, .json, .md)")
    _add_scan_arguments(report_cmd)
    _add_advice_arguments(report_cmd)
    report_cmd.add_argument("-o", "--output", required=True, metavar="FILE",
                            help="the report; its extension chooses the format")

    history_cmd = commands.add_parser("history", help="list the scans kept by `scan --save`")
    history_cmd.add_argument("path", nargs="?", metavar="PATH",
                             help="only the scans of this folder")

    diff_cmd = commands.add_parser(
        "diff", help="what changed between two scans: folders, categories and runs")
    diff_cmd.add_argument("old", metavar="OLD", help="a saved scan (file or history id), or "
                          "a folder: its latest saved scan")
    diff_cmd.add_argument("new", metavar="NEW", help="a saved scan (file or history id), or "
                          "a folder: scanned now")
    _add_scan_options(diff_cmd)
    diff_cmd.add_argument("--format", choices=("table", "json"), default="table")
    diff_cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE")

    demo_cmd = commands.add_parser("demo", help="write the sample ML workspace into a folder")
    demo_cmd.add_argument("folder", metavar="DIR", help="an empty or new folder")

    from mlspace import cli_tier  # late: it imports helpers from this module

    _TIER_HANDLERS.update(cli_tier.add_commands(commands))
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
    parser.add_argument("--install-desktop", action="store_true",
                        help="add mlspace to your application menu and folders' Open with")
    parser.add_argument("--uninstall-desktop", action="store_true",
                        help="remove what --install-desktop added")
    parser.add_argument("--version", action="version", version=f"mlspace {__version__}")
    return parser


def run_gui(argv: Sequence[str]) -> int:
    args = build_gui_parser().parse_args(argv)
    if args.install_desktop or args.uninstall_desktop:
        from mlspace import desktop

        changed = desktop.install() if args.install_desktop else desktop.uninstall()
        verb = "Installed" if args.install_desktop else "Removed"
        print(f"{verb} {len(changed)} files under {desktop.data_home()}")
        return EXIT_OK
    from mlspace.index.sniff import saved_scan_format

    for path in args.paths:
        if saved_scan_format(path):
            raise UsageError(f"the app opens folders; see the saved scan {path} with "
                             f"`mlspace inventory {path}` (or plan, report, diff)")
        _check_folder(path)
    from mlspace.ui.platform_check import display_problem

    problem = display_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    from mlspace.ui.app import run

    return run(args.paths, demo=args.demo, screenshot=args.screenshot)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--help-app":
        argv[0] = "--help"
        return run_gui(argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        try:
            _not_a_mistyped_command(argv)
            return run_gui(argv)
        except UsageError as err:
            print(f"mlspace: {err}", file=sys.stderr)
            return EXIT_USAGE
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the command's own usage, not the top-level one
        args.command_parsers[args.command].error(
            f"unrecognized arguments: {' '.join(unknown)}")
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


def _not_a_mistyped_command(argv: list[str]) -> None:
    """`mlspace frobnicate DIR`: a word that is neither a command nor a path is most likely
    a mistyped command, so say that rather than "no such folder"."""
    first = argv[0] if argv else ""
    if first and not first.startswith("-") and os.sep not in first \
            and not os.path.lexists(first):
        raise UsageError(f"{first!r} is neither a command nor a folder here (commands: "
                         f"{', '.join(COMMANDS)}; or name folders to open the app)")


def _check_folder(path: str) -> None:
    """mlspace scans folders: say so at once for anything else the user names."""
    if not os.path.lexists(path):
        raise UsageError(f"no such file or folder: {path}")
    if not os.path.isdir(path):
        raise UsageError(f"{path} is not a folder or a saved scan: name the folder to scan")


def _scan_options(args: argparse.Namespace) -> ScanOptions:
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    return ScanOptions(
        cross_filesystems=args.cross_filesystems,
        exclude=tuple(args.exclude),
        workers=args.workers,
    )


def scan_from_args(args: argparse.Namespace, on_listing: ListingCallback | None = None
                   ) -> Snapshot:
    """Check the roots exist, then scan with progress on stderr when it is a terminal."""
    for path in args.paths:
        _check_folder(path)
    options = _scan_options(args)
    show = sys.stderr.isatty()
    progress = _print_progress if show else None
    if getattr(args, "cluster", None):
        snapshot = _scan_on_cluster(args, options, progress, on_listing)
    else:
        snapshot = scan(args.paths, options, progress=progress, on_listing=on_listing)
    if show:
        sys.stderr.write("\r\033[K")
    return snapshot


def _scan_on_cluster(args: argparse.Namespace, options: ScanOptions,
                     progress: Callable[[ScanProgress], None] | None,
                     on_listing: ListingCallback | None) -> Snapshot:
    """The walk on a Dask cluster; Dask is imported here only, so without --cluster nothing
    of it loads. Ctrl+C cancels the tasks, closes a local cluster and ends with 130."""
    from mlspace.scan.cluster import ClusterError, DaskSharer, connect, parse_address

    try:
        address = parse_address(args.cluster)
    except ValueError as err:
        raise UsageError(f"--cluster {err}") from err
    try:
        with connect(address) as client:
            return scan(args.paths, options, progress=progress, on_listing=on_listing,
                        sharer=DaskSharer(client))
    except ClusterError as err:
        raise UsageError(str(err)) from err


def _print_progress(p: ScanProgress) -> None:
    where = p.current_dir if len(p.current_dir) < 50 else "…" + p.current_dir[-49:]
    rate = fmt.count(round(p.files / p.elapsed)) if p.elapsed > 0 else "0"
    busy = f", {p.busy} busy" if p.busy else ""
    sys.stderr.write(f"\r\033[K{fmt.count(p.files)} files ({rate}/s{busy}), "
                     f"{fmt.size(p.bytes)}  {where}")
    sys.stderr.flush()


@contextlib.contextmanager
def written_in_place(path: str) -> Iterator[str]:
    """The name to write ``path``'s content under: beside it, moved in place once complete
    (and removed if not), so an interrupted run never leaves a truncated file that looks
    whole."""
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        # /dev/null, /dev/stdout, a FIFO: written straight into. Replacing them with a file
        # (as root, `-o /dev/null` did) would break the system for everyone.
        yield path
        return
    target = os.path.realpath(path)  # through a link to a file, never replacing the link
    partial = target + ".partial"
    try:
        yield partial
        os.replace(partial, target)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        if isinstance(err, OSError):
            raise UsageError(f"cannot write {path}: {err.strerror or err}") from err
        raise


@contextlib.contextmanager
def output_stream(path: str | None) -> Iterator[TextIO]:
    """stdout, or a file written in place (see written_in_place)."""
    if path is None:
        # Names that are not valid UTF-8 go out as the bytes they are on disk.
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
        yield sys.stdout
        return
    with written_in_place(path) as partial, \
            open(partial, "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
        yield out


def exit_code_for(snapshot: Snapshot) -> int:
    return EXIT_UNREADABLE if snapshot.errors else EXIT_OK


@dataclass(frozen=True)
class Source:
    """What a command works on: a scan of the folders named, made now, or a saved scan."""

    snapshot: Snapshot
    info: ScanInfo
    saved: SavedScan | None = None


def open_saved_scan(path: str) -> SavedScan:
    """Open a saved scan, or stop with ``cannot open PATH: reason``."""
    from mlspace.index.errors import CannotOpen
    from mlspace.index.saved import open_saved

    try:
        return open_saved(path)
    except CannotOpen as err:
        raise UsageError(f"cannot open {path}: {err}") from None


def _saved_scan(args: argparse.Namespace) -> SavedScan | None:
    """The saved scan given as the PATH, opened; None when the PATHs are folders."""
    from mlspace.index.sniff import saved_scan_format

    saved = [p for p in args.paths if saved_scan_format(p)]
    if not saved:
        return None
    if len(args.paths) > 1:
        raise UsageError("a saved scan is opened on its own: name one saved scan, or the "
                         "folders to scan")
    return open_saved_scan(saved[0])


def load_or_scan(args: argparse.Namespace, on_listing: ListingCallback | None = None
                 ) -> Source:
    """The saved scan the PATH names, or a scan of the folders (``on_listing`` sees it)."""
    from mlspace.index.info import ScanInfo

    saved = _saved_scan(args)
    if saved is not None:
        return Source(saved.snapshot, saved.info, saved)
    started = time.time()
    snapshot = scan_from_args(args, on_listing)
    return Source(snapshot, ScanInfo.here(started, options=_scan_options(args)))


def _compiled_rules() -> CompiledRules:
    """The default rules and the user's, with a warning on stderr for a broken rules file."""
    from mlspace.classify import load_rules

    rules = load_rules()
    for warning in rules.warnings:
        print(f"mlspace: warning: {warning}", file=sys.stderr)
    return rules.compile()


def inventory_of(saved: SavedScan) -> Inventory:
    """A saved scan's inventory: saved with it, or (an ncdu export) made from names."""
    if saved.saved_inventory is not None:
        return saved.saved_inventory
    return saved.inventory(_compiled_rules())


def scan_and_classify(args: argparse.Namespace) -> tuple[Source, Inventory]:
    """Open the saved scan, or load the rules, then scan and classify. The rules come first
    so that a broken rules file is reported on stderr before a long scan, not after it."""
    from mlspace.classify import EntryClassifier, classify

    saved = _saved_scan(args)
    if saved is not None:
        return Source(saved.snapshot, saved.info, saved), inventory_of(saved)
    classifier = EntryClassifier(_compiled_rules())  # works while the scan's workers walk
    source = load_or_scan(args, on_listing=classifier.add)
    return source, classify(source.snapshot, during_scan=classifier)


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
            out.write(scan_summary(snapshot, apparent=args.apparent) + "\n")
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
    import gzip

    from mlspace.index.ncdu_write import check_exportable, write_ncdu

    problem = check_exportable(snapshot)
    if problem:
        raise UsageError(problem)
    if output is None:
        write_ncdu(snapshot, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    with written_in_place(output) as partial:
        opener = gzip.open if output.lower().endswith(".gz") else open
        with opener(partial, "wb") as out:
            write_ncdu(snapshot, out)  # type: ignore[arg-type]


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

    source, inventory = scan_and_classify(args)
    snapshot = source.snapshot
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


def _plan_from_args(args: argparse.Namespace) -> tuple[Snapshot, Inventory, Plan]:
    from mlspace.advise import AdviceSettings, advise

    if args.keep_best < 0 or args.keep_latest < 1:
        raise UsageError("--keep-best must be 0 or more and --keep-latest 1 or more")
    source, inventory = scan_and_classify(args)
    snapshot = source.snapshot
    if args.duplicates and source.saved is not None:
        raise UsageError("--duplicates compares the files' contents: give the folders to "
                         "scan, not a saved scan")
    settings = AdviceSettings(keep_best=args.keep_best, keep_latest=args.keep_latest,
                              keep_per_series=_per_series_keeps(args.keep_for, inventory))
    groups = None
    if args.duplicates:
        from mlspace.advise.duplicates import find_duplicates

        groups = find_duplicates(inventory)
    from mlspace.act.tier_advice import with_configured_archive
    from mlspace.config import ConfigError

    try:
        plan = with_configured_archive(advise(inventory, settings, groups), inventory, settings)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    return snapshot, inventory, plan


def _per_series_keeps(specs: list[str], inventory: Inventory) -> dict[str, tuple[int, int]]:
    """--keep-for FOLDER=K:N -> {series id: (K, N)} for the series in or of that folder."""
    keeps: dict[str, tuple[int, int]] = {}
    for spec in specs:
        folder, sep, numbers = spec.rpartition("=")
        best, colon, latest = numbers.partition(":")
        if not sep or not colon or not best.isdigit() or not latest.isdigit() or int(latest) < 1:
            raise UsageError(f"--keep-for takes FOLDER=K:N with N at least 1, not {spec!r}")
        target = os.path.abspath(folder)
        matched = [s for s in inventory.series
                   if s.path == target or (s.run or "") == f"run:{target}"]
        if not matched:
            raise UsageError(f"--keep-for: no checkpoint series in {folder}")
        keeps.update({s.id: (int(best), int(latest)) for s in matched})
    return keeps


def cmd_plan(args: argparse.Namespace) -> int:
    import json

    from mlspace.report.plan_text import plan_record, plan_table

    snapshot, _, plan = _plan_from_args(args)
    with output_stream(args.output) as out:
        if args.format == "json":
            json.dump(plan_record(plan), out, indent=1)
            out.write("\n")
        else:
            out.write(plan_table(plan) + "\n")
    return exit_code_for(snapshot)


def _rescan_saved_roots(args: argparse.Namespace) -> None:
    """`clean` given a saved scan cleans the folders it names, scanned again now (a cleanup
    is never planned on what a file says), with the scan's own excludes: so the folders
    must be on this machine."""
    saved = _saved_scan(args)
    if saved is None:
        return
    roots = saved.snapshot.roots
    missing = [r for r in roots if not os.path.isdir(r)]
    if missing or not roots:
        where = f" (it was made on {saved.info.host})" if saved.info.host else ""
        raise UsageError(f"cannot clean from {saved.path}: "
                         + (f"the folder {missing[0]} is not on this machine" if missing
                            else "it names no folder")
                         + f"{where}; `clean` scans the saved scan's folders again, here")
    options = saved.info.options
    args.paths = list(roots)
    saved_exclude = options.get("exclude")
    if isinstance(saved_exclude, list):
        args.exclude = [str(p) for p in saved_exclude] + list(args.exclude)
    args.cross_filesystems = args.cross_filesystems or options.get("cross_filesystems") is True


def cmd_clean(args: argparse.Namespace) -> int:
    from mlspace.act import JournalUnavailable, execute
    from mlspace.report.plan_text import plan_table

    _rescan_saved_roots(args)
    snapshot, _, plan = _plan_from_args(args)
    chosen = [plan.by_id(i) for i in args.apply]
    unknown = [i for i, s in zip(args.apply, chosen, strict=True) if s is None]
    if unknown:
        raise UsageError(
            f"no such suggestion now: {', '.join(unknown)} (the tree changed since it was "
            "planned, or the id is wrong; run `mlspace plan` again)")
    selected = [s for s in chosen if s is not None]
    from mlspace.act.tier_advice import action_of

    if archives := [s.id for s in selected if action_of(s) == "archive"]:
        raise UsageError(f"{', '.join(archives)}: archive suggestions are applied with "
                         "`mlspace archive`, never trashed")
    print(plan_table(type(plan)(plan.roots, tuple(selected)), with_paths=True, applying=True))
    if args.dry_run:
        print("\nDry run: nothing was moved.")
        return EXIT_OK
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("not a terminal: pass --yes to confirm, or --dry-run")
        answer = input("\nMove these to the trash? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            print("Nothing was moved.")
            return EXIT_OK
    try:
        result = execute(selected, plan.roots)
    except JournalUnavailable as err:
        raise UsageError(f"{err}; nothing was moved") from None
    print(f"\nMoved to the trash: {fmt.size(result.freed)} "
          f"({fmt.plural(len(result.outcomes) - len(result.skipped), 'item')}). Cleanup id: "
          f"{result.cleanup_id} (undo with: mlspace undo {result.cleanup_id})")
    for outcome in result.skipped:
        print(f"  skipped {outcome.path}: {outcome.reason}")
    if result.stopped:
        print(f"mlspace: stopped early: {result.stopped}", file=sys.stderr)
    return EXIT_UNREADABLE if result.skipped else exit_code_for(snapshot)


def cmd_report(args: argparse.Namespace) -> int:
    from mlspace.report.model import build_report
    from mlspace.report.render import renderer_for

    try:
        render = renderer_for(args.output)
    except ValueError as err:
        raise UsageError(str(err)) from None
    snapshot, inventory, plan = _plan_from_args(args)
    with output_stream(args.output) as out:
        out.write(render(build_report(inventory, plan)))
    print(f"Report written to {args.output}")
    return exit_code_for(snapshot)


def cmd_undo(args: argparse.Namespace) -> int:
    from mlspace.act import history, last_undoable, undo

    if args.list:
        for record in history():
            left = fmt.plural(len(record.trashed), "item")
            state = "undone" if record.undone else f"{left} in the trash"
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
            print(f"{record.id}  {when}  {fmt.size(record.freed):>10}  {state}  {record.title}"
                  f"  (in {', '.join(record.roots)})")
        return EXIT_OK
    cleanup = args.cleanup
    if cleanup is None:
        last = last_undoable()
        if last is None:
            raise UsageError("nothing to undo")
        cleanup = last.id
    try:
        results = undo(cleanup, beside=args.beside)
    except KeyError as err:
        raise UsageError(str(err.args[0])) from None
    except NotImplementedError as err:
        raise UsageError(str(err)) from None
    failed = [r for r in results if r.restored_to is None]
    for r in results:
        if r.restored_to is None:
            print(f"  not restored {r.path}: {r.reason}")
        elif r.restored_to != r.path:
            print(f"  restored {r.path} as {r.restored_to}")
    print(f"Restored {len(results) - len(failed)} of {len(results)} items of {cleanup}.")
    return EXIT_UNREADABLE if failed else EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from mlspace.index import history

    root = os.path.abspath(args.path) if args.path else None
    kept = history.entries(root)
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
    import json
    from concurrent.futures import ThreadPoolExecutor

    from mlspace.index.diff import diff
    from mlspace.index.diff_text import diff_table

    if os.path.isdir(args.new):  # scanned now, its worker processes started from here alone
        old = _diff_side(args.old, args, now=False)
        new = _diff_side(args.new, args, now=True)
    else:  # two saved scans open side by side (reading and numpy let go of the interpreter)
        with ThreadPoolExecutor(1) as pool:
            opening = pool.submit(_diff_side, args.old, args, False)
            new = _diff_side(args.new, args, now=True)
            old = opening.result()
    doc = diff(old, new)
    with output_stream(args.output) as out:
        if args.format == "json":
            json.dump(doc, out, indent=1)
            out.write("\n")
        else:
            out.write(diff_table(doc) + "\n")
    return EXIT_OK


def _diff_side(spec: str, args: argparse.Namespace, now: bool) -> Side:
    """OLD or NEW of `mlspace diff`: a saved scan's file, a history id, or a folder: its
    latest saved scan (OLD) or a scan made now (NEW)."""
    from mlspace.index import history
    from mlspace.index.diff import Side
    from mlspace.index.sniff import saved_scan_format

    if os.path.isdir(spec):
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


_TIER_HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {}


def _run_tier(args: argparse.Namespace) -> int:
    """archive, bring-back, policy and apply-policy live in mlspace.cli_tier."""
    return _TIER_HANDLERS[args.command](args)


COMMANDS = {"scan": cmd_scan, "inventory": cmd_inventory, "plan": cmd_plan,
            "clean": cmd_clean, "undo": cmd_undo, "report": cmd_report, "demo": cmd_demo,
            "history": cmd_history, "diff": cmd_diff,
            **dict.fromkeys(("archive", "bring-back", "policy", "apply-policy"), _run_tier)}
