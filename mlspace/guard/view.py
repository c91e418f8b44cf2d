"""What the guard last found on a disk, for the app's disk line and reports: its state
(watching, warned, acted, off) and the forecast in a few words ("fills in ~3 h at the
current rate"). Read from the guard's state file, never measured here: the guard may run
as a service while the app is closed, and the app only shows what it saw."""

from __future__ import annotations

import time
from dataclasses import dataclass

from mlspace.guard.forecast import about
from mlspace.guard.state import GuardState, load

OFF = "off"
#: A guard whose last round is this far past its next one is not running (seconds).
LATE = 120.0


@dataclass(frozen=True)
class GuardView:
    status: str  # watching, warned, acted, gone, or OFF
    forecast: str  # "fills in ~3 h at the current rate", or "" when there is none
    acting: bool  # the disk's policy lets the guard free space

    def words(self) -> str:
        return " · ".join(p for p in (self.forecast, f"guard: {self.status}") if p)


def view_of(mount: str, state: GuardState | None = None, now: float | None = None
            ) -> GuardView:
    """The guard's view of the disk mounted at ``mount``."""
    state = load() if state is None else state
    disk = state.disks.get(mount)
    if disk is None or not disk.last:
        return GuardView(OFF, "", False)
    last, now = disk.last, time.time() if now is None else now
    when = float(last.get("time", 0))
    running = now <= float(last.get("next_round", when)) + LATE
    full = last.get("full_in")
    forecast = f"fills in ~{about(full[0] - (now - when))} at the current rate" \
        if running and full and full[0] > now - when else \
        "not filling at the current rate" if running and last.get("available") else ""
    return GuardView(str(last.get("status", OFF)) if running else OFF, forecast,
                     bool(last.get("acting")))
