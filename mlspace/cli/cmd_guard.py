"""``mlspace guard``: watch the disks of some workspaces, warn before they fill, and free
space where their policy allows (``--once``: one round; ``status``: what the last round
found; ``--install``: a systemd user service that runs it)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from mlspace import fmt
from mlspace.cli.exits import EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, UsageError


def cmd_guard(args: argparse.Namespace) -> int:
    if args.paths == ["status"]:
        return _status()
    from mlspace.cli.cmd_archive import require_folders

    paths = [os.path.abspath(p) for p in args.paths]
    require_folders(paths)
    policies = _policies(args, paths)
    if policies is None:
        return EXIT_USAGE
    if args.install:
        return _install(paths, args.policy)
    return _rounds(paths, policies, once=args.once)


def _policies(args: argparse.Namespace, paths: list[str]) -> dict[str, Any] | None:
    """Each folder's policy (--policy, else its own, else the user's), or None for a
    folder with none (watched and warned about only); None for a broken policy."""
    from mlspace.act import policy
    from mlspace.cli.cmd_policy import _policy_file, _policy_problem

    out: dict[str, Any] = {}
    for path in paths:
        try:
            found = _policy_file(argparse.Namespace(policy=args.policy, paths=[path]))
        except UsageError as err:
            if args.policy or "no policy" not in str(err):
                raise
            out[path] = None
            continue
        try:
            out[path] = policy.load(found)
        except policy.PolicyError as err:
            print(f"mlspace: {_policy_problem(err)}", file=sys.stderr)
            return None
    return out


def _line(r: Any) -> str:
    """One disk's round: '/scratch — 97% full · 12.0 GiB free · fills in about 3 h (2 h–4 h)
    at the current rate · guard: watching'."""
    if r.fs is None:
        return f"{r.mount} — {r.line} · guard: {r.status}"
    return (f"{r.fs.mount} — {r.fs.percent_full:.0f}% full · {fmt.size(r.fs.available)} free "
            f"· {r.line} · guard: {r.status}")


def _rounds(paths: list[str], policies: dict[str, Any], once: bool) -> int:
    from mlspace.guard import state as saved
    from mlspace.guard.priority import lower_priority
    from mlspace.guard.rounds import guard_round

    lower_priority()
    state = saved.load()
    if state.problem:
        print(f"mlspace: guard state: {state.problem}", file=sys.stderr)
    for name, p in policies.items():
        allowed = p is not None and p.guard is not None and p.guard.act
        print(f"Guarding {name}: " + (f"may free space down to keep_free "
              f"{fmt.size(p.guard.keep_free)} ({p.path})" if allowed else
              "watching and warning only (no [guard] act = true in its policy)"))
    try:
        while True:
            found = guard_round(paths, policies, state)
            saved.save(state)
            for r in found:
                print(_line(r), flush=True)
                if r.freed is not None and not r.freed.nothing_safe:
                    print(f"  freed {fmt.size(max(r.freed.freed, 0))} (deleted for good); "
                          f"report: {r.freed.report}", flush=True)
                for channel in r.warned:
                    print(f"  warned ({channel})", flush=True)
            if once:
                return EXIT_OK
            time.sleep(min((r.next_round for r in found), default=60.0))
    except KeyboardInterrupt:
        return EXIT_OK


def _status() -> int:
    from mlspace.guard import state as saved
    from mlspace.guard.view import OFF, view_of

    state = saved.load()
    if state.problem:
        print(f"mlspace: guard state: {state.problem}", file=sys.stderr)
    if not state.disks:
        print("The guard has not run yet (mlspace guard --install PATH... starts it).")
        return EXIT_OK
    now = time.time()
    for mount, disk in sorted(state.disks.items()):
        last = disk.last
        status = view_of(mount, state, now).status
        if status == OFF and last.get("time"):
            status = f"off (last round {fmt.ago(now - float(last['time']))})"
        free = f" · {fmt.size(last['available'])} free" if "available" in last else ""
        acting = " · may free space" if last.get("acting") else " · warns only"
        print(f"{mount}{free} · {last.get('line', '')} · guard: {status}{acting}")
        if last.get("freed"):
            print(f"  freed {fmt.size(last['freed'])} this episode; report: "
                  f"{last.get('report')}")
    return EXIT_OK


def _install(paths: list[str], policy_file: str | None) -> int:
    from mlspace.act import schedule
    from mlspace.cli.output import write_checked
    from mlspace.guard import service

    try:
        files = service.unit(paths, policy_file)
    except schedule.CannotSchedule as err:
        raise UsageError(str(err)) from None
    folder = schedule.systemd_user_dir()
    folder.mkdir(parents=True, exist_ok=True)
    problem = write_checked(str(folder), files,
                            lambda staged, names: schedule.verify(Path(staged), names))
    if problem is not None:
        raise UsageError(f"the unit file does not verify, so none was written: {problem}")
    name = service.unit_name(paths)
    print(f"Wrote {', '.join(str(folder / f) for f in files)}")
    why = schedule.enable(name, "service")
    if why is not None:
        print(f"Could not start the guard ({why}). Start it with:\n  systemctl --user "
              f"daemon-reload && systemctl --user enable --now {name}.service")
        return EXIT_UNREADABLE
    print(f"The guard runs as {name}.service; `mlspace guard status` says what it sees.")
    return EXIT_OK
