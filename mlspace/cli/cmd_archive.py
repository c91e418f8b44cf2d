"""``mlspace archive`` and ``mlspace bring-back``: move suggestions to the cold tier (a
link or stub is left in their place) and copy them back.

Long copies show bytes, rate and time left on a terminal; Ctrl-C cancels the item being
copied (it is rolled back, its original untouched) and stops the run; a second Ctrl-C
interrupts at once (the journal lets ``mlspace undo`` or a re-run settle it).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from mlspace import fmt
from mlspace.cli.cmd_plan import chosen_suggestions, per_series_keeps, plan_from_args
from mlspace.cli.exits import EXIT_OK, EXIT_UNREADABLE, UsageError, exit_code_for
from mlspace.cli.terminal import CopyMeter, go_ahead


def user_settings() -> Any:
    """The user's config.toml (archive folder, link kind, ages), or a usage error naming
    what is wrong in it."""
    from mlspace.config import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as err:
        raise UsageError(str(err)) from None


def require_folders(paths: Sequence[str]) -> None:
    """Moving acts on the disk as it is now, so a saved scan is refused here."""
    for path in paths:
        if not os.path.isdir(path):
            raise UsageError(f"{path} is not a folder: name the folders to act on (a saved "
                             "scan cannot be acted on)")


def print_settled(roots: Sequence[str]) -> None:
    """Settle (and say) what an interrupted earlier run left half-done in these folders,
    before anything new is moved."""
    from mlspace.act.settle import settle_interrupted

    for r in settle_interrupted([os.path.abspath(p) for p in roots]):
        print(f"  interrupted earlier: {r.path}: {r.reason}")


def report_result(result: Any, roots: Sequence[str], trash_days: float) -> None:
    """What a run did, in the words `df` agrees with: what waits in the trash (still on
    this disk, and how to free it), what left the disk and what it really got back, the
    cleanup id for undo, what was skipped and why, and the disk line as it is now."""
    from mlspace.cli.disk_lines import print_disk_lines

    print()
    if result.moved_to_trash:
        print(f"Moved to the trash: {fmt.size(result.moved_to_trash)} "
              f"({fmt.plural(sum(o.went == 'trash' for o in result.done), 'item')}), still on "
              "this disk" + (f" in {', '.join(result.trashes)}" if result.trashes else "")
              + ".")
        kept = f"mlspace frees it by itself after {trash_days:g} days" if trash_days else \
            "mlspace keeps it until you free it"
        print(f"Free it now with: mlspace purge {result.cleanup_id} (cannot be undone); "
              f"{kept}.")
    archived = sum(o.went == "tier" for o in result.done)
    if archived:
        print(f"Archived to the cold tier: {fmt.plural(archived, 'item')}, a link left at "
              "each path.")
    if result.freed is not None:
        deleted = sum(o.went == "deleted" for o in result.done)
        print(f"Freed {fmt.size(max(result.freed, 0))}: the disk has that much more free "
              "space" + (f" ({fmt.plural(deleted, 'item')} deleted for good)" if deleted
                         else "") + ".")
    if result.done:
        print(f"Cleanup id: {result.cleanup_id} (undo with: mlspace undo {result.cleanup_id})")
    else:
        print("Nothing was moved.")
    for outcome in result.skipped:
        print(f"  skipped {outcome.path}: {outcome.reason}", file=sys.stderr)
    if result.stopped:
        print(f"mlspace: stopped early: {result.stopped}", file=sys.stderr)
    print_disk_lines(roots, None)


def cmd_archive(args: argparse.Namespace) -> int:
    from mlspace.act import ARCHIVE, JournalUnavailable, lock, run, tier
    from mlspace.advise import AdviceSettings
    from mlspace.advise.archive import ArchiveAges, with_archive_suggestions
    from mlspace.report.plan_text import plan_table

    require_folders(args.paths)
    settings = user_settings()
    root = os.path.abspath(args.to) if args.to else settings.archive_root
    if not root:
        raise UsageError("no archive folder: set archive_root in config.toml, or pass --to DIR")
    cold = tier.Tier(root, link=args.link or settings.archive_link)
    try:
        cold.check()
        with lock.hold(args.paths, "mlspace archive", args.wait):
            print_settled(args.paths)
            snapshot, inventory, plan = plan_from_args(args)
            keeps = AdviceSettings(keep_best=args.keep_best, keep_latest=args.keep_latest,
                                   keep_per_series=per_series_keeps(args.keep_for, inventory))
            plan = with_archive_suggestions(plan, inventory, keeps,
                                            ArchiveAges.from_settings(settings))
            selected = chosen_suggestions(plan, args.apply)
            print(plan_table(type(plan)(plan.roots, tuple(selected)), with_paths=True))
            print(f"\nTo: {cold.destination(os.sep)}…  (a {cold.link} is left at each path)")
            if not go_ahead("Move these to the archive folder?", args):
                return EXIT_OK
            meter = CopyMeter()
            with meter.catching_ctrl_c():
                result = run([(s, ARCHIVE) for s in selected], plan.roots, cold,
                                  progress=meter, cancel=meter.cancel)
    except (tier.TierUnavailable, JournalUnavailable) as err:
        raise UsageError(str(err)) from None
    except lock.Busy as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    report_result(result, plan.roots, settings.trash_days)
    return EXIT_UNREADABLE if result.skipped else exit_code_for(snapshot)


def cmd_bring_back(args: argparse.Namespace) -> int:
    from mlspace.act import JournalUnavailable
    from mlspace.act.bring_back import NotArchived, bring_back

    archive_root = user_settings().archive_root
    failed = 0
    meter = CopyMeter()
    with meter.catching_ctrl_c():
        for path in args.paths:
            try:
                outcome = bring_back(path, archive_root, meter, meter.cancel)
            except (NotArchived, JournalUnavailable) as err:
                print(f"  not brought back {path}: {err}")
                failed += 1
                continue
            if outcome.restored_to is None:
                print(f"  not brought back {path}: {outcome.reason}")
                failed += 1
            else:
                kept = f" ({outcome.reason})" if outcome.reason else ""  # a copy left
                print(f"  brought back {outcome.restored_to}{kept}")
    return EXIT_UNREADABLE if failed else EXIT_OK
