"""``classify(snapshot) -> Inventory``: categories for every entry, totals per category for
every folder, and the artifacts, checkpoint series and runs of the workspace."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mlspace.classify.archived import with_archived
from mlspace.classify.artifacts import checkpoint_files, folder_artifacts
from mlspace.classify.categories import Category
from mlspace.classify.engine import EntryClassifier, classify_entries
from mlspace.classify.model import Artifact, Run, Series, build
from mlspace.classify.readers.hf_hub import DetachedRevision, detached_revisions
from mlspace.classify.rule_files import load_rules
from mlspace.classify.rules import CompiledRules, RuleSet
from mlspace.classify.series import build_series
from mlspace.scan import Snapshot
from mlspace.scan.arrays import exact_bincount
from mlspace.scan.walker import KIND_DIR

#: Folder names that hold a run's checkpoints rather than being the run.
_CONTAINER_NAMES = {"checkpoints", "checkpoint", "ckpt", "ckpts", "weights", "saved_models",
                    "models", "model_checkpoints"}
_CATEGORIES = len(Category)


@dataclass(frozen=True, eq=False)
class CategoryTotals:
    disk_usage: int
    apparent_size: int
    files: int


@dataclass(frozen=True, eq=False)
class Inventory:
    snapshot: Snapshot
    categories: np.ndarray  # uint8 per entry (a Category value)
    contexts: np.ndarray  # per folder row
    dir_category_disk: np.ndarray  # folder rows x categories, cumulative, on disk
    dir_category_apparent: np.ndarray
    dir_category_files: np.ndarray
    artifacts: tuple[Artifact, ...]
    series: tuple[Series, ...]
    runs: tuple[Run, ...]
    warnings: tuple[str, ...] = ()
    hub_detached: tuple[DetachedRevision, ...] = ()

    @cached_property
    def artifact_by_id(self) -> dict[str, Artifact]:
        return {a.id: a for a in self.artifacts}

    @cached_property
    def series_by_id(self) -> dict[str, Series]:
        return {s.id: s for s in self.series}

    @cached_property
    def run_by_id(self) -> dict[str, Run]:
        return {r.id: r for r in self.runs}

    def run_label(self, run: Run) -> str:
        """A run's name for people: its folder below the scanned folder
        (``projB/lightning_logs/version_0``), since every Lightning run is ``version_0`` or
        so and many trainers name runs ``run-…`` by date. With several folders scanned, the
        scanned folder's own name comes first, so two ``lightning_logs/version_0`` differ."""
        snap = self.snapshot
        inside = snap.relative_path(run.entry)
        if len(snap.roots) == 1 and inside != ".":
            return inside
        root = snap.roots[snap.root_of(run.entry)].rstrip("/")
        top = os.path.basename(root) or root or "/"
        return top if inside == "." else f"{top}/{inside}"

    def category(self, entry: int) -> Category:
        return Category(int(self.categories[entry]))

    def category_totals(self, entry: int | None = None) -> dict[Category, CategoryTotals]:
        """Per category, the totals of a folder's subtree (or of the whole scan)."""
        snap = self.snapshot
        if entry is None:
            rows = [snap.row_of(e) for e in snap.root_entries]
        else:
            rows = [snap.row_of(entry)]
        out = {}
        for cat in Category:
            disk = apparent = files = 0
            for row in rows:
                if row >= 0:
                    disk += int(self.dir_category_disk[row, cat])
                    apparent += int(self.dir_category_apparent[row, cat])
                    files += int(self.dir_category_files[row, cat])
            out[cat] = CategoryTotals(disk, apparent, files)
        if entry is not None and rows[0] < 0:  # a file, or a folder that was not listed
            t = snap.totals(entry)
            out[self.category(entry)] = CategoryTotals(t.disk_usage, t.apparent_size, t.files)
        return out

    def folder_category_totals(self, leaving_out: np.ndarray, counted: np.ndarray | None = None
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Like dir_category_disk / _apparent / _files, without the entries where
        ``leaving_out`` is True (what a cleanup moved to the trash since the scan, or what a
        filter hides). ``counted`` replaces ``snapshot.counted`` when a hard link's counted
        path is gone and another path of it counts now."""
        return _category_totals(self.snapshot, self.categories, leaving_out, counted)

    def artifact_of_entries(self) -> np.ndarray:
        """For every entry, the index into ``artifacts`` of the innermost artifact holding it
        (-1 for none); folder artifacts cover their subtree."""
        snap = self.snapshot
        row_owner = np.full(len(snap.dir_entry), -1, dtype=np.int64)
        entry_owner = np.full(len(snap), -1, dtype=np.int64)
        owned_rows: dict[int, int] = {}
        for index, artifact in enumerate(self.artifacts):
            for entry in artifact.entries:
                entry_owner[entry] = index
                row = snap.row_of(entry)
                if row >= 0:
                    owned_rows[row] = index
        for row in range(len(snap.dir_entry)):
            parent = int(snap.dir_parent[row])
            row_owner[row] = owned_rows.get(row, row_owner[parent] if parent >= 0 else -1)
        parents = snap.all_parent_rows()
        inherited = np.append(row_owner, -1)[parents]  # roots (parent -1) read the -1
        return np.where(entry_owner >= 0, entry_owner, inherited)


def classify(snapshot: Snapshot, rules: RuleSet | CompiledRules | None = None,
             during_scan: EntryClassifier | None = None) -> Inventory:
    """Classify a snapshot with the default rules plus the user's (or the rules given).

    ``during_scan``, an EntryClassifier that was given the scan's listings as they came
    (``scan(..., on_listing=classifier.add)``), has already done the per-entry work.
    """
    if during_scan is not None:
        compiled = during_scan.compiled
        cls = during_scan.finish(snapshot)
    else:
        if rules is None:
            rules = load_rules()
        compiled = rules if isinstance(rules, CompiledRules) else rules.compile()
        cls = classify_entries(snapshot, compiled)
    disk, apparent, files = _category_totals(snapshot, cls.categories)
    units, checkpoints = folder_artifacts(snapshot, cls, compiled)
    checkpoints = with_archived(snapshot, checkpoints + checkpoint_files(snapshot, cls))
    run_folders = {row: a for row, a in units.items() if a.kind == "run"}
    run_rows = {row: _run_row(snapshot, row, run_folders)
                for row in {c.parent_row for c in checkpoints}}
    run_ids = {row: f"run:{snapshot.dir_path(run)}" for row, run in run_rows.items()}
    series, artifacts = build_series(snapshot, checkpoints, run_ids)
    runs = _collect_runs(snapshot, cls.folder_names, series, run_folders,
                         {run_ids[row]: run for row, run in run_rows.items()})
    artifacts += units.values()
    artifacts.sort(key=lambda a: a.path)
    hub = tuple(d for a in artifacts if a.tool == "Hugging Face Hub cache"
                for d in detached_revisions(a.path))
    return Inventory(
        snapshot=snapshot,
        categories=cls.categories,
        contexts=cls.contexts,
        dir_category_disk=disk,
        dir_category_apparent=apparent,
        dir_category_files=files,
        artifacts=tuple(artifacts),
        series=tuple(sorted(series, key=lambda s: s.path)),
        runs=tuple(sorted(runs, key=lambda r: r.path)),
        warnings=tuple(compiled.rules.warnings) + cls.evidence.warnings(),
        hub_detached=hub,
    )


def _category_totals(snapshot: Snapshot, categories: np.ndarray,
                     leaving_out: np.ndarray | None = None, counted: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative per-category totals for every folder (hard links counted once), without
    the entries ``leaving_out`` marks.

    Entries are summed run by run (see _booking_runs), so no temporary array as long as the
    scan is made: on a million entries each one costs milliseconds of fresh memory. When
    most entries are left out (a filter that shows a few thousand files of a million), only
    the rest is summed, entry by entry: the app recomputes this at every filter change.
    """
    rows, entries = len(snapshot.dir_entry), len(snapshot)
    starts, keys = _booking_runs(snapshot, categories)
    length = (rows + 1) * _CATEGORIES
    is_dir = (snapshot.kind == KIND_DIR).view(np.uint8)
    counts = snapshot.counted if counted is None else counted
    if leaving_out is not None and np.count_nonzero(leaving_out) > entries // 2:
        disk, apparent, files = _sum_entries(snapshot, starts, keys, length,
                                             counts & ~leaving_out,
                                             ~leaving_out & ~is_dir.view(bool))
    else:
        disk, apparent, files = _sum_runs(snapshot, starts, keys, length, is_dir,
                                          counts, leaving_out)
    # One pass up the tree for the three columns: (rows, categories, column).
    totals = np.stack([disk, apparent, files], axis=1).reshape(rows + 1, _CATEGORIES, 3)
    totals = snapshot.tree.add_up(totals)[:rows]
    out = (totals[..., 0] * 512, totals[..., 1].copy(), totals[..., 2].copy())
    for array in out:
        array.flags.writeable = False
    return out


def _sum_runs(snapshot: Snapshot, starts: np.ndarray, keys: np.ndarray, length: int,
              is_dir: np.ndarray, counts: np.ndarray, leaving_out: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blocks, apparent size and files per key: everything, run by run, less what must not
    count (second paths to a file, and what is left out)."""
    lengths = np.diff(starts, append=len(snapshot))
    disk, apparent, files = (exact_bincount(keys, values, length) for values in (
        np.add.reduceat(snapshot.blocks, starts, dtype=np.int64),
        np.add.reduceat(snapshot.apparent, starts),
        lengths - np.add.reduceat(is_dir, starts, dtype=np.int64)))
    not_counted = ~counts if leaving_out is None else ~counts | leaving_out
    gone = np.flatnonzero(not_counted)
    if len(gone):
        gone_keys = keys[np.searchsorted(starts, gone, side="right") - 1]
        disk -= exact_bincount(gone_keys, snapshot.blocks[gone], length)
        apparent -= exact_bincount(gone_keys, snapshot.apparent[gone], length)
    if leaving_out is not None:
        left = np.flatnonzero(leaving_out & ~is_dir.view(bool))
        files -= np.bincount(keys[np.searchsorted(starts, left, side="right") - 1],
                             minlength=length)
    return disk, apparent, files


def _sum_entries(snapshot: Snapshot, starts: np.ndarray, keys: np.ndarray, length: int,
                 sized: np.ndarray, counted_files: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blocks and apparent size of the ``sized`` entries, and the ``counted_files``, per key."""
    take = np.flatnonzero(sized)
    take_keys = keys[np.searchsorted(starts, take, side="right") - 1]
    file_entries = np.flatnonzero(counted_files)
    file_keys = keys[np.searchsorted(starts, file_entries, side="right") - 1]
    return (exact_bincount(take_keys, snapshot.blocks[take], length),
            exact_bincount(take_keys, snapshot.apparent[take], length),
            np.bincount(file_keys, minlength=length).astype(np.int64))


def _booking_runs(snapshot: Snapshot, categories: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of entries starts that are booked on one folder row in one category,
    and its key (row * categories + category). A listed folder is booked on its own row
    (its subtree is added up the tree later), anything else on the row listing it, and a
    root that is a file on an extra row past the table. A new run starts at each folder's
    child range, at each listed folder, and wherever the category changes."""
    rows, entries = len(snapshot.dir_entry), len(snapshot)
    cut = np.empty(entries, dtype=bool)
    np.not_equal(categories[1:], categories[:-1], out=cut[1:])
    cut[:1] = True
    cut[snapshot.range_starts] = True
    cut[snapshot.dir_entry] = True
    after_folders = snapshot.dir_entry + 1
    cut[after_folders[after_folders < entries]] = True
    starts = np.flatnonzero(cut)
    own = snapshot.rows_of(starts)
    row = np.where(own >= 0, own, snapshot.parent_rows_of(starts))
    row[row < 0] = rows
    return starts, row * _CATEGORIES + categories[starts]


def _run_row(snapshot: Snapshot, row: int, run_folders: dict[int, Artifact]) -> int:
    """The run that the checkpoints of folder ``row`` belong to: the nearest run folder at or
    up to three levels above it, else the folder itself, or its parent when the folder is a
    ``checkpoints``/``weights`` container."""
    up = row
    for _ in range(4):
        if up < 0:
            break
        if up in run_folders:
            return up
        up = int(snapshot.dir_parent[up])
    parent = int(snapshot.dir_parent[row])
    name = os.path.basename(snapshot.dir_path(row).rstrip("/"))
    return parent if name in _CONTAINER_NAMES and parent >= 0 else row


def _collect_runs(snapshot: Snapshot, names: tuple[str, ...], series: list[Series],
                  run_folders: dict[int, Artifact], series_runs: dict[str, int]) -> list[Run]:
    """One run per run folder and per run that series were found in, with its series
    (``series_runs``: the folder row of each run that series were found in, by run id)."""
    of_run: dict[str, list[Series]] = {}
    for s in series:
        of_run.setdefault(s.run or "", []).append(s)
    runs = []
    for run_id, row in series_runs.items():
        members = of_run[run_id]
        runs.append(_make_run(snapshot, names, row, run_folders.get(row), members[0].tool,
                              tuple(s.id for s in members)))
    for row, artifact in run_folders.items():
        if f"run:{artifact.path}" not in series_runs:
            runs.append(_make_run(snapshot, names, row, artifact, artifact.tool, ()))
    return runs


def _make_run(snapshot: Snapshot, names: tuple[str, ...], row: int, artifact: Artifact | None,
              tool: str | None, series: tuple[str, ...]) -> Run:
    """The run at folder ``row``."""
    path = snapshot.dir_path(row)
    return build(Run, {
        "id": f"run:{path}",
        "path": path,
        "name": names[row] or path,
        "tool": artifact.tool if artifact and artifact.tool else tool,
        "entry": int(snapshot.dir_entry[row]),
        "disk_usage": int(snapshot.dir_disk[row]),
        "apparent_size": int(snapshot.dir_apparent[row]),
        "files": int(snapshot.dir_files[row]),
        "newest_mtime": float(snapshot.dir_newest[row]),
        "series": series,
    })
