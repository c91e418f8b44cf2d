"""What ``mlspace`` does without a command: open the app on folders (``mlspace PATH...``) or
on the demo (``mlspace --demo``), or add it to the application menu. What the user named is
checked here, before Qt loads, so a mistake gets a one-line message rather than a window."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from mlspace import __version__
from mlspace.cli.exits import EXIT_OK, EXIT_USAGE, UsageError
from mlspace.cli.parser import COMMANDS
from mlspace.cli.sources import check_folder


def build_gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlspace",
        description="Open the mlspace app. Commands for terminals and servers: "
        + ", ".join(sorted(COMMANDS)) + " (mlspace COMMAND --help).",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="folders to open and scan, or one saved scan (.parquet, ncdu/gdu "
                        "JSON) to open")
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
    """The app's own command line (also the ``mlspace-gui`` entry point's)."""
    args = build_gui_parser().parse_args(argv)
    if args.install_desktop or args.uninstall_desktop:
        from mlspace import desktop

        changed = desktop.install() if args.install_desktop else desktop.uninstall()
        verb = "Installed" if args.install_desktop else "Removed"
        print(f"{verb} {len(changed)} files under {desktop.data_home()}")
        return EXIT_OK
    check_app_paths(args.paths)
    from mlspace.ui.platform_check import display_problem

    problem = display_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    from mlspace.ui.app import run

    return run(args.paths, demo=args.demo, screenshot=args.screenshot)


def gui_main() -> int:
    """The mlspace-gui entry point (a GUI script: no console window on Windows)."""
    import multiprocessing

    multiprocessing.freeze_support()  # scanner workers in a frozen app
    return run_gui(sys.argv[1:])


def check_app_paths(paths: Sequence[str]) -> None:
    """What the app may be given to open: folders, or one saved scan on its own. Anything
    else is refused with why."""
    from mlspace.index.sniff import saved_scan_format

    saved = [p for p in paths if saved_scan_format(p)]
    if saved and len(paths) > 1:
        raise UsageError("a saved scan is opened on its own: name one saved scan, or the "
                         "folders to scan")
    for path in paths:
        if path not in saved:
            check_folder(path)


def not_a_mistyped_command(argv: list[str]) -> None:
    """`mlspace frobnicate DIR`: a word that is neither a command nor a path is most likely
    a mistyped command, so say that rather than "no such folder"."""
    first = argv[0] if argv else ""
    if first and not first.startswith("-") and os.sep not in first \
            and not os.path.lexists(first):
        raise UsageError(f"{first!r} is neither a command nor a folder here (commands: "
                         f"{', '.join(COMMANDS)}; or name folders to open the app)")
