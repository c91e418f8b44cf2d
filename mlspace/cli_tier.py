"""The CLI's cold-tier and unattended commands: ``archive``, ``bring-back``, ``policy`` and
``apply-policy``. :func:`add_commands` adds them to ``mlspace``'s parser and returns their
handlers; each handler takes the parsed arguments and returns the exit code.

Long copies show bytes, rate and time left on a terminal; Ctrl-C cancels the item being
copied (it is rolled back, its original untouched) and stops the run; a second Ctrl-C
interrupts at once (the journal lets ``mlspace undo`` or a re-run settle it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mlspace import fmt
from mlspace.cli import (
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    UsageError,
    _add_advice_arguments,
    _add_scan_arguments,
    _per_series_keeps,
    _plan_from_args,
    exit_code_for,
    output_stream,
    scan_and_classify,
)

Handler = Callable[[argparse.Namespace], int]
POLICY_NAME = "mlspace-policy.toml"


def add_commands(subparsers: Any) -> dict[str, Handler]:
    """Add the commands to ``subparsers`` (from ``parser.add_subparsers``)."""
    archive = subparsers.add_parser(
        "archive", help="move suggestions to the cold tier (a link is left in their place)")
    _add_scan_arguments(archive)
    _add_advice_arguments(archive)
    archive.add_argument("--apply", nargs="+", required=True, metavar="ID",
                         help="ids from `mlspace plan` (archive suggestions, or any other to "
                         "archive instead of trash)")
    archive.add_argument("--to", metavar="DIR", help="the archive folder (default: "
                         "archive_root in config.toml)")
    archive.add_argument("--link", choices=("symlink", "stub"),
                         help="what to leave at each path (default: archive_link, symlink)")
    _add_run_arguments(archive)

    back = subparsers.add_parser(
        "bring-back", help="copy archived items back in place of their link or stub")
    back.add_argument("paths", nargs="+", metavar="PATH", help="an archived item's link or "
                      "its NAME.mlspace-archived.json stub")

    pol = subparsers.add_parser("policy", help="write or check a policy for apply-policy")
    pol.add_argument("action", choices=("init", "check", "runs"),
                     help="init: write a commented example; check: validate one; runs: list "
                     "past unattended runs")
    pol.add_argument("path", nargs="?", metavar="PATH", help=f"init: a workspace folder "
                     f"(writes {POLICY_NAME} in it) or a .toml file (default: the config "
                     "folder); check: the policy file")

    apply = subparsers.add_parser(
        "apply-policy", help="plan and apply what a policy allows (for timers and cron)")
    _add_scan_arguments(apply)
    apply.add_argument("--policy", metavar="FILE", help=f"the policy (default: {POLICY_NAME} "
                       "in the first PATH, else policy.toml in the config folder)")
    apply.add_argument("--report", metavar="FILE", help="write what ran (.html or .json)")
    apply.add_argument("--install-timer", choices=("daily", "weekly"),
                       help="install a systemd user timer that runs this unattended")
    _add_run_arguments(apply)
    return {"archive": cmd_archive, "bring-back": cmd_bring_back, "policy": cmd_policy,
            "apply-policy": cmd_apply_policy}


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--dry-run", action="store_true", help="show what would move, move "
                        "nothing")
    parser.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                        help="if another mlspace run works on these folders, wait this long")


# ------------------------------------------------------------------------------ helpers
class _Meter:
    """Bytes, rate and time left on stderr (a terminal only); Ctrl-C asks to cancel."""

    def __init__(self) -> None:
        self.show = sys.stderr.isatty()
        self.started = time.monotonic()
        self.cancelled = False

    def __call__(self, done: int, total: int, path: str) -> None:
        if not self.show or not path:
            return
        rate = done / max(time.monotonic() - self.started, 1e-3)
        left = f", {fmt.duration((total - done) / rate)} left" if rate and total > done else ""
        name = path if len(path) < 50 else "…" + path[-49:]
        of = f" of {fmt.size(total)}" if total else ""
        sys.stderr.write(f"\r\033[K{fmt.size(done)}{of}, {fmt.size(rate)}/s{left}  {name}")
        sys.stderr.flush()

    def cancel(self) -> bool:
        return self.cancelled

    @contextlib.contextmanager
    def catching_ctrl_c(self) -> Iterator[None]:
        def first(signum: int, frame: object) -> None:
            self.cancelled = True
            sys.stderr.write("\nmlspace: cancelling: the item being copied is rolled back "
                             "(Ctrl-C again to stop at once)\n")
            signal.signal(signal.SIGINT, signal.default_int_handler)

        previous = signal.signal(signal.SIGINT, first)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
            if self.show:
                sys.stderr.write("\r\033[K")


def _settings() -> Any:
    from mlspace.config import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as err:
        raise UsageError(str(err)) from None


def _require_folders(paths: Sequence[str]) -> None:
    for path in paths:
        if not os.path.isdir(path):
            raise UsageError(f"{path} is not a folder: name the folders to act on (a saved "
                             "scan cannot be acted on)")


def _confirm(question: str, args: argparse.Namespace) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("not a terminal: pass --yes to confirm, or --dry-run")
    return input(f"\n{question} [y/N] ").strip().lower() in ("y", "yes")


def _print_settled(roots: Sequence[str]) -> None:
    from mlspace.act.tier_undo import settle_interrupted

    for r in settle_interrupted([os.path.abspath(p) for p in roots]):
        print(f"  interrupted earlier: {r.path}: {r.reason}")


def _report_result(result: Any, verb: str) -> None:
    done = len(result.outcomes) - len(result.skipped)
    print(f"\n{verb}: {fmt.size(result.freed)} ({done} items). Cleanup id: {result.cleanup_id} "
          f"(undo with: mlspace undo {result.cleanup_id})")
    for outcome in result.skipped:
        print(f"  skipped {outcome.path}: {outcome.reason}")
    if result.stopped:
        print(f"mlspace: stopped early: {result.stopped}", file=sys.stderr)


# ------------------------------------------------------------------------------ archive
def cmd_archive(args: argparse.Namespace) -> int:
    from mlspace.act import JournalUnavailable, lock, tier
    from mlspace.act.tier_advice import ArchiveAges, with_archive_suggestions
    from mlspace.advise import AdviceSettings
    from mlspace.report.plan_text import plan_table

    _require_folders(args.paths)
    settings = _settings()
    root = os.path.abspath(args.to) if args.to else settings.archive_root
    if not root:
        raise UsageError("no archive folder: set archive_root in config.toml, or pass --to DIR")
    cold = tier.Tier(root, link=args.link or settings.archive_link)
    try:
        cold.check()
        with lock.hold(args.paths, "mlspace archive", args.wait):
            _print_settled(args.paths)
            snapshot, inventory, plan = _plan_from_args(args)
            keeps = AdviceSettings(keep_best=args.keep_best, keep_latest=args.keep_latest,
                                   keep_per_series=_per_series_keeps(args.keep_for, inventory))
            plan = with_archive_suggestions(plan, inventory, keeps,
                                            ArchiveAges.from_settings(settings))
            chosen = [plan.by_id(i) for i in args.apply]
            unknown = [i for i, s in zip(args.apply, chosen, strict=True) if s is None]
            if unknown:
                raise UsageError(f"no such suggestion now: {', '.join(unknown)} (the tree "
                                 "changed since it was planned; run `mlspace plan` again)")
            selected = [s for s in chosen if s is not None]
            print(plan_table(type(plan)(plan.roots, tuple(selected)), with_paths=True))
            print(f"\nTo: {cold.destination(os.sep)}…  (a {cold.link} is left at each path)")
            if args.dry_run:
                print("\nDry run: nothing was moved.")
                return EXIT_OK
            if not _confirm("Move these to the archive folder?", args):
                print("Nothing was moved.")
                return EXIT_OK
            meter = _Meter()
            with meter.catching_ctrl_c():
                result = tier.run([(s, tier.ARCHIVE) for s in selected], plan.roots, cold,
                                  progress=meter, cancel=meter.cancel)
    except (tier.TierUnavailable, JournalUnavailable) as err:
        raise UsageError(str(err)) from None
    except lock.Busy as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    _report_result(result, "Archived")
    return EXIT_UNREADABLE if result.skipped else exit_code_for(snapshot)


def cmd_bring_back(args: argparse.Namespace) -> int:
    from mlspace.act import JournalUnavailable
    from mlspace.act.bring_back import NotArchived, bring_back

    settings = _settings()
    failed = 0
    meter = _Meter()
    with meter.catching_ctrl_c():
        for path in args.paths:
            try:
                outcome = bring_back(path, settings.archive_root, meter, meter.cancel)
            except (NotArchived, JournalUnavailable) as err:
                print(f"  not brought back {path}: {err}")
                failed += 1
                continue
            if outcome.restored_to is None:
                print(f"  not brought back {path}: {outcome.reason}")
                failed += 1
            else:
                print(f"  brought back {outcome.restored_to}")
    return EXIT_UNREADABLE if failed else EXIT_OK


# ------------------------------------------------------------------------------- policy
def cmd_policy(args: argparse.Namespace) -> int:
    from mlspace.act import policy
    from mlspace.act.journal import policy_runs
    from mlspace.config import config_dir

    if args.action == "runs":
        for run in policy_runs():
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.get("time", 0)))
            print(f"{when}  exit {run.get('exit_code')}  {fmt.size(run.get('freed', 0)):>10}  "
                  f"{run.get('moved_items', 0)} moved, {run.get('skipped_items', 0)} skipped  "
                  f"{', '.join(run.get('roots', []))}  {run.get('cleanup_id') or ''}")
        return EXIT_OK
    if args.action == "check":
        if not args.path:
            raise UsageError("policy check takes the policy file")
        try:
            checked = policy.load(args.path)
        except policy.PolicyError as err:
            print(f"mlspace: bad policy: {err}", file=sys.stderr)
            return EXIT_USAGE
        print(f"{args.path}: {len(checked.rules)} rules, OK")
        return EXIT_OK
    target = Path(args.path) if args.path else config_dir() / "policy.toml"
    if target.is_dir():
        target = target / POLICY_NAME
    if os.path.lexists(target):
        raise UsageError(f"{target} already exists: edit it, or name another file")
    target.parent.mkdir(parents=True, exist_ok=True)
    with output_stream(str(target)) as out:
        out.write(policy.TEMPLATE)
    print(f"Wrote {target}. Check what it would do: mlspace apply-policy "
          f"{args.path or 'PATH'} --policy {target} --dry-run")
    return EXIT_OK


def _policy_file(args: argparse.Namespace) -> str:
    from mlspace.config import config_dir

    if args.policy:
        return str(args.policy)
    for candidate in (Path(args.paths[0]) / POLICY_NAME, config_dir() / "policy.toml"):
        if candidate.is_file():
            return str(candidate)
    raise UsageError(f"no policy: pass --policy FILE, or write one with `mlspace policy init "
                     f"{args.paths[0]}`")


def cmd_apply_policy(args: argparse.Namespace) -> int:
    from mlspace.act import lock, policy, policy_report

    _require_folders(args.paths)
    policy_file = _policy_file(args)
    if args.install_timer:
        return _timer(args, policy_file)
    try:
        chosen_policy = policy.load(policy_file)
    except policy.PolicyError as err:
        print(f"mlspace: bad policy: {err}", file=sys.stderr)
        return EXIT_USAGE
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


def _tier_for(chosen_policy: Any, settings: Any) -> Any:
    from mlspace.act import tier

    root = chosen_policy.archive_root or settings.archive_root
    if root is None:
        if chosen_policy.archives:
            line = next(r.line for r in chosen_policy.rules if r.action == "archive")
            raise UsageError(f"bad policy: {chosen_policy.path}:{line}: action = \"archive\" "
                             "needs archive_root (in the policy or in config.toml)")
        return None
    return tier.Tier(root, link=settings.archive_link)


def _apply(args: argparse.Namespace, chosen_policy: Any) -> int:
    from mlspace.act import JournalUnavailable, policy, policy_report, tier
    from mlspace.act.journal import record_policy_run
    from mlspace.act.tier_advice import ArchiveAges, with_archive_suggestions
    from mlspace.advise import advise

    settings = _settings()
    cold = _tier_for(chosen_policy, settings)
    _print_settled(args.paths)
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
        if not _confirm("Apply these?", args):
            print("Nothing was moved.")
            return EXIT_OK
        meter = _Meter()
        try:
            with meter.catching_ctrl_c():
                result = tier.run(list(chosen.work), roots, cold, progress=meter,
                                  cancel=meter.cancel,
                                  title=f"Policy {os.path.basename(chosen_policy.path)}",
                                  meta={"policy": chosen_policy.path, "unattended": args.yes})
        except (tier.TierUnavailable, JournalUnavailable) as err:
            raise UsageError(str(err)) from None
        _report_result(result, "Applied")
    elif args.dry_run:
        for s, action in chosen.work:
            for item in s.items:
                print(f"  would {action} {item.path} ({fmt.size(item.disk_usage)}) [{s.id}]")
        print("Dry run: nothing was moved.")
    for path, why in chosen.capped:
        print(f"  skipped {path}: {why}")
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


def _timer(args: argparse.Namespace, policy_file: str) -> int:
    from mlspace.act import schedule

    name = schedule.unit_name(args.paths)
    folder = schedule.systemd_user_dir()
    folder.mkdir(parents=True, exist_ok=True)
    Path(schedule.report_path(args.paths)).parent.mkdir(parents=True, exist_ok=True)
    files = schedule.units(args.paths, policy_file, args.install_timer)
    for file_name, text in files.items():
        with output_stream(str(folder / file_name)) as out:
            out.write(text)
    problem = schedule.verify(folder, list(files))
    if problem is not None:
        raise UsageError(f"the unit files in {folder} do not verify: {problem}")
    print(f"Wrote {', '.join(str(folder / f) for f in files)}")
    why = schedule.enable(name)
    if why is not None:
        print(f"Could not start the timer ({why}). Start it with:\n  systemctl --user "
              f"daemon-reload && systemctl --user enable --now {name}.timer\nor, without "
              f"systemd, add this line with `crontab -e`:\n  "
              f"{schedule.cron_line(args.paths, policy_file, args.install_timer)}")
        return EXIT_UNREADABLE
    print(f"Timer {name}.timer runs {args.install_timer}; reports go to "
          f"{schedule.report_path(args.paths)}")
    return EXIT_OK
