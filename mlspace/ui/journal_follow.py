"""The window follows the journal: what Ctrl+Z undoes, and runs made outside the window.

The views show a scan plus what the window moved since. A cleanup made in a shell while
the window is open (`mlspace clean`, `mlspace undo`, a policy run from a timer) changes
the disk too, and is what Ctrl+Z would undo next. So the window keeps the journal as its
views show it (``shown``): read when a scan starts (the scan saw the disk after those
runs), then updated by the window's own runs and by every run noticed outside it.

Each new reading of the journal (mlspace.ui.journal_watch) is compared with ``shown``;
what moved outside the window is shown before anything can undo it: the views drop what
went and take back what came back (or the window rescans, keeping the view, where the scan
cannot say it: an archive run's links, a packed log folder, a path the scan never saw),
and the status line names what happened. Ctrl+Z undoes the newest run of ``shown`` — the
one the Edit menu names — never one the window has not shown.

While a scan or a job of the window runs, readings wait: the scan's own start is the
reference afterwards, and a job's own run is taken as the window shows it, once a reading
made after it ended confirms it.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from mlspace import fmt
from mlspace.act.journal import run_title
from mlspace.act.outcomes import DELETED, CleanupResult
from mlspace.advise import Suggestion
from mlspace.paths import within
from mlspace.ui.journal_watch import Change, Journal, JournalWatcher, Run, changes, newest_undoable

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts

#: How many names a message gives before "and N more" (the tooltip has them all).
NAMED = 3
#: A run made outside the window is shown once it ended, or once its journal stood still
#: this long (a run that was killed): the window follows a policy run of a hundred items
#: in one step, not in a rescan a second.
SETTLED_MS = 3000


def named(paths: list[str] | set[str] | frozenset[str], most: int = NAMED) -> str:
    """The paths as a person reads them in a line: their names ("checkpoint-1000,
    checkpoint-2000 and 4 more"), or their paths below the folder they share where two
    names are alike."""
    paths = sorted(paths)
    if not paths:
        return ""
    names = [os.path.basename(p.rstrip("/")) or p for p in paths]
    if len(set(names)) < len(names):
        common = os.path.commonpath(paths)
        names = [os.path.relpath(p, common) if p != common else p for p in paths]
    more = len(names) - most
    shown = ", ".join(names[:most])
    return f"{shown} and {more} more" if more > 0 else shown


def own_run(result: CleanupResult, suggestions: list[Suggestion], kind: str = "clean"
            ) -> Run:
    """A run of the window as its journal will read: what it moved is out of place, what
    it deleted for good (``clean --free-now``) is gone."""
    deleted = frozenset(o.path for o in result.done if o.went == DELETED)
    out = frozenset(o.path for o in result.done) - deleted
    sizes = {i.path: (i.disk_usage, i.apparent_size) for s in suggestions for i in s.items}
    return Run(result.cleanup_id, time.time(), run_title([s.title for s in suggestions]),
               kind, "", (), out, bool(out),
               any(s.archive for s in suggestions if out & set(s.paths)), sizes,
               purged=deleted)


class JournalFollower(QObject):
    """Owned by the window (see the module)."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.ws = window.ws
        self.shown: dict[str, Run] = {}  # the journal as the views show it
        self._confirm: dict[str, int] = {}  # the window's own runs: id -> request whose
        # answer (or a later one) is their state from then on
        self._floor = 0  # readings answering an earlier request predate the scan shown
        self._waiting: tuple[int, Journal] | None = None  # the newest reading not shown
        self._unknown = False  # the journal could not be read when the scan shown began
        self._running: dict[str, Run] = {}  # runs outside still moving, as last read
        self.watcher = JournalWatcher(self)
        self.watcher.read.connect(self._read)
        # A reading that waited for a job or a scan is shown once it ended, whichever way
        # (after the window has shown the job's own result: the next turn).
        for ended in (window.cleaner.idle, window.scanner.failed, window.scanner.refused):
            ended.connect(self._show_waiting_later)

    def start(self) -> None:
        self.watcher.start()

    def stop(self) -> None:
        self.watcher.stop()

    # ------------------------------------------------------------------ what Ctrl+Z undoes
    def undo_target(self) -> Run | None:
        return newest_undoable(self.shown)

    def _name_the_undo(self) -> None:
        """The Edit menu says what Ctrl+Z puts back, and offers nothing when nothing is."""
        action, target = self.window.undo_action, self.undo_target()
        if target is None:
            action.setText("&Undo last cleanup")
            action.setToolTip("Nothing to undo")
            action.setEnabled(False)
            return
        count = f" ({fmt.plural(len(target.out), 'item')})" if target.out else ""
        action.setText(f"&Undo {target.title.replace('&', '&&')}{count}")
        action.setToolTip(f"Put back {named(target.out, 10) or 'what it moved'}")
        action.setEnabled(True)

    # ------------------------------------------------------------------ the window's news
    def scan_shown(self, journal: Journal | None) -> None:
        """A scan is shown; ``journal`` was read as it began: it is the reference now,
        and a reading made since tells what happened during and after the scan. None (it
        could not be read then): the next reading is taken as the reference."""
        self._unknown = journal is None
        self.shown = dict(journal or {})
        self._confirm.clear()
        self._running.clear()
        self._waiting = None
        self._floor = self.watcher.ask()
        self._name_the_undo()

    def own(self, run: Run) -> None:
        """A run of the window, as the window shows it now."""
        self.shown[run.id] = run
        self._confirm[run.id] = self.watcher.ask()
        self._name_the_undo()
        self._show_waiting_later()

    def own_undo(self, ids: list[str], put_back: set[str]) -> None:
        """An undo of the window put ``put_back`` back (of the runs ``ids``)."""
        ask = self.watcher.ask()
        for cleanup_id in ids:
            was = self.shown.get(cleanup_id)
            if was is not None:
                out = was.out - put_back
                self.shown[cleanup_id] = replace(was, out=out, undoable=bool(out))
            self._confirm[cleanup_id] = ask
        self._name_the_undo()
        self._show_waiting_later()

    def resume(self) -> None:
        """A job of the window ended without a result to show: read again."""
        self.watcher.ask()

    # ------------------------------------------------------------------ readings
    def _read(self, answered: int, journal: object) -> None:
        if answered < self._floor:
            return  # read before the scan shown began
        assert isinstance(journal, dict)
        self._waiting = (answered, journal)
        self._show_waiting()

    def _show_waiting_later(self) -> None:
        """After the window has shown its own job's result (which may start a rescan)."""
        QTimer.singleShot(0, self._show_waiting)

    def _busy(self) -> bool:
        window = self.window
        return window.scanner.running or window.cleaner.running or not self.ws.loaded

    def _show_waiting(self) -> None:
        if self._waiting is None or self._busy():
            return
        answered, journal = self._waiting
        self._waiting = None
        now = dict(journal)
        for cleanup_id, asked in list(self._confirm.items()):
            if answered >= asked:  # read after the window's own run ended: the truth
                del self._confirm[cleanup_id]
            elif cleanup_id in self.shown:  # read while it ran: the window knows better
                now[cleanup_id] = self.shown[cleanup_id]
            else:
                now.pop(cleanup_id, None)
        self._hold_running(now)
        news = [] if self._unknown else changes(self.shown, now)
        self._unknown = False
        self.shown = now
        self._name_the_undo()
        if news:
            self._show(news)

    def _hold_running(self, now: dict[str, Run]) -> None:
        """A run outside that is still moving items is shown once it ended or stood still
        for SETTLED_MS (then it was killed): until then ``now`` keeps it as shown."""
        settling = False
        for cleanup_id, run in list(now.items()):
            if not run.running or self.shown.get(cleanup_id) == run:
                self._running.pop(cleanup_id, None)
                continue
            if self._running.get(cleanup_id) == run:  # unchanged since the last reading
                del self._running[cleanup_id]
                continue
            self._running[cleanup_id] = run
            settling = True
            if cleanup_id in self.shown:
                now[cleanup_id] = self.shown[cleanup_id]
            else:
                del now[cleanup_id]
        if settling:
            QTimer.singleShot(SETTLED_MS, self.watcher.ask)

    def _show(self, news: list[Change]) -> None:
        """Runs made outside the window: the views follow, and the status line says so."""
        ws, inv = self.ws, self.ws.inventory
        assert inv is not None
        snap, roots = inv.snapshot, set(inv.snapshot.roots)
        gone = [p for c in news for p in c.gone
                if within(p, roots) and snap.find(p) >= 0 and not ws.in_trash(p)]
        back = [p for c in news for p in c.back if within(p, roots)]
        unseen = [p for p in back if not ws.in_trash(p) and snap.find(p) < 0]
        rescan = bool(unseen) or any(c.run.linked or c.run.packed or c.run.kind == "bring-back"
                                     for c in news if within_any(c, roots))
        exact = True
        if gone:
            exact = ws.mark_removed(gone) and exact
        returned = [p for p in back if ws.in_trash(p)]
        if returned:
            exact = ws.mark_removed(returned, removed=False) and exact
        message = self._tell(news, roots)
        self.window.status.setToolTip("\n".join(
            f"{'back' if p in c.back else 'moved'}: {p}" for c in news
            for p in sorted(c.gone | c.back)))
        self.window.finish_job(message, rescan=rescan or not exact)

    def _tell(self, news: list[Change], roots: set[str]) -> str:
        """One sentence per run: who, what went or came back, by name."""
        apparent = self.ws.apparent
        said = []
        for c in news:
            where = "" if within_any(c, roots) else \
                f" in {', '.join(c.run.roots)} (not among the folders shown)"
            parts = []
            for how, paths in (("moved {} to the trash", c.gone - c.run.linked),
                               ("archived {}", c.gone & c.run.linked)):
                if paths:
                    what = f"{fmt.plural(len(paths), 'item')} " \
                        f"({fmt.size(c.run.size_of(paths, apparent))})"
                    parts.append(f"{how.format(what)}: {named(paths)}")
            if c.back:
                parts.append(f"put back {fmt.plural(len(c.back), 'item')}: {named(c.back)}")
            if c.freed:
                parts.append(f"deleted {fmt.plural(len(c.freed), 'item')} of it from the "
                             f"trash for good: {named(c.freed)}")
            who = c.run.made_by if c.gone else f"an undo of {c.run.made_by}" if c.back \
                else f"a purge of {c.run.made_by}"
            said.append(f"Outside this window, {who}{where} {' and '.join(parts)}.")
        target = self.undo_target()
        if target is not None and any(c.run.id == target.id for c in news):
            said.append("Ctrl+Z puts them back.")
        return " ".join(said)


def within_any(change: Change, roots: set[str]) -> bool:
    """Does the run touch the folders shown?"""
    return any(within(p, roots) for p in change.gone | change.back | change.freed)
