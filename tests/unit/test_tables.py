"""The app's derived tables without Qt (mlspace.tables): after a move to the trash and
its undo, what they say of the scan equals what they say of a fresh scan of the disk."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from layouts import make

from mlspace.ages import age_table
from mlspace.classify import Inventory, classify
from mlspace.scan import ScanOptions, scan
from mlspace.tables.charts import category_bars, chart_tables, owner_bars
from mlspace.tables.moved import Moved
from mlspace.tables.now import DiskNow, disk_now


def _inventory(root: Path) -> Inventory:
    return classify(scan([root], ScanOptions(workers=1)))


def _now(inv: Inventory, moved: Moved) -> DiskNow:
    return disk_now(inv, age_table(inv), moved)


def _said(now: DiskNow, folders: list[str]) -> list[object]:
    out: list[object] = []
    for apparent in (False, True):
        per_cat, table, files = chart_tables(now, apparent)
        out += [per_cat.tolist(), table.tolist(), files.tolist(),
                category_bars(now, apparent), owner_bars(now, apparent)]
    for folder in folders:
        t = now.totals(now.snapshot.find(folder))
        out.append((folder, t.disk_usage, t.apparent_size, t.files, t.dirs))
    return out


def test_the_tables_after_a_move_are_a_fresh_scans(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make(root, {
        "run/checkpoint-10/model.safetensors": 9000, "run/checkpoint-10/optimizer.pt": 7000,
        "run/checkpoint-20/model.safetensors": 9000, "run/train.log": 3000,
        "data/a.npy": 5000, "data/b.npy": 6000,
    })
    os.link(root / "data" / "a.npy", root / "run" / "a-link.npy")  # counted once
    folders = [str(root), str(root / "run"), str(root / "data")]
    inv = _inventory(root)
    moved = Moved(inv.snapshot)
    before = _said(_now(inv, moved), folders)
    assert before == _said(_now(_inventory(root), Moved(inv.snapshot)), folders)

    gone = [str(root / "run" / "checkpoint-10"), str(root / "data" / "a.npy")]
    trash = tmp_path / "trash"
    trash.mkdir()
    for n, path in enumerate(gone):
        shutil.move(path, trash / str(n))
    assert moved.mark(gone)
    assert all(path in moved for path in gone)
    after = _said(_now(inv, moved), folders)
    fresh = _inventory(root)
    assert after == _said(_now(fresh, Moved(fresh.snapshot)), folders)
    assert after != before  # the checkpoint's space went; a-link.npy counts a.npy's now

    for n, path in enumerate(gone):
        shutil.move(trash / str(n), path)
    assert moved.mark(gone, removed=False)
    assert not any(path in moved for path in gone)
    assert _said(_now(inv, moved), folders) == before
    assert not moved.mark([str(root / "never-scanned")], removed=False)  # says: rescan
