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

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Signal

from mlspace.act.archived import ArchivedItem, archived_items
from mlspace.advise import AdviceSettings, Plan, Suggestion, advise
from mlspace.advise.archive import with_user_archive
from mlspace.advise.standing import StandingIndex
from mlspace.ages import BUCKETS, AgeTable
from mlspace.classify import ORDER, Artifact, Category, CategoryTotals, Inventory
from mlspace.config import Settings
from mlspace.filtering import (
    FilterResult,
    FilterSpec,
    apply_filter,
    counted_links,
    removed_entries,
)
from mlspace.index.growth import GrowthPoint, SizesThen
from mlspace.owners import owner_name, owners_of, space_by_owner
from mlspace.paths import within
from mlspace.scan import Totals
from mlspace.scan.arrays import exact_bincount
from mlspace.scan.walker import KIND_DIR, KIND_SYMLINK
from mlspace.ui.redraws import Redraws
from mlspace.ui.runs_now import (
    RunNow,
    SeriesNow,
    SeriesPaths,
    current_artifacts,
    current_runs,
    current_series,
)


class Workspace(QObject):
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
        self._gone: dict[str, int] = {}  # paths in the trash now, moved there since the
        # scan, with their entries (-1: not in the scan)
        self._touched: dict[int, float] = {}  # folders a move changed: entry -> time now
        # ---- what the user looks at
        self.apparent = False
        self.selected = -1
        self.focus = -1
        self.cleanup_off: dict[str, str] = {}  # scanned folders no cleanup may start in
        # (an opened saved scan's, see mlspace.ui.saved_scans), with why
        self.advice = AdviceSettings()
        self.full_plan: Plan | None = None
        self.user = Settings()  # config.toml's: the cold tier archive suggestions go to
        self._advised: Plan | None = None  # the scan's cleanups, before archiving is added
        self.names_here = True  # owners are named as this machine names their uids
        self.compared: GrowthPoint | None = None  # the saved scan "change since" is since
        self._then: SizesThen | None = None  # its sizes, per entry of the scan shown
        # ---- derived from the above, in _derive() only
        self.removed: np.ndarray = np.zeros(0, dtype=bool)  # per entry: in the trash now
        self._removed_any = False  # removed.any(), asked for every cell painted
        self._counted: np.ndarray = np.zeros(0, dtype=bool)
        self.whole = _EMPTY  # no filter: what is on disk now
        self.filter = _EMPTY  # the user's filter over what is on disk now
        self.plan: Plan | None = None
        self._cache: dict[object, object] = {}
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
        self._gone = {}
        self._touched = {}
        self.filter = _EMPTY
        self._derive(disk=True, spec=spec)
        self._advised = plan if plan is not None else advise(inventory, self.advice)
        self._add_archiving()
        self.plan = self._plan_now()
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
        snap = inv.snapshot
        if disk:
            removed = removed_entries(snap, (e for e in self._gone.values() if e >= 0))
            self._counted = counted_links(snap, removed)
            self.removed = removed if removed is not None else np.zeros(len(snap), dtype=bool)
            self._removed_any = removed is not None
            self.whole = apply_filter(inv, ages, FilterSpec(), removed, self._counted)
        spec = self.filter.spec if spec is None else spec
        removed_or_none = self.removed if self._removed_any else None
        self.filter = (self.whole if spec == FilterSpec() else
                       apply_filter(inv, ages, spec, removed_or_none, self._counted))
        self._cache = {key: value for key, value in self._cache.items()
                       if not disk and isinstance(key, str) and key.startswith("disk:")}

    def _cached(self, key: str, make: object) -> object:
        """A derived table, made once per change of what it depends on: keys starting with
        "disk:" survive filter changes, the others are dropped with any change."""
        if key not in self._cache:
            self._cache[key] = make()  # type: ignore[operator]
        return self._cache[key]

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
        """Click a category: show only it; click it again: show all."""
        current = self.filter.spec.categories
        chosen = None if current == frozenset({category}) else frozenset({category})
        self.set_filter(replace(self.filter.spec, categories=chosen))

    def toggle_age(self, bucket: int, category: Category | None = None) -> None:
        spec = self.filter.spec
        if spec.bucket == bucket and (category is None or spec.categories == {category}):
            self.set_filter(replace(spec, bucket=None, categories=None))
        else:
            cats = frozenset({category}) if category is not None else spec.categories
            self.set_filter(replace(spec, bucket=bucket, categories=cats))

    def toggle_owner(self, uid: int) -> None:
        """Click an owner: show only what they own; click again: everyone's."""
        chosen = None if self.filter.spec.owners == frozenset({uid}) else frozenset({uid})
        self.set_filter(replace(self.filter.spec, owners=chosen))

    def clear_filter(self) -> None:
        self.set_filter(FilterSpec(min_size=0))

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
        for path in paths:
            for root, reason in self.cleanup_off.items():
                if within(path, {root}):
                    return reason
        return ""

    @property
    def read_only_reason(self) -> str:
        """Why no cleanup at all may start from the scan shown ('' when some may): every
        scanned folder is off (the suggestions panel says so above its list)."""
        roots = self.inventory.snapshot.roots if self.inventory is not None else ()
        reasons = [self.cleanup_off.get(root, "") for root in roots]
        return "; ".join(dict.fromkeys(reasons)) if reasons and all(reasons) else ""

    def replan(self) -> None:
        """The scan's suggestions that still apply: one that names anything moved to the
        trash since, or a folder holding it (its sizes are no longer what was scanned), or
        that keeps something moved since (what it says stays no longer does), drops out,
        and comes back when that is undone (no re-advising)."""
        if self.inventory is None or self.full_plan is None:
            return
        self.plan = self._plan_now()
        self.plan_changed.emit()

    def set_user_settings(self, user: Settings) -> None:
        """The cold tier or its ages changed (the Settings dialog): the archive suggestions
        are made again from the scan's cleanups (no re-advising), or dropped."""
        self.user = user
        if self.inventory is not None and self._advised is not None:
            self._add_archiving()
            self.replan()

    def _add_archiving(self) -> None:
        assert self.inventory is not None and self._advised is not None
        self.full_plan = with_user_archive(self._advised, self.inventory, self.user,
                                           self.advice)
        self._standing = StandingIndex(self.full_plan)

    def _plan_now(self) -> Plan | None:
        return self._standing.standing(self._gone) if self.full_plan is not None else None

    def mark_removed(self, paths: Iterable[str], removed: bool = True) -> bool:
        """Paths moved to the trash (or, with removed=False, put back): every view follows.
        Returns False when the scan cannot say what the disk holds now (a path it never
        saw came back, or what a series' records are read from went): rescan then."""
        if self.inventory is None:
            return True
        snap = self.inventory.snapshot
        paths = list(paths)
        exact = True
        for path in paths:
            if removed:
                self._gone[path] = snap.find(path)
            elif path in self._gone:
                del self._gone[path]
            else:
                exact = False  # back from an earlier scan's cleanup: this scan has no entry
        self._touch({os.path.dirname(p) for p in paths})
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
        return path in self._gone

    def _touch(self, folders: set[str]) -> None:
        """Moving an entry in or out of a folder changes the folder's own time: read it
        again (one lstat per folder), so "Modified" shows what a scan would."""
        snap = self.inventory.snapshot  # type: ignore[union-attr]
        for folder in folders:
            entry = snap.find(folder)
            if entry < 0:
                continue
            try:
                self._touched[entry] = os.lstat(folder).st_mtime
            except OSError:
                self._touched.pop(entry, None)

    def _records_gone(self, paths: list[str]) -> bool:
        """Did any of ``paths`` take what a series' best or latest is read from: that
        checkpoint itself, or a file beside the checkpoints (a pointer, a record)?"""
        inv = self.inventory
        assert inv is not None
        moved = set(paths)
        if self._series_paths is None:
            self._series_paths = SeriesPaths(inv)
        # A scan has thousands of series, a cleanup a few paths: only the series those
        # paths can concern are looked at.
        for s in self._series_paths.near(moved):
            named = {inv.artifact_by_id[i].path for i in (s.best, s.latest) if i}
            took_named = any(within(p, moved) for p in named)
            beside = [p for p in moved if os.path.dirname(p) == s.path]
            if not took_named and not beside:
                continue
            kept = [inv.artifact_by_id[m] for m in s.members]
            if not any(self._present(a) for a in kept):
                continue  # the whole series went: a scan finds no series there either
            members = {a.path for a in kept}
            if took_named or any(p not in members for p in beside):
                return True
        return False

    # ---------------------------------------------------------------- sizes and counts
    def size(self, entry: int) -> int:
        """What the row, tile or run shows: its size under the filter, in the size mode."""
        assert self.inventory is not None
        return self.filter.size(self.inventory, entry, self.apparent)

    def sizes(self, entries: Iterable[int]) -> np.ndarray:
        """``size`` of many entries in one pass (a list of runs, not one call a row)."""
        assert self.inventory is not None
        return self.filter.sizes(self.inventory, np.fromiter(entries, dtype=np.int64),
                                 self.apparent)

    def visible_children(self, folder: int) -> tuple[np.ndarray, np.ndarray]:
        """A folder's visible children and their sizes (-1: the scan roots), unsorted."""
        assert self.inventory is not None
        snap = self.inventory.snapshot
        kids = (np.asarray(snap.root_entries, dtype=np.int64) if folder < 0 else
                np.arange(snap.children(folder).start, snap.children(folder).stop,
                          dtype=np.int64))
        sizes = self.filter.sizes(self.inventory, kids, self.apparent)
        keep = self.filter.visible_mask(self.inventory, kids, self.apparent, sizes)
        return kids[keep], sizes[keep]

    def visible(self, entry: int) -> bool:
        assert self.inventory is not None
        return self.filter.visible(self.inventory, entry, self.apparent)

    def shown_files(self, entry: int) -> int | None:
        """Files a folder shows under the filter (None for a file)."""
        assert self.inventory is not None
        row = self.inventory.snapshot.row_of(entry)
        return int(self.filter.dir_files[row]) if row >= 0 else None

    def totals(self, entry: int) -> Totals:
        """An entry's totals as on disk now, whatever the filter: what is left of a folder,
        with its newest time (a folder a cleanup moved something out of is new)."""
        assert self.inventory is not None
        snap = self.inventory.snapshot
        if not self._removed_any and not self._touched:
            return snap.totals(entry)
        row = snap.row_of(entry)
        whole = self.whole
        if row >= 0:
            return Totals(int(whole.dir_disk[row]), int(whole.dir_apparent[row]),
                          int(whole.dir_files[row]), int(self._dirs()[row]),
                          float(self._newest()[row]))
        present = not self.removed[entry]
        counted = present and bool(self._counted[entry])
        is_dir = snap.is_dir(entry)
        return Totals(snap.disk_usage(entry) if counted else 0,
                      int(snap.apparent[entry]) if counted else 0,
                      int(present and not is_dir), int(present and is_dir),
                      float(self._mtimes()[entry]))

    def _mtimes(self) -> np.ndarray:
        def make() -> np.ndarray:
            snap = self.inventory.snapshot  # type: ignore[union-attr]
            if not self._touched:
                return snap.mtime
            mtime = snap.mtime.copy()
            mtime[list(self._touched)] = list(self._touched.values())
            return mtime
        return self._cached("disk:mtime", make)  # type: ignore[return-value]

    def _newest(self) -> np.ndarray:
        def make() -> np.ndarray:
            snap = self.inventory.snapshot  # type: ignore[union-attr]
            values = np.where(self.removed, -np.inf, self._mtimes())
            return snap.tree.subtree_max(values)
        return self._cached("disk:newest", make)  # type: ignore[return-value]

    def _dirs(self) -> np.ndarray:
        def make() -> np.ndarray:
            snap = self.inventory.snapshot  # type: ignore[union-attr]
            scratch = ((snap.kind == KIND_DIR) & ~self.removed).astype(np.int64)
            return snap.tree.subtree_sums(scratch)
        return self._cached("disk:dirs", make)  # type: ignore[return-value]

    # ---------------------------------------------------------------- categories
    def _categories_now(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per folder row x category: disk, apparent, files of what is on disk now."""
        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            inv = self.inventory
            assert inv is not None
            if not self._removed_any:
                return inv.dir_category_disk, inv.dir_category_apparent, inv.dir_category_files
            return inv.folder_category_totals(self.removed, self._counted)
        return self._cached("disk:categories", make)  # type: ignore[return-value]

    def _categories_shown(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The same over what the filter shows."""
        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            inv, matches = self.inventory, self.filter.matches
            assert inv is not None
            if not self.filter.spec.narrows or matches is None:
                return self._categories_now()
            return inv.folder_category_totals(~matches, self._counted)
        return self._cached("shown:categories", make)  # type: ignore[return-value]

    def category_breakdown(self, entry: int) -> dict[Category, CategoryTotals]:
        """Per category, what an entry holds on disk now, whatever the filter."""
        assert self.inventory is not None
        inv = self.inventory
        row = inv.snapshot.row_of(entry)
        if row < 0:
            out = {c: CategoryTotals(0, 0, 0) for c in Category}
            t = self.totals(entry)
            out[inv.category(entry)] = CategoryTotals(t.disk_usage, t.apparent_size, t.files)
            return out
        disk, apparent, files = self._categories_now()
        return {c: CategoryTotals(int(disk[row, c]), int(apparent[row, c]),
                                  int(files[row, c])) for c in Category}

    def category_of(self, entry: int) -> Category:
        """What an entry is: a file's own category, a folder's commonest by space on disk
        now. The filter does not change it (Details says what the selection *is*)."""
        return self._dominant(entry, self._categories_now())

    def dominant_category(self, entry: int) -> Category:
        """The category holding most of what a row or tile shows: under a filter, of what
        the filter shows of it (with one category chosen, that one)."""
        spec = self.filter.spec
        if spec.categories is not None and len(spec.categories) == 1 and \
                self.inventory is not None and self.inventory.snapshot.row_of(entry) >= 0:
            return next(iter(spec.categories))
        return self._dominant(entry, self._categories_shown())

    def dominant_categories(self, entries: list[int]) -> list[Category]:
        """dominant_category() of many entries at once (the treemap's thousands of tiles):
        one table lookup for all folders instead of one call each."""
        assert self.inventory is not None
        inv = self.inventory
        spec = self.filter.spec
        picked = next(iter(spec.categories)) if spec.categories is not None and \
            len(spec.categories) == 1 else None
        at = np.asarray(entries, dtype=np.int64)
        rows = inv.snapshot.rows_of(at)
        tables = self._categories_shown()
        table = (tables[1] if self.apparent else tables[0])
        folders = rows >= 0
        per_folder = table[rows[folders]]
        best = inv.categories[at].astype(np.int64)  # a file: its own category
        best[folders] = np.where(per_folder.sum(axis=1) > 0, per_folder.argmax(axis=1), -1)
        out = []
        for entry, is_folder, category in zip(entries, folders.tolist(), best.tolist(),
                                              strict=True):
            if is_folder and picked is not None:
                out.append(picked)
            elif category >= 0:
                out.append(_CATEGORY[category])
            else:  # a folder showing nothing: the one-entry rule says what
                out.append(self._dominant(entry, tables))
        return out

    def _dominant(self, entry: int, tables: tuple[np.ndarray, np.ndarray, np.ndarray]
                  ) -> Category:
        assert self.inventory is not None
        inv = self.inventory
        row = inv.snapshot.row_of(entry)
        if row < 0:
            return inv.category(entry)
        per_category = (tables[1] if self.apparent else tables[0])[row]
        if per_category.sum() == 0:
            if tables is not self._categories_now():
                return self.category_of(entry)
            return inv.category(entry)
        return Category(int(per_category.argmax()))

    def owner_label(self, uid: int) -> str:
        return owner_name(uid, self.names_here)

    @property
    def shared(self) -> bool:
        """Does the scan hold more than one owner's files (the owner chart shows then)?"""
        return self.inventory is not None and len(owners_of(self.inventory.snapshot).uids) > 1

    def chart_owners(self) -> list[tuple[int, int]]:
        """The owner chart's bars: (uid, space) of each owner of something on disk now,
        largest first, in the size mode, whatever the filter (as the category chart). The
        scan's table less what went since, summed over the entries that changed only."""
        def make() -> list[tuple[int, int]]:
            snap = self.inventory.snapshot  # type: ignore[union-attr]
            if not self._removed_any and self._counted is snap.counted:
                return space_by_owner(snap, self.apparent)
            return space_by_owner(snap, self.apparent, *self._counted_changes(), self.removed)
        return self._cached(f"disk:owners:{self.apparent}", make)  # type: ignore[return-value]

    def chart_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """(space per category, space per age bucket x category) for the charts, in the
        current size mode, of what is on disk now. The user's filter is not applied here:
        the charts are where filters are chosen."""
        per_cat, table, _ = self._charts()
        return per_cat, table

    def chart_categories(self) -> list[tuple[Category, int]]:
        """The category chart's bars: every category that holds files or space now."""
        per_cat, _, files = self._charts()
        return [(c, int(per_cat[c])) for c in ORDER if files[c] or per_cat[c]]

    def _charts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(space per category, space per age bucket x category, files per category) now:
        the scan's tables, less what went to the trash since and plus what counts in its
        place (a hard link's other path). Only the entries that changed are summed, so a
        cleanup of a few checkpoints in a million files costs microseconds, not a pass."""
        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            inv = self.inventory
            assert inv is not None
            snap = inv.snapshot
            scanned = self._scanned_charts()
            if not self._removed_any and self._counted is snap.counted:
                return scanned
            added, taken = self._counted_changes()
            files_gone = np.flatnonzero(self.removed & (snap.kind != KIND_DIR))
            plus = self._chart_sums(added, np.zeros(0, dtype=np.int64))
            minus = self._chart_sums(taken, files_gone)
            return tuple(a + b - c for a, b, c in zip(scanned, plus, minus, strict=True))  # type: ignore[return-value]
        return self._cached(f"disk:charts:{self.apparent}", make)  # type: ignore[return-value]

    def _counted_changes(self) -> tuple[np.ndarray, np.ndarray]:
        """(entries counted now and not in the scan, entries counted in the scan and not
        now): what the charts add and take away. A cleanup or an undo changes a few."""
        def make() -> tuple[np.ndarray, np.ndarray]:
            snap = self.inventory.snapshot  # type: ignore[union-attr]
            keep = ~self.removed & self._counted
            changed = np.flatnonzero(keep != snap.counted)
            return changed[keep[changed]], changed[~keep[changed]]
        return self._cached("disk:counted-changes", make)  # type: ignore[return-value]

    def _scanned_charts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The chart tables of the scan as it was, from the totals classification and the
        age table already hold (no pass over the entries on the GUI thread)."""
        inv, ages = self.inventory, self.ages
        assert inv is not None and ages is not None
        totals = inv.category_totals()
        per_cat = np.zeros(len(Category), dtype=np.int64)
        files = np.zeros(len(Category), dtype=np.int64)
        for category, t in totals.items():
            per_cat[category] = t.apparent_size if self.apparent else t.disk_usage
            files[category] = t.files
        table = ages.by_category_apparent if self.apparent else ages.by_category
        return per_cat, table, files

    def _chart_sums(self, counted: np.ndarray, files: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The chart tables of the ``counted`` entries (space) and the ``files`` (counts)."""
        inv, ages = self.inventory, self.ages
        assert inv is not None and ages is not None
        snap = inv.snapshot
        n_cat = len(Category)
        sizes = snap.apparent[counted] if self.apparent else snap.disk_sizes(counted)
        categories = inv.categories[counted]
        per_cat = exact_bincount(categories, sizes, n_cat)
        counted_files = snap.kind[counted] != KIND_DIR
        index = ages.buckets[counted[counted_files]].astype(np.int64) * n_cat + \
            categories[counted_files]
        table = exact_bincount(index, sizes[counted_files], len(BUCKETS) * n_cat)
        file_counts = np.bincount(inv.categories[files], minlength=n_cat).astype(np.int64)
        return per_cat, table.reshape(len(BUCKETS), n_cat), file_counts

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
        then = self._then
        if then is None:
            return None
        totals = self.totals(entry)
        now = totals.apparent_size if self.apparent else totals.disk_usage
        return now - int((then.apparent if self.apparent else then.disk)[entry])

    def changes(self, entries: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
        """change() of many entries at once, with their sizes now: (change, now), or None
        when not comparing (the treemap's growth colours for thousands of tiles)."""
        then = self._then
        if then is None or self.inventory is None:
            return None
        at = np.asarray(entries, dtype=np.int64)
        now = self.whole.sizes(self.inventory, at, self.apparent)
        now = np.where(self.removed[at], 0, now)
        return now - (then.apparent if self.apparent else then.disk)[at], now

    def was_there(self, entry: int) -> bool:
        """Was the entry in the compared scan (False: it is new since, or not comparing)?"""
        return self._then is not None and bool(self._then.was_there[entry])

    # ---------------------------------------------------------------- artifacts and runs
    def artifact_at(self, entry: int) -> Artifact | None:
        """The innermost artifact containing ``entry`` (walking up its folders)."""
        assert self.inventory is not None
        snap = self.inventory.snapshot
        while entry >= 0:
            found = self._artifact_at.get(entry)
            if found is not None:
                return found
            entry = snap.parent(entry)
        return None

    def _present(self, a: Artifact) -> bool:
        return self._artifacts_now([a])[0][0]

    def artifact_totals(self, a: Artifact) -> tuple[int, int]:
        """(on disk, apparent) of an artifact now: what is left of its folder or files."""
        _, disk, apparent = self._artifacts_now([a])
        return disk[0], apparent[0]

    def _artifacts_now(self, artifacts: list[Artifact]
                       ) -> tuple[list[bool], list[int], list[int]]:
        assert self.inventory is not None
        return current_artifacts(self.inventory, artifacts, self.removed, self.whole)

    def series_now(self, series_id: str) -> SeriesNow | None:
        """A series as it is now, None when none of its checkpoints is left."""
        return self._runs()[1].get(series_id)

    def runs(self) -> tuple[RunNow, ...]:
        """The runs a scan would find now: without those whose folder went, or whose only
        reason to be a run (their checkpoints) went."""
        return self._runs()[0]

    def _runs(self) -> tuple[tuple[RunNow, ...], dict[str, SeriesNow]]:
        def make() -> tuple[tuple[RunNow, ...], dict[str, SeriesNow]]:
            assert self.inventory is not None
            by_id = current_series(self.inventory, self.removed, self.whole)
            return current_runs(self.inventory, by_id, self.removed, self._artifact_at), by_id
        return self._cached("disk:runs", make)  # type: ignore[return-value]

    # ---------------------------------------------------------------- the cold tier
    def _archived(self) -> dict[int, ArchivedItem]:
        """The scan's entries that stand for archived items (the link or stub an archive run
        left, still there now) with what was archived: the journals, matched with the scan
        (which sees only a few bytes of pointer)."""
        def make() -> dict[int, ArchivedItem]:
            snap = self.inventory.snapshot  # type: ignore[union-attr]
            found = {}
            for item in archived_items():
                entry = snap.find(item.pointer)
                is_link = item.pointer == item.path
                if entry >= 0 and not self.removed[entry] and \
                        (int(snap.kind[entry]) == KIND_SYMLINK) == is_link:
                    found[entry] = item
            return found
        return self._cached("disk:archived", make)  # type: ignore[return-value]

    def archived_at(self, entry: int) -> ArchivedItem | None:
        """The archived item an entry stands for (its link or stub), else None."""
        return self._archived().get(entry) if self.inventory is not None else None

    def archived_total(self) -> int:
        """What the archived items whose links or stubs the scan holds took on this disk
        before they moved, in the size mode: the "archived" total beside the categories
        (not counted in them: the pointers are a few bytes each)."""
        if self.inventory is None:
            return 0
        return sum(i.apparent_size if self.apparent else i.disk_usage
                   for i in self._archived().values())

    def frees(self, suggestion: Suggestion) -> int:
        """What a suggestion frees, in the size mode shown."""
        return suggestion.apparent_bytes if self.apparent else suggestion.bytes

    def suggestions_for(self, entry: int) -> list[Suggestion]:
        """Suggestions that name this entry, lie inside it, or are about its series or run."""
        if self.inventory is None or self.plan is None or entry < 0:
            return []
        inv = self.inventory
        path = inv.snapshot.path(entry)
        artifact = self.artifact_at(entry)
        subjects: set[str] = set()
        if artifact is not None:  # (no series or run: None, which must match nothing)
            subjects |= {s for s in (artifact.id, artifact.series, artifact.run) if s}
        series_here = {s.id for s in inv.series
                       if s.path == path or s.path.startswith(path.rstrip("/") + "/")}
        return [s for s in self.plan.suggestions
                if s.subject in subjects | series_here
                or any(p == path or p.startswith(path.rstrip("/") + "/")
                       or path.startswith(p.rstrip("/") + "/") for p in s.paths)]


_CATEGORY = {int(c): c for c in Category}  # by value: faster than Category(value)
_EMPTY = FilterResult(FilterSpec(), None, None, *(np.zeros(0, dtype=np.int64),) * 4)
