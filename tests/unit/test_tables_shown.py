"""What the filter shows, where no cleanup may start, and what an entry holds, from the
app's derived tables without a display (mlspace.tables.shown, .refused, .categories,
.lookup)."""

from __future__ import annotations

from pathlib import Path

from layouts import make

from mlspace.ages import age_table
from mlspace.classify import Category, Inventory, classify
from mlspace.filtering import FilterSpec
from mlspace.scan import ScanOptions, scan
from mlspace.tables.categories import breakdown
from mlspace.tables.lookup import artifact_holding
from mlspace.tables.moved import Moved
from mlspace.tables.now import DiskNow, disk_now
from mlspace.tables.queries import ViewQueries
from mlspace.tables.refused import cleanup_refused, read_only_reason
from mlspace.tables.shown import categories_shown, files_shown, filtered, picked, visible_children


def _scan(root: Path) -> tuple[Inventory, DiskNow]:
    make(root, {
        "run/checkpoint-10/model.safetensors": 9000, "run/checkpoint-10/optimizer.pt": 7000,
        "run/train.log": 3000, "data/a.npy": 5000, "data/b.npy": 6000,
    })
    inv = classify(scan([root], ScanOptions(workers=1)))
    return inv, disk_now(inv, age_table(inv), Moved(inv.snapshot))


def test_no_filter_is_the_disk_now_and_a_category_shows_only_its_files(tmp_path: Path
                                                                      ) -> None:
    root = tmp_path / "ws"
    inv, now = _scan(root)
    snap = inv.snapshot
    assert filtered(now, FilterSpec()) is now.whole
    assert categories_shown(now, now.whole) is now.categories()
    everything, sizes = visible_children(inv, now.whole, snap.find(str(root)), False)
    assert sorted(snap.path(e) for e in everything) == [str(root / "data"), str(root / "run")]
    assert sizes.tolist() == [now.whole.size(inv, int(e), False) for e in everything]

    checkpoints = filtered(now, FilterSpec(categories=frozenset({Category.CHECKPOINT})))
    kids, _ = visible_children(inv, checkpoints, snap.find(str(root)), False)
    assert [snap.path(e) for e in kids] == [str(root / "run")]
    assert files_shown(inv, checkpoints, snap.find(str(root / "run"))) == 2
    assert files_shown(inv, checkpoints, snap.find(str(root / "run" / "train.log"))) is None
    per_category = categories_shown(now, checkpoints)[0][snap.row_of(snap.find(str(root)))]
    assert {Category(c) for c in per_category.nonzero()[0]} == {Category.CHECKPOINT}
    assert picked(checkpoints.spec) is Category.CHECKPOINT
    assert picked(FilterSpec()) is None
    assert picked(FilterSpec(categories=frozenset({Category.CHECKPOINT, Category.LOG}))) is None


def test_a_file_holds_itself_and_a_folder_what_its_entries_hold(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inv, now = _scan(root)
    snap = inv.snapshot
    log = snap.find(str(root / "run" / "train.log"))
    held = breakdown(now, log)
    assert {c for c, t in held.items() if t.files} == {inv.category(log)}
    assert held[inv.category(log)].disk_usage == now.totals(log).disk_usage
    folder = snap.find(str(root / "run"))
    assert sum(t.files for t in breakdown(now, folder).values()) == now.totals(folder).files

    weights = snap.find(str(root / "run" / "checkpoint-10" / "model.safetensors"))
    by_entry = {a.entry: a for a in inv.artifacts}
    holding = artifact_holding(inv, by_entry, weights)
    assert holding is not None  # the checkpoint folder, walking up from its weights
    assert snap.path(holding.entry) == str(root / "run" / "checkpoint-10")
    assert artifact_holding(inv, by_entry, snap.find(str(root / "data"))) is None


def test_no_cleanup_starts_in_a_folder_that_is_off() -> None:
    off = {"/a": "an opened saved scan from elsewhere"}
    assert cleanup_refused(off, ["/b/x", "/a/y"]) == "an opened saved scan from elsewhere"
    assert cleanup_refused(off, ["/b/x", "/ab"]) == ""
    assert cleanup_refused({}, ["/a"]) == ""
    both = {"/a": "elsewhere", "/b": "elsewhere"}
    assert read_only_reason(both, ["/a", "/b"]) == "elsewhere"
    assert read_only_reason({"/a": "one", "/b": "two"}, ["/a", "/b"]) == "one; two"
    assert read_only_reason(off, ["/a", "/b"]) == ""
    assert read_only_reason(off, []) == ""


class _Queries(ViewQueries):
    """The view queries over a scan and a filter, as the workspace holds them, without Qt."""

    def __init__(self, inv: Inventory, now: DiskNow, spec: FilterSpec) -> None:
        self.inventory, self.now, self.apparent, self.names_here = inv, now, False, True
        self.filter, self._shown = filtered(now, spec), None


def test_view_queries_answer_sizes_and_categories_under_a_filter(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inv, now = _scan(root)
    snap = inv.snapshot
    run, data = snap.find(str(root / "run")), snap.find(str(root / "data"))
    views = _Queries(inv, now, FilterSpec(categories=frozenset({Category.CHECKPOINT})))
    checkpoint_files = [snap.find(str(root / "run/checkpoint-10" / name))
                        for name in ("model.safetensors", "optimizer.pt")]
    # under a category filter a folder shows what its files of that category take
    assert views.size(run) == sum(views.totals(f).disk_usage for f in checkpoint_files)
    assert views.size(run) < now.whole.size(inv, run, False)
    assert not views.visible(data) and views.visible(run)
    assert views.shown_files(run) == 2
    assert views.dominant_category(snap.find(str(root))) is Category.CHECKPOINT
    # what an entry *is* ignores the filter; the charts too
    assert views.category_of(data) is Category.DATASET
    assert {c for c, _ in views.chart_categories()} >= {Category.CHECKPOINT, Category.DATASET}
    assert views.sizes([run, data]).tolist() == [views.size(run), 0]
