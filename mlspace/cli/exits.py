"""How a command ends: its exit code, and the usage error that is printed as one line
instead of a traceback.

Exit codes: 0 ok (also `undo` with nothing to undo: a state, not a mistake), 1 finished
but some paths could not be read (results still printed), 2 bad usage or a missing root,
70 an internal error (a bug: a systemd unit and a script must see a failure, not the 1 of
a run that skipped some items), 130 interrupted.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from mlspace import fmt

if TYPE_CHECKING:
    from mlspace.scan import Snapshot

EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_INTERNAL = 70  # EX_SOFTWARE: mlspace itself failed
#: How many unreadable paths a command names on stderr (`scan --format json` has them all).
UNREADABLE_SHOWN = 5


class UsageError(Exception):
    """A problem with what the user typed; printed as one line, exit code 2."""


def exit_code_for(snapshot: Snapshot) -> int:
    """1 when some paths could not be read: the results were printed but leave them out,
    and a script should know that; a person is told so on stderr, with the first few."""
    if not snapshot.errors:
        return EXIT_OK
    count = len(snapshot.errors)
    print(f"mlspace: {fmt.plural(count, 'path')} could not be read, so the results leave "
          f"{'it' if count == 1 else 'them'} out:", file=sys.stderr)
    for error in snapshot.errors[:UNREADABLE_SHOWN]:
        print(f"  {error.path}: {error.message}", file=sys.stderr)
    if count > UNREADABLE_SHOWN:
        print(f"  … and {count - UNREADABLE_SHOWN} more (`mlspace scan PATH --format json` "
              "lists them all)", file=sys.stderr)
    return EXIT_UNREADABLE
