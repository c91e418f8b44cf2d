"""The command line's grammar: every ``mlspace`` command, its arguments, and the function
that runs it. The arguments several commands share are added by one function each, so a
flag means the same everywhere. Only the invoked command's parser is built, and what its
help texts name is imported by its builder: ``mlspace scan`` walks sooner."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from mlspace import __version__
from mlspace.cli.apparent import add_apparent_argument

Handler = Callable[[argparse.Namespace], int]

#: ``scan --format``'s choices.
SCAN_FORMATS = ("table", "json", "csv", "parquet", "ncdu")


def _handler(module: str, name: str) -> Handler:
    """The command function ``name`` of ``mlspace.cli.<module>``, imported when the command
    runs: each command loads only what it needs (``mlspace scan`` starts walking sooner)."""

    def run(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(f"mlspace.cli.{module}"), name)(args)

    run.__name__ = name
    return run


#: Each command's name and what runs it; the first word of the command line is looked up
#: here to tell a command from a folder to open in the app.
COMMANDS: dict[str, Handler] = {
    "scan": _handler("cmd_scan", "cmd_scan"),
    "inventory": _handler("cmd_inventory", "cmd_inventory"),
    "plan": _handler("cmd_plan", "cmd_plan"), "clean": _handler("cmd_clean", "cmd_clean"),
    "undo": _handler("cmd_clean", "cmd_undo"), "report": _handler("cmd_plan", "cmd_report"),
    "demo": _handler("cmd_demo", "cmd_demo"), "history": _handler("cmd_history", "cmd_history"),
    "diff": _handler("cmd_history", "cmd_diff"),
    "archive": _handler("cmd_archive", "cmd_archive"),
    "bring-back": _handler("cmd_archive", "cmd_bring_back"),
    "policy": _handler("cmd_policy", "cmd_policy"),
    "apply-policy": _handler("cmd_policy", "cmd_apply_policy"),
    "purge": _handler("cmd_purge", "cmd_purge"),
    "guard": _handler("cmd_guard", "cmd_guard"),
}


def add_scan_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="folders to scan, or one saved scan (an mlspace .parquet, or an "
                        "ncdu JSON export from `ncdu -o` or `gdu -o`, plain or gzip)")
    add_scan_options(parser)


def add_scan_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exclude", action="append", default=[], metavar="PATTERN",
        help="leave out entries whose name (or, with a '/', whose path) matches this glob",
    )
    parser.add_argument(
        "--cross-filesystems", action="store_true",
        help="also enter other filesystems mounted inside the folders",
    )
    from mlspace.scan import ScanOptions

    parser.add_argument(
        "--workers", type=int, default=ScanOptions().workers,
        help="scanning processes of the Python walker (default: %(default)s; 1 scans in this "
        "process); the native walker runs 8 threads per worker",
    )
    parser.add_argument(
        "--cluster", metavar="ADDRESS",
        help="walk on a Dask cluster: its scheduler (tcp://HOST:8786), or local:N to start N "
        "worker processes here (needs pip install 'mlspace[cluster]'; --workers is then unused)",
    )


def add_advice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keep-best", type=int, default=1, metavar="K",
                        help="checkpoints to keep per run by its best metric (default 1)")
    parser.add_argument("--keep-latest", type=int, default=2, metavar="N",
                        help="latest checkpoints to keep per run (default 2)")
    parser.add_argument("--keep-for", action="append", default=[], metavar="FOLDER=K:N",
                        help="keep K best and N latest for the run or series in FOLDER "
                        "(repeatable), e.g. outputs/bert=2:3")
    parser.add_argument("--duplicates", action="store_true",
                        help="also find exact duplicate files (reads the candidates' contents)")


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """What the commands that move to the cold tier take to run unattended."""
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--dry-run", action="store_true", help="show what would move, move "
                        "nothing")
    parser.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                        help="if another mlspace run works on these folders, wait this long")


def add_table_or_json_output(cmd: argparse.ArgumentParser) -> None:
    """--format and -o of the commands that print a table or JSON (inventory, plan, diff)."""
    cmd.add_argument("--format", choices=("table", "json"),
                     help="table (default), or json; -o FILE.json writes json")
    cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone (what ``main`` runs: the other
    commands' parsers cost start-up and are not used)."""
    parser = argparse.ArgumentParser(
        prog="mlspace",
        description="See where the disk went in ML workspaces, and get it back safely.",
        epilog="Without a command, mlspace opens the app: `mlspace [PATH...]` scans those "
        "folders (or opens a saved scan), `mlspace --demo` opens a generated sample "
        "workspace, `mlspace --install-desktop` adds mlspace to your application menu "
        "(`mlspace --help-app` for all of the app's options). `mlspace COMMAND --help` "
        "explains a command.",
    )
    parser.add_argument("--version", action="version", version=f"mlspace {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(command_parsers=commands.choices)  # their own usage for errors
    for name, add in _BUILDERS.items():
        if command is None or name == command:
            add(commands)
    return parser


def _add_scan_command(commands: argparse._SubParsersAction) -> None:
    scan_cmd = commands.add_parser(
        "scan", help="scan folders and print totals, a listing, or save the scan")
    add_scan_arguments(scan_cmd)
    scan_cmd.add_argument(
        "--format", choices=SCAN_FORMATS,
        help="table (default), json or csv listing, parquet (mlspace's saved scan) or ncdu "
        "(ncdu's JSON export); by default the extension of -o FILE chooses")
    scan_cmd.add_argument(
        "-o", "--output", metavar="FILE",
        help="write to FILE, not stdout; a folder (FOLDER/) holds the scan as a Parquet "
        "dataset, into which --cluster workers also write their parts")
    scan_cmd.add_argument("--save", action="store_true",
                          help="also keep the scan in mlspace's history (see `mlspace history`)")
    scan_cmd.add_argument("-v", "--verbose", action="store_true",
                          help="also say on stderr which walker scanned (native or Python), "
                          "with how many workers, how many entries and how long it took")
    add_apparent_argument(scan_cmd)


def _add_inventory_command(commands: argparse._SubParsersAction) -> None:
    inventory_cmd = commands.add_parser(
        "inventory", help="runs, checkpoint series (best and latest) and space per category"
    )
    add_scan_arguments(inventory_cmd)
    add_table_or_json_output(inventory_cmd)
    add_apparent_argument(inventory_cmd)


def _add_plan_command(commands: argparse._SubParsersAction) -> None:
    plan_cmd = commands.add_parser("plan", help="suggest safe cleanups (changes nothing)")
    add_scan_arguments(plan_cmd)
    add_advice_arguments(plan_cmd)
    add_table_or_json_output(plan_cmd)
    add_apparent_argument(plan_cmd)


def _add_acting_command(commands: argparse._SubParsersAction, name: str, about: str,
                        apply_help: str) -> argparse.ArgumentParser:
    """A command that rescans, re-plans and acts on the suggestions named by --apply."""
    cmd = commands.add_parser(name, help=about)
    add_scan_arguments(cmd)
    add_advice_arguments(cmd)
    cmd.add_argument("--apply", nargs="+", required=True, metavar="ID", help=apply_help)
    return cmd


def _add_clean_command(commands: argparse._SubParsersAction) -> None:
    clean_cmd = _add_acting_command(
        commands, "clean", "rescan, re-plan and move the named suggestions to the trash",
        "ids of suggestions from `mlspace plan`")
    clean_cmd.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    clean_cmd.add_argument("--dry-run", action="store_true",
                           help="show what would go, move nothing")
    clean_cmd.add_argument("--free-now", action="store_true",
                           help="then delete what moved for good, at once (the disk gets the "
                           "space back; this cannot be undone)")


def _add_undo_command(commands: argparse._SubParsersAction) -> None:
    undo_cmd = commands.add_parser("undo", help="put back what a cleanup moved to the trash")
    undo_cmd.add_argument("cleanup", nargs="?", metavar="CLEANUP_ID",
                          help="which cleanup (default: the last one)")
    undo_cmd.add_argument("--list", action="store_true", help="list past cleanups")
    undo_cmd.add_argument("--beside", action="store_true",
                          help="if a path exists again, restore next to it")


def _add_report_command(commands: argparse._SubParsersAction) -> None:
    report_cmd = commands.add_parser(
        "report", help="scan, classify, plan and write a report (.html, .csv, .json, .md)")
    add_scan_arguments(report_cmd)
    add_advice_arguments(report_cmd)
    report_cmd.add_argument("-o", "--output", required=True, metavar="FILE",
                            help="the report; its extension chooses the format")
    add_apparent_argument(report_cmd)


def _add_history_command(commands: argparse._SubParsersAction) -> None:
    history_cmd = commands.add_parser("history", help="list the scans kept by `scan --save`")
    history_cmd.add_argument("path", nargs="?", metavar="PATH",
                             help="only the scans of this folder")


def _add_diff_command(commands: argparse._SubParsersAction) -> None:
    diff_cmd = commands.add_parser(
        "diff", help="what changed between two scans: folders, categories and runs")
    diff_cmd.add_argument("old", metavar="OLD", help="a saved scan (file or history id), or "
                          "a folder: its latest saved scan")
    diff_cmd.add_argument("new", metavar="NEW", help="a saved scan (file or history id), or "
                          "a folder: scanned now")
    add_scan_options(diff_cmd)
    add_table_or_json_output(diff_cmd)
    add_apparent_argument(diff_cmd)


def _add_demo_command(commands: argparse._SubParsersAction) -> None:
    demo_cmd = commands.add_parser("demo", help="write the sample ML workspace into a folder")
    demo_cmd.add_argument("folder", metavar="DIR", help="an empty or new folder")


def _add_guard_command(commands: argparse._SubParsersAction) -> None:
    from mlspace.config import POLICY_NAME

    guard = commands.add_parser(
        "guard", help="watch the disks of workspaces, warn before they fill, free space as "
        "their policy's [guard] section allows")
    guard.add_argument("paths", nargs="+", metavar="PATH",
                       help="workspace folders to guard, or `status`: what the guard saw last")
    guard.add_argument("--once", action="store_true",
                       help="one round (sample, forecast, warn, act), then exit")
    guard.add_argument("--install", action="store_true",
                       help="write, verify and start a systemd user service that guards them")
    guard.add_argument("--policy", metavar="FILE", help=f"the policy for every PATH (default: "
                       f"{POLICY_NAME} in each PATH, else policy.toml in the config folder)")


def _add_purge_command(commands: argparse._SubParsersAction) -> None:
    purge = commands.add_parser(
        "purge", help="delete for good what mlspace moved to the trash (frees the space)")
    purge.add_argument("cleanups", nargs="*", metavar="CLEANUP_ID",
                       help="only these cleanups (default: every cleanup's items in the trash)")
    purge.add_argument("--older-than", type=float, metavar="DAYS",
                       help="only items moved to the trash at least DAYS ago")
    purge.add_argument("--expired", action="store_true",
                       help="what the trash keeps no longer: items older than trash_days "
                       "in config.toml (what the app and policy runs free by themselves)")
    purge.add_argument("--dry-run", action="store_true", help="say what would go, delete "
                       "nothing")
    purge.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def _add_archive_command(commands: argparse._SubParsersAction) -> None:
    """archive and bring-back (below): the cold tier."""
    archive = _add_acting_command(
        commands, "archive", "move suggestions to the cold tier (a link is left in their "
        "place)", "ids from `mlspace plan` (archive suggestions, or any other to archive "
        "instead of trash)")
    archive.add_argument("--to", metavar="DIR", help="the archive folder (default: "
                         "archive_root in config.toml)")
    archive.add_argument("--link", choices=("symlink", "stub"),
                         help="what to leave at each path (default: archive_link, symlink)")
    add_run_arguments(archive)


def _add_bring_back_command(commands: argparse._SubParsersAction) -> None:
    back = commands.add_parser(
        "bring-back", help="copy archived items back in place of their link or stub")
    back.add_argument("paths", nargs="+", metavar="PATH", help="an archived item's link or "
                      "its NAME.mlspace-archived.json stub")


def _add_policy_command(commands: argparse._SubParsersAction) -> None:
    """policy and apply-policy (below): unattended runs."""
    from mlspace.config import POLICY_NAME

    pol = commands.add_parser("policy", help="write or check a policy for apply-policy")
    pol.add_argument("action", choices=("init", "check", "runs"),
                     help="init: write a commented example; check: validate one; runs: list "
                     "past unattended runs")
    pol.add_argument("path", nargs="?", metavar="PATH", help=f"init: a workspace folder "
                     f"(writes {POLICY_NAME} in it) or a .toml file (default: the config "
                     "folder); check: the policy file")


def _add_apply_policy_command(commands: argparse._SubParsersAction) -> None:
    from mlspace.config import POLICY_NAME

    apply = commands.add_parser(
        "apply-policy", help="plan and apply what a policy allows (for timers and cron)")
    add_scan_arguments(apply)
    apply.add_argument("--policy", metavar="FILE", help=f"the policy (default: {POLICY_NAME} "
                       "in the first PATH, else policy.toml in the config folder)")
    apply.add_argument("--report", metavar="FILE", help="write what ran (.html or .json)")
    apply.add_argument("--install-timer", choices=("daily", "weekly"),
                       help="install a systemd user timer that runs this unattended")
    add_run_arguments(apply)


#: Each command's parser builder, in the order ``mlspace --help`` lists them.
_BUILDERS: dict[str, Callable[[argparse._SubParsersAction], None]] = {
    "scan": _add_scan_command, "inventory": _add_inventory_command,
    "plan": _add_plan_command, "clean": _add_clean_command, "purge": _add_purge_command,
    "undo": _add_undo_command, "report": _add_report_command,
    "history": _add_history_command, "diff": _add_diff_command, "demo": _add_demo_command,
    "archive": _add_archive_command, "bring-back": _add_bring_back_command,
    "policy": _add_policy_command, "apply-policy": _add_apply_policy_command,
    "guard": _add_guard_command,
}
