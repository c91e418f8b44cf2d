"""The guard as a systemd user service: always running, niced and at idle I/O priority, so
it costs the training runs it protects nothing they would notice; restarted if it dies.

The unit is composed here with the policy timer's quoting and checks
(:mod:`mlspace.act.schedule`: a folder name holding a newline is refused, ``%`` and ``$``
are escaped); the CLI writes it through its one checked writer, after
``systemd-analyze verify`` found nothing wrong, and starts it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence

from mlspace.act.schedule import plain, systemd_quote


def unit_name(paths: Sequence[str]) -> str:
    """One service per set of folders: installing again for the same folders replaces it."""
    key = "\0".join(sorted(os.path.abspath(p) for p in paths))
    return "mlspace-guard-" + hashlib.sha1(key.encode("utf-8", "surrogateescape")
                                           ).hexdigest()[:10]


def command(paths: Sequence[str], policy: str | None) -> list[str]:
    """The guard's command line (CannotSchedule for a name a unit cannot hold)."""
    argv = [sys.executable, "-m", "mlspace", "guard"]
    if policy:
        argv += ["--policy", os.path.abspath(policy)]
    return [plain(a) for a in argv + [os.path.abspath(p) for p in paths]]


def unit(paths: Sequence[str], policy: str | None) -> dict[str, str]:
    """{file name: content} of the guard's service for ``paths``."""
    shown = ", ".join(os.path.abspath(p) for p in paths).replace("%", "%%")
    text = (
        "[Unit]\n"
        f"Description=mlspace guard: warn before {shown} fills, free space as its policy "
        "allows\n\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={' '.join(systemd_quote(a) for a in command(paths, policy))}\n"
        "Nice=10\n"
        "IOSchedulingClass=idle\n"
        "Restart=on-failure\n"
        "RestartSec=30\n\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )
    return {f"{unit_name(paths)}.service": text}
