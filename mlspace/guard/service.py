"""The guard as a systemd user service: always running, niced and at idle I/O priority, so
it costs the training runs it protects nothing they would notice; restarted if it dies.

The unit is composed by the policy timer's builders (:mod:`mlspace.act.schedule`, whose
:func:`~mlspace.act.schedule.service_unit` makes both services: a folder name holding a
newline is refused, ``%`` and ``$`` are escaped); the CLI writes it through its one
checked writer, after ``systemd-analyze verify`` found nothing wrong, and starts it.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlspace.act.schedule import hashed_name, mlspace_argv, service_unit, shown_folders


def unit_name(paths: Sequence[str]) -> str:
    """One service per set of folders: installing again for the same folders replaces it."""
    return hashed_name("guard", paths)


def command(paths: Sequence[str], policy: str | None) -> list[str]:
    """The guard's command line (CannotSchedule for a name a unit cannot hold)."""
    return mlspace_argv(["guard"], paths, policy)


def unit(paths: Sequence[str], policy: str | None) -> dict[str, str]:
    """{file name: content} of the guard's service for ``paths``."""
    text = service_unit(
        f"mlspace guard: warn before {shown_folders(paths)} fills, free space as its policy "
        "allows", "simple", command(paths, policy),
        "Restart=on-failure\n"
        "RestartSec=30\n\n"
        "[Install]\n"
        "WantedBy=default.target\n")
    return {f"{unit_name(paths)}.service": text}
