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
    from mlspace.act.tier_undo import settle_interrupted

    for r in settle_interrupted([os.path.abspath(p) for p in roots]):
        print(f"  interrupted earlier: {r.path}: {r.reason}")


def report_result(result: Any, verb: str) -> None:
    """What a run moved, its cleanup id for undo, and what it skipped and why."""
    done = len(result.outcomes) - len(result.skipped)
    print(f"\n{verb}: {fmt.size(result.freed)} ({done} items). Cleanup id: {result.cleanup_id} "
          f"(undo with: mlspace undo {result.cleanup_id})")
    for outcome in result.skipped:
        print(f"  skipped {outcome.path}: {outcome.reason}")
    if result.stopped:
        print(f"mlspace: stopped early: {result.stopped}", file=sys.stderr)


def cmd_archive(args: argparse.Namespace) -> int:
    from mlspace.act import JournalUnavailable, lock, tier
    from mlspace.act.tier_advice import ArchiveAges, with_archive_suggestions
    from mlspace.advise import AdviceSettings
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
                result = tier.run([(s, tier.ARCHIVE) for s in selected], plan.roots, cold,
                                  progress=meter, cancel=meter.cancel)
    except (tier.TierUnavailable, JournalUnavailable) as err:
        raise UsageError(str(err)) from None
    except lock.Busy as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    report_result(result, "Archived")
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
