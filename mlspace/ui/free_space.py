"""Giving the disk its space back from the window: *Free … now…* in the status bar (and in
*Cleanup history…*) deletes for good what mlspace moved to the trash, after one question
that says it cannot be undone; the trash's retention runs when the app starts. The words
after each are what ``statvfs`` measured, never what was meant to go."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox, QPushButton

from mlspace import fmt
from mlspace.act.journal import CleanupRecord
from mlspace.act.outcomes import DELETED, TO_TRASH, CleanupResult
from mlspace.act.purge import PurgeItem, PurgeResult, in_trash

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts


def cleanup_words(result: CleanupResult, moved: int, names: str) -> str:
    """A cleanup's line in the status bar: what went to the trash (``moved``: its size in
    the mode the window shows; ``names``: what they are) is still on this disk, and how to
    get it back or free it; what was deleted, and what the disk got back."""
    parts = []
    trashed = [o for o in result.done if o.went == TO_TRASH]
    if trashed:
        them = "it" if len(trashed) == 1 else "them"
        parts.append(f"Moved {fmt.plural(len(trashed), 'item')} ({fmt.size(moved)}) to the "
                     f"trash, still on this disk: {names}. Ctrl+Z puts {them} back, Free "
                     f"now… deletes {them} for good.")
    deleted = [o for o in result.done if o.went == DELETED]
    if result.freed is not None:
        parts.append(f"Freed {fmt.size(max(result.freed, 0))} on this disk"
                     + (f" ({fmt.plural(len(deleted), 'item')} deleted for good: {names})."
                        if deleted else "."))
    return " ".join(parts) or "Nothing was moved."


class FreeSpaceActions:
    def __init__(self, window: WindowParts) -> None:
        self.window = window
        self.button = QPushButton("Free now…")
        self.button.setToolTip("Delete for good what mlspace moved to the trash on the disks "
                               "shown: the disk gets the space back; this cannot be undone")
        self.button.clicked.connect(lambda: self.confirm_and_free(window.disk_bar.freeable))
        self.button.hide()
        self._expiring = False
        self._announce = False  # a purge ended: say so once the disk line shows it
        window.cleaner.freed.connect(self._on_freed)
        window.disk_bar.measured.connect(self._offer)

    def start(self, trash_days: float) -> None:
        """At start-up: the status bar exists; apply the trash's retention in the
        background (what mlspace moved there more than ``trash_days`` ago)."""
        self.window.statusBar().addPermanentWidget(self.button)
        self.button.hide()  # adding it showed it: it shows once there is something to free
        if trash_days:
            self._expiring = True
            self.window.cleaner.expire(trash_days)

    def _offer(self) -> None:
        """Show *Free … now…* while mlspace has items in the trash on the disks shown."""
        waiting = self.window.disk_bar.in_mlspace_trash
        self.button.setVisible(bool(waiting))
        self.button.setText(f"Free {fmt.size(waiting)} now…")
        if self._announce:
            self._announce = False
            self.window.freed_finished.emit()

    def free_cleanup(self, record: CleanupRecord) -> None:
        """*Free now…* of one cleanup in the history."""
        self.confirm_and_free(in_trash([record]))

    def confirm_and_free(self, items: Sequence[PurgeItem]) -> None:
        window = self.window
        if not items:
            window.status.setText("Nothing of mlspace's waits in the trash here.")
            return
        if window.cleaner.running:
            window.status.setText("Wait for the running cleanup to finish, then free the "
                                  "space.")
            return
        total = sum(i.disk_usage for i in items)
        cleanups = len({i.cleanup_id for i in items})
        box = QMessageBox(QMessageBox.Icon.Warning, "Free the space now?",
                          f"Delete {fmt.plural(len(items), 'item')} ({fmt.size(total)}) that "
                          f"mlspace moved to the trash in {fmt.plural(cleanups, 'cleanup')}, "
                          "for good?", parent=window)
        box.setInformativeText("The disk gets the space back at once. This cannot be undone: "
                               "Ctrl+Z will no longer put these items back. Each is checked "
                               "first: what changed in the trash, or was put back, stays.")
        box.setDetailedText("\n".join(f"{fmt.size(i.disk_usage):>10}  {i.path}"
                                      for i in items))
        delete = box.addButton(f"Delete {fmt.size(total)} for good",
                               QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.last_question = box
        box.exec()
        if box.clickedButton() is not delete:
            return
        window.status.setText(f"Freeing {fmt.size(total)}…")
        window.cleaner.purge(list(items))

    def _on_freed(self, result: object) -> None:
        assert isinstance(result, PurgeResult)
        window = self.window
        expiring, self._expiring = self._expiring, False
        if result.purged:
            text = (f"Freed {fmt.size(max(result.freed, 0))}: the disk has that much more "
                    f"free space ({fmt.plural(len(result.purged), 'item')} "
                    f"{'past the trash retention ' if expiring else ''}deleted for good).")
        elif expiring:
            return  # nothing was old enough: nothing to say at start-up
        else:
            text = "Nothing was freed."
        if result.left:
            text += f" {len(result.left)} left alone (hover for why)."
            window.status.setToolTip("\n".join(f"{i.path}: {why}" for i, why in result.left))
        window.status.setText(text)
        if getattr(window, "history_dialog", None) is not None:
            window.history_dialog.fill()
        self._announce = True
        window.disk_bar.refresh()
