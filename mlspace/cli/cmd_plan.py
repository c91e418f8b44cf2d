"""``mlspace plan`` and ``mlspace report``: the suggested cleanups of a scan (nothing is
changed), printed, or written as a report with the inventory they come from."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING

from mlspace.cli.apparent import with_sparse_note
from mlspace.cli.exits import UsageError, exit_code_for
from mlspace.cli.output import output_stream, tell_skipped, wants_json
from mlspace.cli.sources import saved_scan, scan_and_classify

if TYPE_CHECKING:
    from mlspace.advise import Plan, Suggestion
    from mlspace.classify import Inventory
    from mlspace.scan import Snapshot


def plan_from_args(args: argparse.Namespace) -> tuple[Snapshot, Inventory, Plan]:
    """Scan (or open the saved scan), classify and advise with the --keep-* settings; also
    what `clean` and `archive` re-plan with, so an id from `plan` names the same cleanup."""
    from mlspace.advise import AdviceSettings, advise

    if args.keep_best < 0 or args.keep_latest < 1:
        raise UsageError("--keep-best must be 0 or more and --keep-latest 1 or more")
    source, inventory = scan_and_classify(args)
    snapshot = source.snapshot
    if args.duplicates and source.saved is not None:
        raise UsageError("--duplicates compares the files' contents: give the folders to "
                         "scan, not a saved scan")
    settings = AdviceSettings(keep_best=args.keep_best, keep_latest=args.keep_latest,
                              keep_per_series=per_series_keeps(args.keep_for, inventory))
    groups = None
    if args.duplicates:
        from mlspace.advise.duplicates import find_duplicates

        groups = find_duplicates(inventory)
    from mlspace.advise.archive import with_configured_archive
    from mlspace.config import ConfigError

    try:
        plan = with_configured_archive(advise(inventory, settings, groups), inventory, settings)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    return snapshot, inventory, plan


def chosen_suggestions(plan: Plan, ids: list[str]) -> list[Suggestion]:
    """The suggestions ``ids`` name in the plan made now: an id it no longer has (the tree
    changed since, or the id is mistyped) is refused, never guessed at."""
    chosen = [plan.by_id(i) for i in ids]
    unknown = [i for i, s in zip(ids, chosen, strict=True) if s is None]
    if unknown:
        raise UsageError(
            f"no such suggestion now: {', '.join(unknown)} (the tree changed since it was "
            "planned, or the id is wrong; run `mlspace plan` again)")
    return [s for s in chosen if s is not None]


def per_series_keeps(specs: list[str], inventory: Inventory) -> dict[str, tuple[int, int]]:
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
    from mlspace.cli.disk_lines import lines_text, statuses
    from mlspace.report.plan_text import plan_record, plan_table

    snapshot, _, plan = plan_from_args(args)
    disks = statuses(plan.roots, plan, saved=saved_scan(args) is not None)
    with output_stream(args.output) as out:
        if wants_json(args):
            json.dump({**plan_record(plan), "disks": [d.record() for d in disks]}, out,
                      indent=1)
            out.write("\n")
        else:
            apparent = sum(s.apparent_bytes for s in plan.suggestions)
            out.write(lines_text(disks) + with_sparse_note(
                plan_table(plan, apparent=args.apparent), plan.total_bytes, apparent,
                args.apparent) + "\n")
    return exit_code_for(snapshot)


def cmd_report(args: argparse.Namespace) -> int:
    from mlspace.report.model import build_report
    from mlspace.report.render import renderer_for

    try:
        render = renderer_for(args.output)
    except ValueError as err:
        raise UsageError(str(err)) from None
    from mlspace.cli.disk_lines import statuses

    snapshot, inventory, plan = plan_from_args(args)
    disks = statuses(plan.roots, plan, saved=saved_scan(args) is not None)
    report = build_report(inventory, plan, apparent=args.apparent,
                          disks=[d.record() for d in disks])
    tell_skipped(list(report.skipped))
    text = render(report)  # before the file
    with output_stream(args.output) as out:
        out.write(text)
    print(f"Report written to {args.output}")
    return exit_code_for(snapshot)
