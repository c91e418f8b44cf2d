"""What a command works on: the folders named, scanned now (here, or on a Dask cluster), or
one saved scan opened; then classified with the user's rules."""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from mlspace.cli.exits import UsageError
from mlspace.cli.terminal import print_scan_progress
from mlspace.scan import ListingCallback, ScanOptions, ScanProgress, scan

if TYPE_CHECKING:
    from mlspace.classify import Inventory
    from mlspace.classify.rules import CompiledRules
    from mlspace.index.info import ScanInfo
    from mlspace.index.saved import SavedScan
    from mlspace.scan import Snapshot


class Source(NamedTuple):
    """What a command works on: a scan of the folders named, made now, or a saved scan."""

    snapshot: Snapshot
    info: ScanInfo
    saved: SavedScan | None = None


def check_folder(path: str) -> None:
    """mlspace scans folders: say so at once for anything else the user names."""
    if not os.path.lexists(path):
        raise UsageError(f"no such file or folder: {path}")
    if not os.path.isdir(path):
        raise UsageError(f"{path} is not a folder or a saved scan: name the folder to scan")


def scan_options(args: argparse.Namespace) -> ScanOptions:
    """The scan options the arguments ask for (also saved with the scan)."""
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    return ScanOptions(
        cross_filesystems=args.cross_filesystems,
        exclude=tuple(args.exclude),
        workers=args.workers,
    )


def scan_from_args(args: argparse.Namespace, on_listing: ListingCallback | None = None,
                   parts_dir: str = "") -> Snapshot:
    """Check the roots exist, then scan with progress on stderr when it is a terminal. On a
    cluster, ``parts_dir`` is where the workers write their walks (see DaskSharer)."""
    for path in args.paths:
        check_folder(path)
    options = scan_options(args)
    show = sys.stderr.isatty()
    progress = print_scan_progress if show else None
    if getattr(args, "cluster", None):
        snapshot = _scan_on_cluster(args, options, progress, on_listing, parts_dir)
    else:
        snapshot = scan(args.paths, options, progress=progress, on_listing=on_listing)
    if show:
        sys.stderr.write("\r\033[K")
    return snapshot


def _scan_on_cluster(args: argparse.Namespace, options: ScanOptions,
                     progress: Callable[[ScanProgress], None] | None,
                     on_listing: ListingCallback | None, parts_dir: str) -> Snapshot:
    """The walk on a Dask cluster; Dask is imported here only, so without --cluster nothing
    of it loads. Ctrl+C cancels the tasks, closes a local cluster and ends with 130."""
    from mlspace.scan.cluster import ClusterError, DaskSharer, connect, parse_address

    try:
        address = parse_address(args.cluster)
    except ValueError as err:
        raise UsageError(f"--cluster {err}") from err
    if parts_dir:  # the parts come and go while the walk may pass there: not the scan's
        options = replace(options, exclude=(*options.exclude, *_exact_paths(parts_dir)))
    try:
        with connect(address) as client:
            return scan(args.paths, options, progress=progress, on_listing=on_listing,
                        sharer=DaskSharer(client, parts_dir))
    except ClusterError as err:
        raise UsageError(str(err)) from err


def _exact_paths(path: str) -> tuple[str, ...]:
    """Exclude patterns matching just ``path``, as given and through its links."""
    return tuple({glob.escape(os.path.abspath(path)), glob.escape(os.path.realpath(path))})


def open_saved_scan(path: str) -> SavedScan:
    """Open a saved scan, or stop with ``cannot open PATH: reason``."""
    from mlspace.index.errors import CannotOpen
    from mlspace.index.saved import open_saved

    try:
        return open_saved(path)
    except CannotOpen as err:
        raise UsageError(f"cannot open {path}: {err}") from None


def saved_scan(args: argparse.Namespace) -> SavedScan | None:
    """The saved scan given as the PATH, opened; None when the PATHs are folders."""
    from mlspace.index.sniff import saved_scan_format

    saved = [p for p in args.paths if saved_scan_format(p)]
    if not saved:
        return None
    if len(args.paths) > 1:
        raise UsageError("a saved scan is opened on its own: name one saved scan, or the "
                         "folders to scan")
    return open_saved_scan(saved[0])


def load_or_scan(args: argparse.Namespace, on_listing: ListingCallback | None = None,
                 parts_dir: str = "") -> Source:
    """The saved scan the PATH names, or a scan of the folders (``on_listing`` sees it)."""
    saved = saved_scan(args)
    if saved is not None:
        return Source(saved.snapshot, saved.info, saved)
    started = time.time()
    snapshot = scan_from_args(args, on_listing, parts_dir)
    from mlspace.index.info import ScanInfo  # after the walk: it is not needed to start it

    return Source(snapshot, ScanInfo.here(started, options=scan_options(args)))


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


def scan_and_classify(args: argparse.Namespace, parts_dir: str = ""
                      ) -> tuple[Source, Inventory]:
    """Open the saved scan, or load the rules, then scan and classify. The rules come first
    so that a broken rules file is reported on stderr before a long scan, not after it."""
    from mlspace.classify import EntryClassifier, classify

    saved = saved_scan(args)
    if saved is not None:
        return Source(saved.snapshot, saved.info, saved), inventory_of(saved)
    classifier = EntryClassifier(_compiled_rules())  # works while the scan's workers walk
    source = load_or_scan(args, on_listing=classifier.add, parts_dir=parts_dir)
    return source, classify(source.snapshot, during_scan=classifier)
