"""Acting: carry out what the user confirmed (or a policy the user wrote allows), and undo it.

One executor (:mod:`.executor`) re-checks and journals every item and hands it to its
destination: the trash (:mod:`.to_trash`), the cold tier (:mod:`.tier`), or deletion of what
mlspace itself trashed (:mod:`.purge`). Undo (:mod:`.undo`) inverts each journaled step.
"""

from mlspace.act.executor import ARCHIVE, TRASH, execute, run
from mlspace.act.journal import JournalUnavailable
from mlspace.act.journal import history as history
from mlspace.act.outcomes import CleanupResult, Outcome, RestoreOutcome
from mlspace.act.trash import CAN_RESTORE, TrashUnavailable
from mlspace.act.undo import last_undoable, undo

__all__ = ["ARCHIVE", "CAN_RESTORE", "TRASH", "CleanupResult", "JournalUnavailable", "Outcome",
           "RestoreOutcome", "TrashUnavailable", "execute", "history", "last_undoable", "run",
           "undo"]
