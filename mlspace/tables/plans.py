"""The suggestions the app shows: the scan's cleanups, with the archive suggestions the
user's cold tier adds, less those that no longer stand after what moved since."""

from __future__ import annotations

from collections.abc import Mapping

from mlspace.advise import AdviceSettings, Plan
from mlspace.advise.archive import with_user_archive
from mlspace.advise.standing import StandingIndex
from mlspace.classify import Inventory
from mlspace.config import Settings


class PlanNow:
    """``advised``: the scan's cleanups (advised once, in the scan's worker); ``full``: with
    the user's archive suggestions, made again when the settings change (no re-advising)."""

    def __init__(self, advised: Plan, inventory: Inventory, user: Settings,
                 advice: AdviceSettings) -> None:
        self.advised, self.inventory, self.advice = advised, inventory, advice
        self.set_user(user)

    def set_user(self, user: Settings) -> None:
        """The cold tier or its ages changed: the archive suggestions follow."""
        self.full = with_user_archive(self.advised, self.inventory, user, self.advice)
        self._standing = StandingIndex(self.full)

    def standing(self, gone: Mapping[str, int]) -> Plan:
        """The suggestions that still apply with ``gone`` (path -> entry) in the trash: one
        that names anything moved since, or a folder holding it, or that keeps something
        moved since, drops out, and comes back when that is undone."""
        return self._standing.standing(gone)
