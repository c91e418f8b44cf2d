"""The charts' tables after a cleanup and its undo equal a fresh scan's, also when a hard
link's counted path went and its other path counts now (the tables are updated by the
entries that changed, not summed again)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from layouts import make

from mlspace.act import execute, undo
from mlspace.advise import REVIEW
from mlspace.advise.build import item
from mlspace.advise.build import make as make_suggestion
from mlspace.ages import age_table
from mlspace.classify import classify
from mlspace.scan import ScanOptions, scan
from mlspace.ui.workspace import Workspace


def _loaded(root: Path) -> Workspace:
    inv = classify(scan([root], ScanOptions(workers=1)))
    ws = Workspace()
    ws.load(inv, age_table(inv))
    return ws


def _tables(ws: Workspace) -> list[object]:
    out: list[object] = []
    for apparent in (False, True):
        ws.set_apparent(apparent)
        per_cat, table = ws.chart_tables()
        out += [per_cat.tolist(), table.tolist(), ws.chart_categories()]
    return out


@pytest.mark.parametrize(("moved", "frees"), [
    # The counted path of a hard-linked file: its other path counts now, nothing is freed.
    (["data/a.npy"], False), (["run/a-link.npy"], False),
    (["run/checkpoint-10"], True), (["data", "run/train.log"], True), (["run"], True),
])
def test_chart_tables_follow_cleanup_and_undo(tmp_path: Path, moved: list[str],
                                              frees: bool) -> None:
    root = tmp_path / "ws"
    make(root, {
        "run/checkpoint-10/model.safetensors": 9000, "run/checkpoint-10/optimizer.pt": 7000,
        "run/checkpoint-20/model.safetensors": 9000, "run/train.log": 3000,
        "data/a.npy": 5000, "data/b.npy": 6000, "src/__pycache__/x.pyc": 400,
    })
    os.link(root / "data" / "a.npy", root / "run" / "a-link.npy")
    ws = _loaded(root)
    before = _tables(ws)
    inv = ws.inventory
    assert inv is not None
    chosen = make_suggestion("manual", "by hand", "You chose this yourself.", REVIEW,
                             [item(inv, inv.snapshot.find(str(root / m))) for m in moved], None)
    cleanup = execute([chosen], [str(root)], recent_seconds=0)  # to the trash, journaled
    assert [o.done for o in cleanup.outcomes] == [True] * len(moved), cleanup.skipped
    ws.mark_removed([str(root / m) for m in moved])
    after = _tables(ws)
    assert after == _tables(_loaded(root))
    assert (after != before) == frees
    restored = undo(cleanup.cleanup_id)
    assert [o.restored_to for o in restored] == [o.path for o in restored]
    assert sorted(o.path for o in restored) == sorted(str(root / m) for m in moved)
    ws.mark_removed([str(root / m) for m in moved], removed=False)
    assert _tables(ws) == before == _tables(_loaded(root))
    assert np.asarray(before[0]).sum() > 0


def test_tables_are_the_sums_over_the_entries(tmp_path: Path) -> None:
    """The tables the charts start from equal sums over the scan's entries, one by one."""
    from mlspace.ages import BUCKETS
    from mlspace.classify import Category
    from mlspace.demo import generate

    ws = _loaded(generate(tmp_path / "demo"))
    inv, ages = ws.inventory, ws.ages
    assert inv is not None and ages is not None
    snap = inv.snapshot
    for apparent in (False, True):
        ws.set_apparent(apparent)
        space = dict.fromkeys(Category, 0)
        files = dict.fromkeys(Category, 0)
        table = np.zeros((len(BUCKETS), len(Category)), dtype=np.int64)
        for entry in range(len(snap)):
            category = inv.category(entry)
            size = int(snap.apparent[entry]) if apparent else snap.disk_usage(entry)
            is_file = not snap.is_dir(entry)
            files[category] += is_file
            if snap.counted[entry]:
                space[category] += size
                if is_file:
                    table[ages.buckets[entry], category] += size
        per_cat, shown_table = ws.chart_tables()
        assert per_cat.tolist() == [space[c] for c in Category]
        assert shown_table.tolist() == table.tolist()
        assert dict(ws.chart_categories()) == {c: space[c] for c in Category
                                               if files[c] or space[c]}
