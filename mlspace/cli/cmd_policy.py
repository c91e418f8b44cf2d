"""``mlspace policy`` and ``mlspace apply-policy``: write and check a policy, and apply
what it allows without a person there (from a systemd timer or cron, which
``--install-timer`` sets up)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from mlspace import fmt
from mlspace.cli.cmd_archive import print_settled, report_result, require_folders, user_settings
from mlspace.cli.exits import EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, UsageError, exit_code_for
from mlspace.cli.output import output_stream, tell_skipped
from mlspace.cli.sources import scan_and_classify
from mlspace.cli.terminal import CopyMeter, confirm
from mlspace.config import POLICY_NAME


def cmd_policy(args: argparse.Namespace) -> int:
    from mlspace import trust
    from mlspace.act import policy
    from mlspace.act.policy_runs import read_policy_runs
    from mlspace.config import config_dir

    if args.action == "runs":
        runs, problems = read_policy_runs()
        tell_skipped(problems)
        for run in runs:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.get("time", 0)))
            print(f"{when}  exit {run.get('exit_code')}  "
                  f"{fmt.size(run.get('moved_bytes', 0)):>10} moved  "
                  f"{fmt.size(max(run.get('freed', 0), 0)):>10} freed  "
                  f"{run.get('moved_items', 0)} items moved, {run.get('skipped_items', 0)} "
                  "skipped  "
                  f"{', '.join(run.get('roots', []))}  {run.get('cleanup_id') or ''}")
        return EXIT_OK
    if args.action == "check":
        if not args.path:
            raise UsageError("policy check takes the policy file")
        try:
            checked = policy.load(args.path)
        except policy.PolicyError as err:
            print(f"mlspace: {_policy_problem(err)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"{args.path}: {len(checked.rules)} rules, OK")
        return EXIT_OK
    target = Path(args.path) if args.path else config_dir() / "policy.toml"
    workspace = "FOLDER"  # what the policy is applied to: named in the hint when known
    if target.is_dir():
        workspace, target = str(target), target / POLICY_NAME
    if os.path.lexists(target):
        raise UsageError(f"{target} already exists: edit it, or name another file")
    trust.make_folders(target.parent)
    with output_stream(str(target)) as out:
        out.write(policy.TEMPLATE)
    trust.close_to_others(target)  # else apply-policy would refuse it (mlspace.trust)
    print(f"Wrote {target}. Check what it would do: mlspace apply-policy {workspace} "
          f"--policy {target} --dry-run")
    return EXIT_OK


def _policy_problem(err: Exception) -> str:
    from mlspace.act.policy import UntrustedPolicy

    return f"not using the policy: {err}" if isinstance(err, UntrustedPolicy) else \
        f"bad policy: {err}"


def _policy_file(args: argparse.Namespace) -> str:
    """The policy to apply: --policy, else the workspace's own, else the user's.

    Without --policy, a workspace's policy another user made (a shared, world-writable
    workspace) is no instruction of the user's: it is passed over with the reason and the
    user's own ``policy.toml`` is used, so a neighbour can neither steer nor stop the
    nightly run. A policy that is the user's but that others could have changed (loose
    permissions on it or a folder above it) stops the run instead: the user meant it to
    apply here, and falling back to another policy could remove what this one keeps."""
    from mlspace import trust
    from mlspace.config import config_dir

    if args.policy:
        return str(args.policy)
    for candidate in (Path(args.paths[0]) / POLICY_NAME, config_dir() / "policy.toml"):
        if not os.path.lexists(candidate):
            continue
        try:
            trust.check_file(candidate)
        except trust.Untrusted as err:
            if not err.foreign:
                raise UsageError(f"not using the policy: {err}") from None
            print(f"mlspace: passed over a policy: {err}", file=sys.stderr)
            continue
        except trust.Unreadable:
            pass  # policy.load() says what is wrong with it
        return str(candidate)
    raise UsageError(f"no policy: pass --policy FILE, or write one with `mlspace policy init "
                     f"{args.paths[0]}`")


def cmd_apply_policy(args: argparse.Namespace) -> int:
    from mlspace.act import lock, policy, policy_report

    require_folders(args.paths)
    policy_file = _policy_file(args)
    try:
        chosen_policy = policy.load(policy_file)
    except policy.PolicyError as err:
        print(f"mlspace: {_policy_problem(err)}", file=sys.stderr)
        return EXIT_USAGE
    if args.install_timer:  # only for a policy that reads: a broken one would fail nightly
        return _timer(args, policy_file)
    if args.report:
        try:
            policy_report.renderer_for(args.report)
        except ValueError as err:
            raise UsageError(str(err)) from None
    try:
        with lock.hold(args.paths, f"mlspace apply-policy {policy_file}", args.wait):
            return _apply(args, chosen_policy)
    except lock.Busy as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_UNREADABLE


def _tier_for(chosen_policy: Any, settings: Any, paths: list[str]) -> Any:
    """The cold tier the run archives to: the policy's archive_root, else config.toml's,
    checked as the Settings dialog checks it (a folder that is there, writable, outside
    the folders the policy works on)."""
    from mlspace.act import tier

    root = chosen_policy.archive_root or settings.archive_root
    if root is None:
        if chosen_policy.archives:
            line = next(r.line for r in chosen_policy.rules if r.action == "archive")
            raise UsageError(f"bad policy: {chosen_policy.path}:{line}: action = \"archive\" "
                             "needs archive_root (in the policy or in config.toml)")
        return None
    problem = tier.root_problem(root, [os.path.abspath(p) for p in paths])
    if problem is not None:
        where = chosen_policy.path if chosen_policy.archive_root else "config.toml"
        if chosen_policy.archives:
            raise UsageError(f"the archive folder of {where} cannot be used: {problem}; "
                             "nothing was moved")
        print(f"mlspace: the archive folder of {where} cannot be used ({problem}): this run "
              "archives nothing", file=sys.stderr)
        return None
    return tier.Tier(root, link=settings.archive_link)


def _apply(args: argparse.Namespace, chosen_policy: Any) -> int:
    from mlspace.act import JournalUnavailable, policy, policy_report, run, tier
    from mlspace.act.policy_runs import record_policy_run
    from mlspace.advise import advise
    from mlspace.advise.archive import ArchiveAges, with_archive_suggestions

    settings = user_settings()
    cold = _tier_for(chosen_policy, settings, args.paths)
    print_settled(args.paths)
    source, inventory = scan_and_classify(args)
    snapshot = getattr(source, "snapshot", source)
    roots = tuple(snapshot.roots)
    keeps = chosen_policy.advice_settings(inventory, roots)
    plan = advise(inventory, keeps)
    if cold is not None:
        ages = chosen_policy.archive_ages(ArchiveAges.from_settings(settings))
        plan = with_archive_suggestions(plan, inventory, keeps, ages)
    chosen = policy.select(plan, chosen_policy, time.time())
    print(f"Policy {chosen_policy.path}: {chosen.items} items, {fmt.size(chosen.bytes)} to "
          f"move; {len(chosen.held)} left for review; {len(chosen.capped)} past the cap.")
    result = None
    if chosen.work and not args.dry_run:
        if not confirm("Apply these?", args):
            print("Nothing was moved.")
            return EXIT_OK
        meter = CopyMeter()
        try:
            with meter.catching_ctrl_c():
                result = run(list(chosen.work), roots, cold, progress=meter,
                                  cancel=meter.cancel,
                                  title=f"Policy {os.path.basename(chosen_policy.path)}",
                                  meta={"policy": chosen_policy.path, "unattended": args.yes})
        except (tier.TierUnavailable, JournalUnavailable) as err:
            raise UsageError(str(err)) from None
        report_result(result, roots, settings.trash_days)
    elif args.dry_run:
        for s, action in chosen.work:
            for item in s.items:
                print(f"  would {action} {item.path} ({fmt.size(item.disk_usage)}) [{s.id}]")
        print("Dry run: nothing was moved.")
    for path, why in chosen.capped:
        print(f"  skipped {path}: {why}")
    if not args.dry_run:
        _expire(chosen_policy, settings, roots)
    skipped = bool(chosen.capped) or bool(result and result.skipped)
    code = EXIT_UNREADABLE if skipped and not args.dry_run else exit_code_for(snapshot)
    run = policy_report.summary(chosen_policy, roots, chosen, result, args.dry_run, code,
                                args.report)
    if not args.dry_run:
        record_policy_run(policy_report.brief(run))
    if args.report:
        with output_stream(args.report) as out:
            out.write(policy_report.renderer_for(args.report)(run))
        print(f"Report written to {args.report}")
    return code


def _expire(chosen_policy: Any, settings: Any, roots: tuple[str, ...]) -> None:
    """Every policy run applies the trash's retention to what mlspace moved from these
    folders: the policy's purge_after_days, else trash_days of config.toml."""
    from mlspace.act import purge

    days = chosen_policy.purge_after_days
    expired = purge.expire(settings.trash_days if days is None else days, roots)
    if expired.purged:
        print(f"Freed {fmt.size(max(expired.freed, 0))} from the trash: "
              f"{fmt.plural(len(expired.purged), 'item')} moved there more than "
              f"{settings.trash_days if days is None else days:g} days ago, deleted for good.")


