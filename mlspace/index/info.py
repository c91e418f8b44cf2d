"""Who scanned what, when and how: the facts a saved scan carries beside its entries."""

from __future__ import annotations

import getpass
import os
import platform
import time
from dataclasses import dataclass, field

from mlspace import __version__
from mlspace.scan import ScanOptions


@dataclass(frozen=True)
class ScanInfo:
    host: str
    user: str
    started: float  # seconds since the epoch
    finished: float
    options: dict[str, object] = field(default_factory=dict)
    program: str = f"mlspace {__version__}"

    @classmethod
    def here(cls, started: float, finished: float | None = None,
             options: ScanOptions | None = None) -> ScanInfo:
        """A scan made on this machine, by this user, from ``started`` until ``finished``
        (now when not given)."""
        opts = {} if options is None else {"cross_filesystems": options.cross_filesystems,
                                           "exclude": list(options.exclude),
                                           "workers": options.workers}
        return cls(platform.node(), _user(), started,
                   time.time() if finished is None else finished, opts)

    def scan_options(self) -> ScanOptions:
        """How to scan the same folders again, here: with this scan's excludes and its
        choice about other filesystems, so the new scan covers what this one did. The
        number of workers is this machine's own."""
        exclude = self.options.get("exclude")
        return ScanOptions(cross_filesystems=self.options.get("cross_filesystems") is True,
                           exclude=tuple(str(p) for p in exclude)
                           if isinstance(exclude, list) else ())


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return str(os.getuid()) if hasattr(os, "getuid") else ""
