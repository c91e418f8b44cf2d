"""The state every view shares, and the one place every number on screen comes from.

The truth is two things: the scan (inventory and ages) and the paths the app moved to the
trash since, less those it put back. Everything the views show is derived from these two
here, under the size mode and the filter: folder sizes, file counts and times, categories,
chart bars, runs and their checkpoints, artifact sizes and the suggestions that still apply.
A view keeps no number of its own between signals: it asks this object whenever it paints
or rebuilds, so no view can show a stale copy, and all of them agree with a fresh scan.

Views never talk to each other; they listen to this object. Selecting a tile in the treemap
selects the row in the tree and fills the details panel because all three follow
``selection_changed`` here: one selection drives every view. A view whose redraw takes
milliseconds on a big scan queues it in ``redraws`` (mlspace.ui.redraws), so that a change
redraws one such view per turn of the event loop.

A few changes cannot be derived from the scan: a cleanup that wrote a file (a log archive),
an undo that puts back a path the scan never saw, and trashing what a series' records are
read from (its best or latest checkpoint, or a record beside them). ``mark_removed`` says
so, and the window then rescans, keeping the view (``load(..., keep_view=True)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from PySide6.QtCore import QObject, Signal

from mlspace.act.archived import ArchivedItem
from mlspace.advise import AdviceSettings, Plan, Suggestion, advise
from mlspace.ages import AgeTable
from mlspace.classify import Artifact, Category, Inventory
from mlspace.config import Settings
from mlspace.filtering import FilterResult, FilterSpec
from mlspace.index.growth import GrowthPoint, SizesThen
from mlspace.tables import refused, shown
from mlspace.tables.archived import archived_in, archived_total
from mlspace.tables.changes import change_of, changes_of
from mlspace.tables.lookup import artifact_holding, suggestions_about
from mlspace.tables.moved import Moved
from mlspace.tables.now import CategoryTables, DiskNow, disk_now
from mlspace.tables.plans import PlanNow
from mlspace.tables.queries import ViewQueries
from mlspace.tables.runs import (
    RunNow,
    SeriesNow,
    SeriesPaths,
    current_artifacts,
    records_gone,
    runs_now,
)
from mlspace.ui.redraws import Redraws


class Workspace(QObject, ViewQueries):
    inventory_changed = Signal()
    plan_changed = Signal()
    view_changed = Signal()  # size mode, filter or the disk: sizes and visibility changed
    selection_changed = Signal(int)  # an entry index, -1 for none
    focus_changed = Signal(int)  # the folder the treemap shows
    compare_changed = Signal()  # a saved scan to compare with was chosen, or none

    def __init__(self, parent: QObject | None = None) -> None:
        """``parent``: the window whose views follow this workspace (its views' queued
        redraws are dropped with it)."""
        super().__init__(parent)
        # ---- the truth
        self.inventory: Inventory | None = None
        self.ages: AgeTable | None = None
        self.moved: Moved | None = None  # what went to the trash since the scan
        # ---- what the user looks at
        self.apparent = False
        self.selected = -1
        self.focus = -1
        self.cleanup_off: dict[str, str] = {}  # scanned folders no cleanup may start in
        # (an opened saved scan's, see mlspace.ui.saved_scans), with why
        self.advice = AdviceSettings()
        self.full_plan: Plan | None = None  # the scan's cleanups, with archiving added
        self.user = Settings()  # config.toml's: the cold tier archive suggestions go to
        self._plans: PlanNow | None = None
        self.names_here = True  # owners are named as this machine names their uids
        self.compared: GrowthPoint | None = None  # the saved scan "change since" is since
        self._then: SizesThen | None = None  # its sizes, per entry of the scan shown
        # ---- derived from the above, in _derive() only
        self.now: DiskNow | None = None  # the scan less what went since (mlspace.tables)
        self.removed: np.ndarray = np.zeros(0, dtype=bool)  # per entry: in the trash now
        self.whole = _EMPTY  # no filter: what is on disk now
        self.filter = _EMPTY  # the user's filter over what is on disk now
        self.plan: Plan | None = None
        self._shown: CategoryTables | None = None  # the category tables under the filter
        self._artifact_at: dict[int, Artifact] = {}
        self._series_paths: SeriesPaths | None = None  # made at the first cleanup
        # ---- the views' redraws after a change, one per turn of the event loop
        self.redraws = Redraws(self)

    # ---------------------------------------------------------------- loading
    def load(self, inventory: Inventory, ages: AgeTable, plan: Plan | None = None,
             apparent: bool | None = None, keep_view: bool = False,
             cleanup_off: Mapping[str, str] | None = None, names_here: bool = True) -> None:
        """Show a new scan. ``plan`` is computed with it in the worker thread; without one
        (tests, imports) it is computed here. ``keep_view`` (a rescan of the same folders)
        keeps the filter, and the selection and the treemap's folder where they still
        exist; otherwise the view starts afresh. ``cleanup_off``: its scanned folders no
        cleanup may start in, with why (see cleanup_refused). ``names_here``: the scan's
        uids are this machine's (not a saved scan from elsewhere). A comparison with a
        saved scan ends: it was matched with the old scan's entries."""
        old = self.inventory
        keep = keep_view and old is not None
        selected = old.snapshot.path(self.selected) if keep and self.selected >= 0 else None
        focus = old.snapshot.path(self.focus) if keep and self.focus >= 0 else None
        spec = self.filter.spec if keep else FilterSpec()
        self.inventory = inventory
        self.ages = ages
        self.cleanup_off = dict(cleanup_off or {})
        self.names_here = names_here
        self.compared, self._then = None, None
        if apparent is not None:
            self.apparent = apparent
        self._artifact_at = {a.entry: a for a in inventory.artifacts}
        self._series_paths = None
        self.moved = Moved(inventory.snapshot)
        self.filter = _EMPTY
        self._derive(disk=True, spec=spec)
        self._plans = PlanNow(plan if plan is not None else advise(inventory, self.advice),
                              inventory, self.user, self.advice)
        self.full_plan = self._plans.full
        self.plan = self._plans.standing(self.moved.gone)
        snap = inventory.snapshot
        roots = snap.root_entries
        self.selected = snap.find(selected) if selected else -1
        self.focus = snap.find(focus) if focus else -1
        if self.focus < 0 or snap.row_of(self.focus) < 0:
            self.focus = roots[0] if len(roots) == 1 else -1
        # Every field holds the new scan's entries before any view hears of it, and the
        # views drop the old scan's (inventory_changed) before any other signal.
        self.inventory_changed.emit()
        self.plan_changed.emit()
        self.focus_changed.emit(self.focus)
        self.selection_changed.emit(self.selected)

    @property
    def loaded(self) -> bool:
        return self.inventory is not None

    def _derive(self, disk: bool = False, spec: FilterSpec | None = None) -> None:
        """Recompute what follows from the truth. ``disk``: the set of paths in the trash
        changed (or a new scan came); ``spec``: the filter changed."""
        inv, ages = self.inventory, self.ages
        assert inv is not None and ages is not None
        if disk or self.now is None:
            assert self.moved is not None
            self.now = disk_now(inv, ages, self.moved)
            self.whole, self.removed = self.now.whole, self.now.removed
        self.filter = shown.filtered(self.now, self.filter.spec if spec is None else spec)
        self._shown = None

    # ---------------------------------------------------------------- viewing
    def set_apparent(self, apparent: bool) -> None:
        if apparent != self.apparent:
            self.apparent = apparent
            self.view_changed.emit()

    def set_filter(self, spec: FilterSpec) -> None:
        if self.inventory is None or self.ages is None or spec == self.filter.spec:
            return
        self._derive(spec=spec)
        self.view_changed.emit()

    def toggle_category(self, category: Category) -> None:
        self.set_filter(self.filter.spec.toggled_category(category))

    def toggle_age(self, bucket: int, category: Category | None = None) -> None:
        self.set_filter(self.filter.spec.toggled_age(bucket, category))

    def toggle_owner(self, uid: int) -> None:
        self.set_filter(self.filter.spec.toggled_owner(uid))

    def select(self, entry: int) -> None:
        if entry != self.selected:
            self.selected = entry
            self.selection_changed.emit(entry)

    def set_focus(self, entry: int) -> None:
        if entry != self.focus:
            self.focus = entry
            self.focus_changed.emit(entry)

    # ---------------------------------------------------------------- cleanups
    def cleanup_refused(self, paths: Iterable[str]) -> str:
        """Why no cleanup may move these paths ('' when it may): one lies in a scanned
        folder of an opened saved scan that this machine cannot check it against. Every
        view that offers a cleanup shows this reason instead, and the window refuses."""
        return refused.cleanup_refused(self.cleanup_off, paths)

    @property
    def read_only_reason(self) -> str:
        """Why no cleanup at all may start from the scan shown ('' when some may): every
        scanned folder is off (the suggestions panel says so above its list)."""
        roots = self.inventory.snapshot.roots if self.inventory is not None else ()
        return refused.read_only_reason(self.cleanup_off, roots)

    def replan(self) -> None:
        """The scan's suggestions that still apply: one that names anything moved to the
        trash since, or a folder holding it (its sizes are no longer what was scanned), or
        that keeps something moved since (what it says stays no longer does), drops out,
        and comes back when that is undone (no re-advising)."""
        if self.moved is None or self._plans is None:
            return
        self.plan = self._plans.standing(self.moved.gone)
        self.plan_changed.emit()

    def set_user_settings(self, user: Settings) -> None:
        """The cold tier or its ages changed (the Settings dialog): the archive suggestions
        are made again from the scan's cleanups (no re-advising), or dropped."""
        self.user = user
        if self._plans is not None:
            self._plans.set_user(user)
            self.full_plan = self._plans.full
            self.replan()

    def mark_removed(self, paths: Iterable[str], removed: bool = True) -> bool:
        """Paths moved to the trash (or, with removed=False, put back): every view follows.
        Returns False when the scan cannot say what the disk holds now (a path it never
        saw came back, or what a series' records are read from went): rescan then."""
        if self.inventory is None or self.moved is None:
            return True
        snap = self.inventory.snapshot
        paths = list(paths)
        exact = self.moved.mark(paths, removed)
        self._derive(disk=True)
        selected, focus = self.selected, self.focus
        if selected >= 0 and self.removed[selected]:
            self.select(-1)
        while focus >= 0 and self.removed[focus]:
            focus = snap.parent(focus)
        self.set_focus(focus)
        self.view_changed.emit()
        self.replan()
        return exact and not (removed and self._records_gone(paths))

    def in_trash(self, path: str) -> bool:
        """Did the window see ``path`` go to the trash since the scan (and not come back)?"""
        return self.moved is not None and path in self.moved

    def _records_gone(self, paths: list[str]) -> bool:
        """Did a move take what a series' records are read from (mlspace.tables.runs)?"""
        assert self.inventory is not None
        if self._series_paths is None:
            self._series_paths = SeriesPaths(self.inventory)
        return records_gone(self.inventory, self._series_paths, paths, self._now())

    # ---------------------------------------------------------------- growth
    def set_compared(self, point: GrowthPoint | None, then: SizesThen | None = None) -> None:
        """Compare with a saved scan (``then``: its sizes matched with the scan shown, made
        in a worker), or stop comparing (None). A match made for another scan is refused."""
        if point is not None and (then is None or self.inventory is None
                                  or then.snapshot is not self.inventory.snapshot):
            return
        self.compared, self._then = point, then if point is not None else None
        self.compare_changed.emit()

    def change(self, entry: int) -> int | None:
        """How much an entry grew (negative: shrank) since the compared scan, in the size
        mode, of what is on disk now whatever the filter (as the On disk and Apparent
        columns): everything in it, when it was not there then. None when not comparing."""
        if self._then is None:
            return None
        return change_of(self._now(), self._then, entry, self.apparent)

    def changes(self, entries: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
        """change() of many entries at once, with their sizes now: (change, now), or None
        when not comparing (the treemap's growth colours for thousands of tiles)."""
        if self._then is None or self.inventory is None:
            return None
        return changes_of(self._now(), self._then, entries, self.apparent)

    def was_there(self, entry: int) -> bool:
        """Was the entry in the compared scan (False: it is new since, or not comparing)?"""
        return self._then is not None and bool(self._then.was_there[entry])

    # ---------------------------------------------------------------- artifacts and runs
    def artifact_at(self, entry: int) -> Artifact | None:
        """The innermost artifact containing ``entry`` (walking up its folders)."""
        assert self.inventory is not None
        return artifact_holding(self.inventory, self._artifact_at, entry)

    def artifact_totals(self, a: Artifact) -> tuple[int, int]:
        """(on disk, apparent) of an artifact now: what is left of its folder or files."""
        assert self.inventory is not None
        _, disk, apparent = current_artifacts(self.inventory, [a], self.removed, self.whole)
        return disk[0], apparent[0]

    def series_now(self, series_id: str) -> SeriesNow | None:
        """A series as it is now, None when none of its checkpoints is left."""
        return self._runs()[1].get(series_id)

    def runs(self) -> tuple[RunNow, ...]:
        """The runs a scan would find now: without those whose folder went, or whose only
        reason to be a run (their checkpoints) went."""
        return self._runs()[0]

    def _runs(self) -> tuple[tuple[RunNow, ...], dict[str, SeriesNow]]:
        return runs_now(self._now(), self._artifact_at)

    # ---------------------------------------------------------------- the cold tier
    def archived_at(self, entry: int) -> ArchivedItem | None:
        """The archived item an entry stands for (its link or stub), else None."""
        return archived_in(self._now()).get(entry) if self.inventory is not None else None

    def archived_total(self) -> int:
        """What the archived items whose links or stubs the scan holds took on this disk
        before they moved, in the size mode: the "archived" total beside the categories
        (not counted in them: the pointers are a few bytes each)."""
        if self.inventory is None:
            return 0
        return archived_total(self._now(), self.apparent)

    def frees(self, suggestion: Suggestion) -> int:
        """What a suggestion frees, in the size mode shown."""
        return suggestion.apparent_bytes if self.apparent else suggestion.bytes

    def suggestions_for(self, entry: int) -> list[Suggestion]:
        """Suggestions that name this entry, lie inside it, or are about its series or run."""
        if self.inventory is None or self.plan is None or entry < 0:
            return []
        return suggestions_about(self.inventory, self.plan, entry, self.artifact_at(entry))


_EMPTY = FilterResult(FilterSpec(), None, None, *(np.zeros(0, dtype=np.int64),) * 4)
