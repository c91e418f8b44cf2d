"""Acting: carry out what the user confirmed (or a policy the user wrote allows), and undo it.

One executor (:mod:`.executor`) re-checks and journals every item and hands it to its
destination: the trash (:mod:`.to_trash`), the cold tier (:mod:`.tier`), or deletion of what
mlspace itself trashed (:mod:`.purge`). Undo (:mod:`.undoing`) inverts each journaled step.

The names load when first asked for (:mod:`mlspace.lazy`): reading what waits in the trash
(:mod:`.purge`, for the disk line) does not import the executor, and with it the advice and
the classifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlspace.lazy import module_getattr

if TYPE_CHECKING:
    from mlspace.act.executor import ARCHIVE, TRASH, execute, run
    from mlspace.act.journal import JournalUnavailable, history
    from mlspace.act.outcomes import CleanupResult, Outcome, RestoreOutcome
    from mlspace.act.trash import CAN_RESTORE, TrashUnavailable
    from mlspace.act.undoing import last_undoable, undo

_WHERE = {**dict.fromkeys(("ARCHIVE", "TRASH", "execute", "run"), "executor"),
          **dict.fromkeys(("JournalUnavailable", "history"), "journal"),
          **dict.fromkeys(("CleanupResult", "Outcome", "RestoreOutcome"), "outcomes"),
          **dict.fromkeys(("CAN_RESTORE", "TrashUnavailable"), "trash"),
          **dict.fromkeys(("last_undoable", "undo"), "undoing")}

__all__ = ["ARCHIVE", "CAN_RESTORE", "TRASH", "CleanupResult", "JournalUnavailable", "Outcome",
           "RestoreOutcome", "TrashUnavailable", "execute", "history", "last_undoable", "run",
           "undo"]

__getattr__ = module_getattr(__name__, _WHERE, globals())
