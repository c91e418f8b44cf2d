"""The window's one gate of every cleanup, and what it says when one or its undo ends.

Whatever asks for a cleanup (the suggestions panel, a right-click menu, the cold tier's
entries) comes here: nothing starts while a scan or another job runs, in a folder no
cleanup may start in, or from a saved scan's plan not yet planned again from the disk;
what goes to the cold tier is handed to the archive helper; the rest is confirmed and run
in the cleanup worker. Its result, and an undo's, are told to the workspace (every view
follows) and to the journal follower, and said in the status line; the window's
``finish_job`` rescans where the scan cannot express them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

from mlspace.act.outcomes import CleanupResult
from mlspace.advise import KeptItem, Suggestion
from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.free_space import cleanup_words
from mlspace.ui.fresh_plan import Replanned
from mlspace.ui.journal_follow import named, own_run
from mlspace.ui.status_words import after_cleanup, after_undo

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts


class CleanupGate(QObject):
    """Owned by the window (its Qt parent); ``window`` is what it reaches of it."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)  # type: ignore[arg-type]
        self.window = window
        self._cleaning: list[Suggestion] = []  # what the running cleanup was asked to do
        self._stayed: tuple[KeptItem, ...] = ()  # what it left of a saved scan's plan
        window.cleaner.cleaned.connect(self._cleaned)
        window.cleaner.undone.connect(self._undone)

    def confirm_and_clean(self, suggestions: list[Suggestion], archive: bool = False,
                          replanned: Replanned | None = None) -> None:
        """``archive``: to the cold tier instead of the trash (archive suggestions always
        go there). A plan from an opened saved scan is planned again from the disk first
        (``replanned``: what that left, mlspace.ui.fresh_plan)."""
        window, ws = self.window, self.window.ws
        if ws.inventory is None:
            return
        if window.cleaner.running or window.read_again.running:
            window.status.setText("Wait for the running cleanup to finish (or cancel its "
                                  "copy).")
            return
        if window.scanner.running:
            window.status.setText("Wait for the scan to finish, then clean up.")
            return
        refused = ws.cleanup_refused(p for s in suggestions for p in s.paths)
        if refused:  # the menus and the panel say so already: this is the one gate
            window.status.setText(f"Nothing was moved: {refused}.")
            return
        if replanned is None and window.read_again.needed():
            window.read_again.start(suggestions, archive)
            return
        note = replanned.note() if replanned is not None else ""
        if archive or window.tiering.archives(suggestions):
            window.tiering.confirm_and_archive(suggestions, archive, note)
            return
        dialog = ConfirmCleanup(suggestions, ws.apparent, window, note=note)  # type: ignore[arg-type]
        window.last_dialog = dialog
        if dialog.exec() != ConfirmCleanup.DialogCode.Accepted:
            if replanned is not None:  # the status said the records were being read
                window.status.setText("Cancelled: nothing was moved.")
            return
        self._cleaning = list(suggestions)
        self._stayed = replanned.stays if replanned is not None else ()
        window.cleaner.clean(suggestions, list(ws.inventory.snapshot.roots),
                             free_now=dialog.free_now.isChecked())

    def undo_last(self) -> None:
        """Ctrl+Z: undo the run the Edit menu names, the newest the window has shown (a run
        made outside the window is shown first, mlspace.ui.journal_follow)."""
        window = self.window
        if window.scanner.running:
            window.status.setText("Wait for the scan to finish, then undo.")
            return
        if window.cleaner.running:
            window.status.setText("Wait for the running cleanup to finish, then undo.")
            return
        target = window.journal.undo_target()
        if target is None:
            window.status.setText("Nothing to undo.")
            return
        window.cleaner.undo(target.id)

    def _cleaned(self, result: object) -> None:
        """Every view follows from the workspace: tell it what went. A cleanup that wrote
        archives, or took what the classifier read, needs a rescan first."""
        assert isinstance(result, CleanupResult)
        window, ws = self.window, self.window.ws
        done = [o.path for o in result.outcomes if o.done]
        archived = {i.path for s in self._cleaning if s.archive for i in s.items}
        run = own_run(result, self._cleaning)
        self._cleaning = []
        window.journal.own(run)
        exact = ws.mark_removed(done)
        text, tip = after_cleanup(
            cleanup_words(result, run.size_of(run.out, ws.apparent), named(done)),
            result, self._stayed)
        self._stayed = ()
        if tip:
            window.status.setToolTip(tip)
        if result.stopped:
            QMessageBox.warning(window, "mlspace",  # type: ignore[call-overload]
                                f"The cleanup stopped early: {result.stopped}.\n\nWhat "
                                "moved can be put back with Ctrl+Z.")
        window.finish_job(text, rescan=not exact or bool(archived & set(done)))

    def _undone(self, cleanup_ids: str, results: object) -> None:
        """What came back, by name; what could not, with why on hover."""
        window = self.window
        text, tip, back, beside = after_undo(results)  # type: ignore[arg-type]
        window.journal.own_undo(cleanup_ids.split(", "), {*back, *beside})
        exact = window.ws.mark_removed(back, removed=False)
        window.status.setToolTip(tip)
        window.finish_job(text, rescan=not exact or bool(beside))
