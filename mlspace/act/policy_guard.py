"""The ``[guard]`` section of a policy file: whether ``mlspace guard`` may free space on
this workspace by itself, and how much it keeps free.

Acting is opt-in: without ``act = true`` the guard only watches and warns. The section is
checked as strictly as the rest of the policy (a typo is an error with its line), because
an unattended guard that misread it would delete while nobody looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

#: Warn (and, where allowed, act) when the disk fills in less than this many hours.
WARN_HOURS = 2.0
#: Anything written this recently is never freed by the guard (the advice's window).
RECENT_MINUTES = 10.0


@dataclass(frozen=True)
class GuardSettings:
    act: bool = False  # may free space by itself (else: watch and warn only)
    keep_free: int | None = None  # bytes the guard frees up to when it acts
    warn_hours: float = WARN_HOURS
    recent_minutes: float = RECENT_MINUTES
    mail: str | None = None  # an address warnings also go to, through sendmail

    @property
    def recent_seconds(self) -> float:
        return self.recent_minutes * 60.0


class _Checks(Protocol):
    """What the policy reader offers to check one setting, naming its line."""

    def fail(self, section: str, key: str, message: str) -> Exception: ...
    def size(self, section: str, key: str, value: object) -> int | None: ...
    def days(self, section: str, key: str, value: object) -> float | None: ...


_KEYS = {"act", "keep_free", "warn_hours", "recent_minutes", "mail"}


def read_guard(reader: _Checks, data: object) -> GuardSettings | None:
    """The ``[guard]`` table, checked; None when the policy has none."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise reader.fail("", "guard", "[guard] must be a table")
    for key in data:
        if key not in _KEYS:
            raise reader.fail("guard", key, f"unknown guard setting {key!r}")
    act = data.get("act", False)
    if type(act) is not bool:
        raise reader.fail("guard", "act", "act must be true or false")
    keep_free = reader.size("guard", "keep_free", data.get("keep_free"))
    if act and keep_free is None:
        raise reader.fail("guard", "act", "act = true needs keep_free (e.g. \"50 GiB\"): "
                          "how much the guard frees up to")
    mail = data.get("mail")
    if mail is not None and (not isinstance(mail, str) or "@" not in mail or
                             any(c.isspace() or ord(c) < 32 for c in mail)):
        raise reader.fail("guard", "mail", "mail must be one e-mail address")
    # hours and minutes share the days check (a finite number, 0 or more)
    hours = reader.days("guard", "warn_hours", data.get("warn_hours", WARN_HOURS))
    recent = reader.days("guard", "recent_minutes", data.get("recent_minutes", RECENT_MINUTES))
    return GuardSettings(act, keep_free, WARN_HOURS if hours is None else hours,
                         RECENT_MINUTES if recent is None else recent, mail)