def _timer(args: argparse.Namespace, policy_file: str) -> int:
    from mlspace.act import schedule
    from mlspace.cli.output import write_checked

    name = schedule.unit_name(args.paths)
    folder = schedule.systemd_user_dir()
    try:
        files = schedule.units(args.paths, policy_file, args.install_timer)
        cron = schedule.cron_line(args.paths, policy_file, args.install_timer)
    except schedule.CannotSchedule as err:
        raise UsageError(str(err)) from None
    folder.mkdir(parents=True, exist_ok=True)
    Path(schedule.report_path(args.paths)).parent.mkdir(parents=True, exist_ok=True)
    problem = write_checked(str(folder), files,
                            lambda staged, names: schedule.verify(Path(staged), names))
    if problem is not None:
        raise UsageError(f"the unit files do not verify, so none was written: {problem}")
    print(f"Wrote {', '.join(str(folder / f) for f in files)}")
    why = schedule.enable(name)
    if why is not None:
        print(f"Could not start the timer ({why}). Start it with:\n  systemctl --user "
              f"daemon-reload && systemctl --user enable --now {name}.timer\nor, without "
              f"systemd, add this line with `crontab -e`:\n  {cron}")
        return EXIT_UNREADABLE
    print(f"Timer {name}.timer runs {args.install_timer}; reports go to "
          f"{schedule.report_path(args.paths)}")
    return EXIT_OK
