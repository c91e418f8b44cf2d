"""Acting: execute a plan the user confirmed (re-check, journal, trash) and undo it."""

from mlspace.act.cleanup import (
    CleanupResult,
    Outcome,
    RestoreOutcome,
    execute,
    history,
    last_undoable,
    undo,
)
from mlspace.act.journal import JournalUnavailable
from mlspace.act.trash import CAN_RESTORE, TrashUnavailable

__all__ = ["CAN_RESTORE", "CleanupResult", "JournalUnavailable", "Outcome", "RestoreOutcome",
           "TrashUnavailable",
           "execute", "history", "last_undoable", "undo"]
