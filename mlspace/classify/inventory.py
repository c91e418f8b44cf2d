"""``classify(snapshot) -> Inventory``: categories for every entry, totals per category for
every folder, and the artifacts, checkpoint series and runs of the workspace."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mlspace.classify.artifacts import Found, checkpoint_files, folder_artifacts
from mlspace.classify.categories import Category
from mlspace.classify.engine import classify_entries
from mlspace.classify.model import Artifact, Run, Series, evolve
from mlspace.classify.readers.hf_hub import DetachedRevision, detached_revisions
from mlspace.classify.rules import CompiledRules, RuleSet, load_rules
from mlspace.classify.series import build_series
from mlspace.scan import Snapshot
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
        parents = snap.parent_rows_of(np.arange(len(snap)))
        inherited = np.append(row_owner, -1)[parents]  # roots (parent -1) read the -1
        return np.where(entry_owner >= 0, entry_owner, inherited)


def classify(snapshot: Snapshot, rules: RuleSet | CompiledRules | None = None) -> Inventory:
    """Classify a snapshot with the default rules plus the user's (or the rules given)."""
    if rules is None:
        rules = load_rules()
    compiled = rules if isinstance(rules, CompiledRules) else rules.compile()
    cls = classify_entries(snapshot, compiled)
    disk, apparent, files = _category_totals(snapshot, cls.categories)
    folders = folder_artifacts(snapshot, cls, compiled)
    checkpoints = [f for f in folders if f.artifact.kind == "checkpoint"]
    checkpoints += checkpoint_files(snapshot, cls)
    series, checkpoint_artifacts = build_series(snapshot, checkpoints)
    others = [f.artifact for f in folders if f.artifact.kind != "checkpoint"]
    runs, series, artifacts = _attach_runs(snapshot, folders, series,
                                           checkpoint_artifacts + others)
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
        warnings=tuple(compiled.rules.warnings),
        hub_detached=hub,
    )


def _category_totals(snapshot: Snapshot, categories: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative per-category totals for every folder (hard links counted once)."""
    rows = len(snapshot.dir_entry)
    shape = (rows, _CATEGORIES)
    disk, apparent, files = (np.zeros(shape, np.int64) for _ in range(3))
    counted = snapshot.counted
    not_dir = snapshot.kind != KIND_DIR
    scratch = np.empty(len(snapshot), dtype=np.int64)
    for cat in np.unique(categories):
        mask = categories == cat
        for out, values in ((disk, snapshot.blocks * 512), (apparent, snapshot.apparent)):
            np.multiply(values, mask & counted, out=scratch)
            out[:, cat] = snapshot.tree.subtree_sums(scratch)
        np.copyto(scratch, mask & not_dir, casting="unsafe")
        files[:, cat] = snapshot.tree.subtree_sums(scratch)
    for array in (disk, apparent, files):
        array.flags.writeable = False
    return disk, apparent, files


def _attach_runs(snapshot: Snapshot, folders: list[Found], series: list[Series],
                 artifacts: list[Artifact]
                 ) -> tuple[list[Run], list[Series], list[Artifact]]:
    """Runs from folder rules, plus one for each series found outside any: the series' folder,
    or its parent when the folder is a ``checkpoints``/``weights`` container."""
    run_rows = {f.artifact.entry: f.artifact for f in folders if f.artifact.kind == "run"}
    first_member = {a.id: a for a in artifacts}
    runs: dict[str, Run] = {}
    series_run: dict[str, str] = {}
    for s in series:
        row = snapshot.row_of(snapshot.parent(first_member[s.members[0]].entry))
        run_entry = _enclosing_run(snapshot, row, run_rows)
        if run_entry is None:
            folder_entry = int(snapshot.dir_entry[row])
            name = snapshot.name(folder_entry)
            parent = snapshot.parent(folder_entry)
            run_entry = parent if name in _CONTAINER_NAMES and parent >= 0 else folder_entry
        run = runs.get(f"run:{snapshot.path(run_entry)}") or _make_run(
            snapshot, run_entry, run_rows.get(run_entry), s.tool)
        runs[run.id] = evolve(run, series=run.series + (s.id,))
        series_run[s.id] = run.id
    for entry, artifact in run_rows.items():
        run_id = f"run:{artifact.path}"
        if run_id not in runs:
            runs[run_id] = _make_run(snapshot, entry, artifact, artifact.tool)
    series = [evolve(s, run=series_run.get(s.id)) for s in series]
    artifacts = [evolve(a, run=series_run.get(a.series)) if a.series else a for a in artifacts]
    return list(runs.values()), series, artifacts


def _enclosing_run(snapshot: Snapshot, row: int, run_rows: dict[int, Artifact]) -> int | None:
    """The nearest run folder at or above ``row``, looking up at most three levels."""
    for _ in range(4):
        if row < 0:
            return None
        entry = int(snapshot.dir_entry[row])
        if entry in run_rows:
            return entry
        row = int(snapshot.dir_parent[row])
    return None


def _make_run(snapshot: Snapshot, entry: int, artifact: Artifact | None, tool: str | None
              ) -> Run:
    path = snapshot.path(entry)
    totals = snapshot.totals(entry)
    return Run(
        id=f"run:{path}",
        path=path,
        name=os.path.basename(path),
        tool=artifact.tool if artifact and artifact.tool else tool,
        entry=entry,
        disk_usage=totals.disk_usage,
        apparent_size=totals.apparent_size,
        files=totals.files,
        newest_mtime=totals.newest_mtime,
    )

