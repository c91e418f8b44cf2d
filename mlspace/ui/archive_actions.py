"""The cold tier in the window: the Settings dialog, archiving (a suggestion of its own, or
any cleanup "instead of trash"), *Bring back from archive* on right-click, the copy's
progress in the status bar, and the notice of policy runs made while the app was closed.

The window keeps one gate for every cleanup (``confirm_and_clean``); what goes to the tier
is handed here, confirmed with where it goes and what is left behind, and run in the
cleanup worker. Every copy runs there, so the window stays usable meanwhile; the views
follow the disk by rescanning when one ends (links now stand where items were).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings
from PySide6.QtWidgets import QMenu, QMessageBox

from mlspace import fmt
from mlspace.act import pointer
from mlspace.act.executor import ARCHIVE
from mlspace.act.outcomes import CleanupResult, RestoreOutcome
from mlspace.act.tier import Tier, TierUnavailable
from mlspace.advise import Suggestion
from mlspace.advise.archive import ARCHIVE_POLICIES
from mlspace.config import ConfigError, load_settings
from mlspace.disks import same_disk_as
from mlspace.paths import within
from mlspace.scan.walker import KIND_SYMLINK
from mlspace.ui.cleanup_dialogs import ConfirmCleanup, actions_for
from mlspace.ui.copy_progress import CopyProgress
from mlspace.ui.disk_question import DiskQuestion
from mlspace.ui.journal_follow import own_run
from mlspace.ui.policy_notice import PolicyRunsBanner

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts


def _tier_problem(tier: Tier) -> str | None:
    """Why nothing can go to the tier now, or None (asked in a DiskQuestion's thread)."""
    try:
        tier.check()
    except TierUnavailable as err:
        return str(err)
    return None


class ArchiveActions(QObject):
    """Owned by the window; it reaches the window's status line, its one cleanup gate and
    its ending of every job (``finish_job``: the message, and a rescan when needed)."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.ws = window.ws
        self.cleaner = window.cleaner
        self.config_problem = ""  # why config.toml could not be read ('' when it could)
        self.banner = PolicyRunsBanner()
        self.banner.undo_requested.connect(self._undo_runs)
        self.banner.history_requested.connect(window.show_history)
        self.progress = CopyProgress(self.cleaner)
        self.cleaner.archived.connect(self._archived)
        self.cleaner.brought_back.connect(self._brought_back)
        self._archiving: list[tuple[Suggestion, str]] = []  # the running archive run
        self.tier_question = DiskQuestion(self)

    def start(self, store: QSettings) -> None:
        """At start-up (the status bar exists): read config.toml, and say what policies did
        while the app was closed."""
        self.window.statusBar().addPermanentWidget(self.progress)
        try:
            self.ws.set_user_settings(load_settings())
        except ConfigError as err:
            self.config_problem = str(err)
        self.window.scan_finished.connect(self._say_config_problem)
        self._say_config_problem()
        self.banner.show_runs_since_last_start(store)

    def _say_config_problem(self) -> None:
        """A broken config.toml is said, never ignored: archiving is off until it is fixed
        (after every scan too, whose totals replace the status line)."""
        if self.config_problem:
            said = (f"Archiving is off until the settings are fixed (Edit → Settings…): "
                    f"{self.config_problem}")
            self.window.status.setText(" · ".join(filter(None, [self.window.status.text(),
                                                               said])))

    # ------------------------------------------------------------------ settings
    def show_settings(self) -> None:
        from mlspace.ui.settings_dialog import SettingsDialog

        roots = self.ws.inventory.snapshot.roots if self.ws.inventory is not None else []
        dialog = SettingsDialog(self.ws.user, roots, self.config_problem, self.window)
        dialog.saved.connect(self._saved)
        self.window.settings_dialog = dialog
        dialog.open()

    def _saved(self, settings: object) -> None:
        """A new tier, or new ages: the suggestions follow at once."""
        self.config_problem = ""
        self.ws.set_user_settings(settings)  # type: ignore[arg-type]
        root = self.ws.user.archive_root
        count = sum(s.policy in ARCHIVE_POLICIES for s in self.ws.plan.suggestions) \
            if self.ws.plan else 0
        roots = self.ws.inventory.snapshot.roots if self.ws.inventory else ()
        if not root:
            text = "Settings saved. No cold tier: cleanups go to the trash only."
        elif same := same_disk_as(root, roots):
            text = (f"Settings saved. Cold tier: {root}, on the same disk as {same}: no "
                    "archive suggestions, as archiving there would free nothing.")
        else:
            text = f"Settings saved. Cold tier: {root}; {fmt.plural(count, 'archive suggestion')}."
        self.window.status.setText(text)

    def tier(self) -> Tier | None:
        user = self.ws.user
        return Tier(user.archive_root, link=user.archive_link) if user.archive_root else None

    # ------------------------------------------------------------------ archiving
    @staticmethod
    def archives(suggestions: list[Suggestion]) -> bool:
        """Do any of these go to the cold tier whatever is asked (archive suggestions)?"""
        return any(s.policy in ARCHIVE_POLICIES for s in suggestions)

    def confirm_and_archive(self, suggestions: list[Suggestion], instead: bool,
                            note: str = "") -> None:
        """Archive the suggestions (the others, unless ``instead``, go to the trash in the
        same run), once the user saw where they go and what is left at their paths. The
        tier is checked off the GUI thread first: a network mount that hangs must not
        freeze the window (after PATIENCE seconds the user is told, and nothing moves)."""
        tier = self.tier()
        if tier is None:
            self.window.status.setText("Nothing was moved: no cold tier is set (Edit → "
                                       "Settings…).")
            return
        self.window.status.setText(f"Checking the cold tier at {tier.root}…")
        self.tier_question.ask(lambda: _tier_problem(tier),
                               lambda problem: self._confirm(suggestions, instead, tier,
                                                             problem, note),
                               lambda: self._tier_silent(tier))

    def _tier_silent(self, tier: Tier) -> None:
        self.tier_question.forget()
        self.window.status.setText(f"Nothing was moved: the cold tier at {tier.root} does not "
                                   f"answer (waited {self.tier_question.patience:.0f} s; a "
                                   "network disk not responding?).")

    def _confirm(self, suggestions: list[Suggestion], instead: bool, tier: Tier,
                 problem: object, note: str = "") -> None:
        if problem:
            self.window.status.setText(f"Nothing was moved: {problem}.")
            return
        dialog = ConfirmCleanup(suggestions, self.ws.apparent, self.window, tier, instead,
                                note)
        self.window.last_dialog = dialog
        if dialog.exec() != ConfirmCleanup.DialogCode.Accepted:
            return
        work = actions_for(suggestions, instead)
        self._archiving = work
        self.window.status.setText(f"Archiving to {tier.root}…")
        self.cleaner.archive(work, list(self.ws.inventory.snapshot.roots), tier)  # type: ignore[union-attr]

    def _archived(self, result: CleanupResult) -> None:
        actions = {i.path: action for s, action in self._archiving for i in s.items}
        done = [o for o in result.outcomes if o.done]
        archived = [o for o in done if actions.get(o.path) == ARCHIVE]
        run = own_run(result, [s for s, _ in self._archiving], kind="tier")
        self._archiving = []
        self.window.journal.own(run)
        link = "stubs" if self.ws.user.archive_link == "stub" else "links"
        if not done:
            text = "Nothing was archived or moved."
        else:
            text = (f"Archived {fmt.plural(len(archived), 'item')} to "
                    f"{self.ws.user.archive_root} ({link} left in their place)")
            if result.freed is not None:
                text += f": freed {fmt.size(max(result.freed, 0))} on this disk"
            if len(done) > len(archived):
                trashed = run.out - {o.path for o in archived}
                text += (f"; moved {len(trashed)} to the trash "
                         f"({fmt.size(run.size_of(trashed, self.ws.apparent))}, still on "
                         "this disk)")
            text += ". Ctrl+Z brings them back."
        if result.skipped:
            text += f" {len(result.skipped)} not moved (hover for why)."
            self.window.status.setToolTip("\n".join(f"{o.path}: {o.reason}"
                                                    for o in result.skipped))
        if result.stopped.startswith("cancelled"):
            text += " Cancelled: the item being copied was rolled back, its original untouched."
        elif result.stopped:
            QMessageBox.warning(self.window, "mlspace", f"The archive run stopped early: "
                                f"{result.stopped}.\n\nWhat moved can be put back with Ctrl+Z.")
        self.ws.mark_removed([o.path for o in done])
        self.window.finish_job(text, rescan=bool(done))  # links or stubs stand there now

    # ------------------------------------------------------------------ bringing back
    def pointer_at(self, entry: int) -> tuple[str, int | None] | None:
        """(where the archived copy is, its size) when the entry is a link or stub standing
        for an archived item; None otherwise. An archive run's journal says so; a pointer it
        does not know (the journal was removed) counts when it leads into the cold tier."""
        archived = self.ws.archived_at(entry)
        if archived is not None:
            size = archived.apparent_size if self.ws.apparent else archived.disk_usage
            return archived.dest, size
        snap = self.ws.inventory.snapshot  # type: ignore[union-attr]
        path, root = snap.path(entry), self.ws.user.archive_root
        if not root or not (int(snap.kind[entry]) == KIND_SYMLINK
                            or path.endswith(pointer.STUB_SUFFIX)):
            return None
        dest = pointer.target(path)
        return (dest, None) if dest and within(dest, {root}) and dest != root else None

    def bring_back(self, entry: int) -> None:
        window = self.window
        if self.cleaner.running or window.scanner.running:
            window.status.setText("Wait for the running job to finish, then bring it back.")
            return
        path = self.ws.inventory.snapshot.path(entry)  # type: ignore[union-attr]
        window.status.setText(f"Bringing back {os.path.basename(path)}…")
        self.cleaner.bring_back(path, self.ws.user.archive_root)

    def _brought_back(self, path: str, outcome: RestoreOutcome) -> None:
        name = os.path.basename(pointer.original_of(path))
        if outcome.restored_to is None:
            self.window.finish_job(f"{name} was not brought back: {outcome.reason}", rescan=False)
            return
        left = f" ({outcome.reason})" if outcome.reason else ""  # an archived copy kept
        self.window.finish_job(f"Brought back {name} from the cold tier{left}.",
                            rescan=True)  # the link is a folder or file again

    # ------------------------------------------------------------------ the right-click menu
    def add_to_menu(self, menu: QMenu, entry: int, refused: str) -> None:
        """*Bring back from archive* on a link or stub; with a cold tier, *Move to the cold
        tier…* and every cleanup that applies, to be archived instead of trashed."""
        found = self.pointer_at(entry)
        if found is not None:
            dest, size = found
            back = menu.addAction("Bring back from archive" +
                                  (f" ({fmt.size(size)})" if size is not None else ""))
            back.setToolTip(f"Copy {dest} back, verify it, put it in place of the link, then "
                            "remove the archived copy")
            back.setEnabled(not refused)
            back.triggered.connect(lambda: self.bring_back(entry))
        if not self.ws.user.archive_root or found is not None:
            return
        move = menu.addAction("Move to the cold tier…")
        move.setToolTip(f"Copy it to {self.ws.user.archive_root}, verify it, and leave a "
                        f"{self.ws.user.archive_link} in its place")
        folder = self.ws.inventory.snapshot.row_of(entry) >= 0  # type: ignore[union-attr]
        move.setEnabled(not refused and not (folder and self.ws.filter.spec.narrows))
        move.triggered.connect(lambda: self.window.menus.trash_selected(archive=True))
        cleanups = [s for s in self.ws.suggestions_for(entry)
                    if s.policy not in ARCHIVE_POLICIES]
        if cleanups:
            instead = menu.addMenu("Archive instead of trash")
            for s in cleanups:
                act = instead.addAction(f"{s.title} — frees {fmt.size(self.ws.frees(s))}")
                act.setEnabled(not self.ws.cleanup_refused(s.paths))
                act.triggered.connect(
                    lambda _=False, s=s: self.window.confirm_and_clean([s], True))

    def _undo_runs(self, ids: list[str]) -> None:
        if self.cleaner.running or self.window.scanner.running:
            self.window.status.setText("Wait for the running job to finish, then undo (Edit "
                                       "→ Cleanup history…).")
            return
        self.cleaner.undo_runs(ids)
