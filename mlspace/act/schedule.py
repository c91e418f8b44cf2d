"""Running a policy by itself: a systemd user timer, or a cron line where there is none.

This module only composes the unit files and the cron line (the CLI writes them, through
its one file writer): a oneshot service that runs ``apply-policy --yes`` with a report,
niced and at idle I/O priority so the machine stays usable, and a persistent timer (a run
missed while the machine was off happens at the next boot) with a random delay so that a
cluster's nodes do not all start at midnight. The service waits up to an hour for another
run on the same tree (the lock of :mod:`mlspace.act.lock`) rather than failing. The guard's
service (mlspace.guard.service) is made by the same service builder.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from mlspace.config import data_dir

EVERY = {"daily": ("daily", "0 3 * * *"), "weekly": ("weekly", "0 3 * * 0")}
WAIT_SECONDS = 3600


def hashed_name(kind: str, paths: Sequence[str]) -> str:
    """``mlspace-<kind>-`` and a hash of the folders: one unit of a kind per set of folders,
    so installing again for the same folders replaces it."""
    key = "\0".join(sorted(os.path.abspath(p) for p in paths))
    return f"mlspace-{kind}-" + hashlib.sha1(key.encode("utf-8", "surrogateescape")
                                             ).hexdigest()[:10]


def unit_name(paths: Sequence[str]) -> str:
    """One timer per set of folders: installing again for the same folders replaces it."""
    return hashed_name("policy", paths)


def systemd_user_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "systemd" / "user"


def report_path(paths: Sequence[str]) -> str:
    return str(data_dir() / "reports" / f"{unit_name(paths)}.html")


class CannotSchedule(ValueError):
    """A folder or file name a unit file or a cron line cannot hold safely."""


def plain(arg: str) -> str:
    """``arg``, refused when it holds a control character: a newline in a folder name would
    end the ExecStart= line (or the cron entry) and start a line of its own."""
    if any(ord(c) < 32 or ord(c) == 127 for c in arg):
        raise CannotSchedule(f"{arg!r} holds a control character (a newline?), which a timer "
                             "or cron line cannot hold safely: rename it, or run "
                             "apply-policy from a script of your own")
    return arg


def mlspace_argv(args: Sequence[str], paths: Sequence[str], policy: str | None) -> list[str]:
    """``python -m mlspace ARGS [--policy POLICY] PATHS...`` with absolute paths, as an
    argument list (CannotSchedule for a name it cannot hold)."""
    argv = [sys.executable, "-m", "mlspace", *args]
    if policy:
        argv += ["--policy", os.path.abspath(policy)]
    return [plain(a) for a in argv + [os.path.abspath(p) for p in paths]]


def command(paths: Sequence[str], policy: str | None) -> list[str]:
    """The unattended run, as an argument list (CannotSchedule for a name it cannot
    hold)."""
    return mlspace_argv(["apply-policy", "--yes", "--report", report_path(paths),
                         "--wait", str(WAIT_SECONDS)], paths, policy)


def systemd_quote(arg: str) -> str:
    """One ExecStart argument: double-quoted, with systemd's specifiers and variables
    escaped (a folder named "100%" or "$HOME" stays itself)."""
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("%", "%%").replace("$", "$$") + '"'


def shown_folders(paths: Sequence[str]) -> str:
    """The folders as a unit's Description names them (``%`` escaped: a specifier)."""
    return ", ".join(os.path.abspath(p) for p in paths).replace("%", "%%")


def service_unit(description: str, kind: str, argv: Sequence[str], rest: str) -> str:
    """A user service of systemd's ``Type=kind`` running ``argv``, niced and at idle I/O
    priority so the machine stays usable; ``rest``: its further lines (how it ends, how it
    is installed)."""
    return (
        "[Unit]\n"
        f"Description={description}\n\n"
        "[Service]\n"
        f"Type={kind}\n"
        f"ExecStart={' '.join(systemd_quote(a) for a in argv)}\n"
        "Nice=10\n"
        "IOSchedulingClass=idle\n"
        + rest
    )


def units(paths: Sequence[str], policy: str | None, every: str) -> dict[str, str]:
    """{file name: content} of the service and timer for ``paths``."""
    calendar, _ = EVERY[every]
    name = unit_name(paths)
    shown = shown_folders(paths)
    service = service_unit(
        f"mlspace policy run on {shown}", "oneshot", command(paths, policy),
        # exit 1 = some items were skipped (listed in the report): not a failed unit
        "SuccessExitStatus=1\n")
    timer = (
        "[Unit]\n"
        f"Description=Run the mlspace policy on {shown} {every}\n\n"
        "[Timer]\n"
        f"OnCalendar={calendar}\n"
        "Persistent=true\n"
        "RandomizedDelaySec=30min\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {f"{name}.service": service, f"{name}.timer": timer}


def cron_line(paths: Sequence[str], policy: str | None, every: str) -> str:
    """The same run as a crontab line (``crontab -e``), for machines without systemd."""
    _, when = EVERY[every]
    line = " ".join(shlex.quote(a) for a in command(paths, policy))
    return f"{when} {line.replace('%', chr(92) + '%')}"


def verify(folder: Path, names: Sequence[str]) -> str | None:
    """What ``systemd-analyze verify`` finds wrong with the unit files, or None (also when
    it is not installed)."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        return None
    done = subprocess.run([tool, "verify", *(str(folder / n) for n in names)],
                          capture_output=True, text=True, check=False)
    return (done.stderr.strip() or "systemd-analyze verify failed") if done.returncode else None


def enable(name: str, unit: str = "timer") -> str | None:
    """Reload the user's systemd and start the timer (or the ``unit`` kind named, e.g. the
    guard's service); why not, or None."""
    tool = shutil.which("systemctl")
    if tool is None:
        return "systemctl is not installed"
    for argv in ([tool, "--user", "daemon-reload"],
                 [tool, "--user", "enable", "--now", f"{name}.{unit}"]):
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode:
            return done.stderr.strip() or f"{' '.join(argv[1:])} failed"
    return None
