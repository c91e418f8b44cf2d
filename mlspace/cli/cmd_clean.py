"""``mlspace clean`` and ``mlspace undo``: move planned suggestions to the trash, after a
fresh scan and plan, and put them back."""

from __future__ import annotations

import argparse
import os
import sys
import time

from mlspace import fmt
from mlspace.cli.cmd_plan import chosen_suggestions, plan_from_args
from mlspace.cli.exits import EXIT_OK, EXIT_UNREADABLE, UsageError, exit_code_for
from mlspace.cli.output import tell_skipped
from mlspace.cli.sources import saved_scan
from mlspace.cli.terminal import go_ahead


def _rescan_saved_roots(args: argparse.Namespace) -> None:
    """`clean` given a saved scan cleans the folders it names, scanned again now (a cleanup
    is never planned on what a file says), with the scan's own excludes: so the folders
    must be on this machine."""
    saved = saved_scan(args)
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
    from mlspace.advise.archive import action_of
    from mlspace.cli.cmd_archive import report_result, user_settings
    from mlspace.report.plan_text import plan_table

    _rescan_saved_roots(args)
    snapshot, _, plan = plan_from_args(args)
    selected = chosen_suggestions(plan, args.apply)
    if archives := [s.id for s in selected if action_of(s) == "archive"]:
        raise UsageError(f"{', '.join(archives)}: archive suggestions are applied with "
                         "`mlspace archive`, never trashed")
    print(plan_table(type(plan)(plan.roots, tuple(selected)), with_paths=True, applying=True))
    question = ("Move these to the trash, then delete them for good? This cannot be undone."
                if args.free_now else "Move these to the trash?")
    if not go_ahead(question, args):
        return EXIT_OK
    try:
        result = execute(selected, plan.roots, free_now=args.free_now)
    except JournalUnavailable as err:
        raise UsageError(f"{err}; nothing was moved") from None
    report_result(result, plan.roots, user_settings().trash_days)
    return EXIT_UNREADABLE if result.skipped else exit_code_for(snapshot)


def cmd_undo(args: argparse.Namespace) -> int:
    from mlspace.act import last_undoable, undo
    from mlspace.act.journal import read_history

    records, problems = read_history()
    tell_skipped(problems)  # the others stay listed and undoable
    if args.list:
        from mlspace.report.cleanups import record_sizes, record_state

        for record in records:
            moved, freed = record_sizes(record)
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
            print(f"{record.id}  {when}  {moved:>10}  {record_state(record)}"
                  + (f", {freed} freed" if freed else "")
                  + f"  {record.title}  (in {', '.join(record.roots)})")
        return EXIT_OK
    cleanup = args.cleanup
    if cleanup is None:
        last = last_undoable()
        if last is None:  # not a mistake of the user's: there is simply nothing out (0)
            print("Nothing to undo: no cleanup has anything in the trash "
                  "(`mlspace undo --list` shows each cleanup's state).")
            return EXIT_OK
        cleanup = last.id
    try:
        results = undo(cleanup, beside=args.beside)
    except KeyError as err:
        raise UsageError(str(err.args[0])) from None
    except NotImplementedError as err:
        raise UsageError(str(err)) from None
    if not results:
        print(f"Nothing of {cleanup} is in the trash: it was undone already, or moved nothing "
              "(`mlspace undo --list` shows each cleanup's state).")
        return EXIT_OK
    failed = [r for r in results if r.restored_to is None]
    for r in results:
        if r.restored_to is None:
            print(f"  not restored {r.path}: {r.reason}", file=sys.stderr)
        elif r.restored_to != r.path:
            print(f"  restored {r.path} as {r.restored_to}")
    print(f"Restored {len(results) - len(failed)} of {fmt.plural(len(results), 'item')} of "
          f"{cleanup}.")
    if any("restore beside it" in r.reason for r in failed):
        print(f"To put those back next to what is there now: mlspace undo {cleanup} --beside",
              file=sys.stderr)
    return EXIT_UNREADABLE if failed else EXIT_OK
