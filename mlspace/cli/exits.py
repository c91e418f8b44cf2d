"""How a command ends: its exit code, and the usage error that is printed as one line
instead of a traceback.

Exit codes: 0 ok, 1 finished but some paths could not be read (results still printed),
2 bad usage or a missing root, 130 interrupted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlspace.scan import Snapshot

EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A problem with what the user typed; printed as one line, exit code 2."""


def exit_code_for(snapshot: Snapshot) -> int:
    """1 when some paths could not be read: the results were printed but leave them out,
    and a script should know that."""
    return EXIT_UNREADABLE if snapshot.errors else EXIT_OK
