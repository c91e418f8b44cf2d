"""Growth over saved scans (mlspace.index.growth): each kept scan's totals per category read
from its footer, and an older scan matched entry by entry with a newer one, agreeing with
what `mlspace diff` says changed."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from index_helpers import scan_of
from layouts import make, trainer_state

from mlspace.classify import Category
from mlspace.index import history
from mlspace.index.diff import Side, diff, match_folders
from mlspace.index.growth import growth_points, short_date, sizes_then
from mlspace.index.info import ScanInfo


def _workspace(root: Path) -> Path:
    for step in (100, 200):
        make(root / "outputs" / "bert" / f"checkpoint-{step}", {
            "model.safetensors": 20_000, "optimizer.pt": 40_000,
            "trainer_state.json": trainer_state(step, None, None, [])})
    make(root, {f"data/train/img_{i}.jpg": 3000 for i in range(20)} | {"notes.txt": 500})
    return root


def test_points_are_the_kept_scans_of_exactly_these_folders(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    other = _workspace(tmp_path / "other")
    first = scan_of(root)
    make(root, {"outputs/gpt/checkpoint-50/model.safetensors": 90_000})
    second = scan_of(root)
    now = time.time()
    history.save(first, ScanInfo("box", "me", now - 100, now - 100))
    history.save(scan_of(other), ScanInfo("box", "me", now - 50, now - 50))
    history.save(scan_of(root, other), ScanInfo("box", "me", now - 40, now - 40))
    kept = history.save(second, ScanInfo("gpu-node3", "me", now, now))
    (history.history_dir() / "junk.parquet").write_bytes(b"not a scan")

    points = growth_points([str(root)])
    assert [(p.finished, p.host) for p in points] == [(now - 100, "box"), (now, "gpu-node3")]
    assert points[-1].id == kept.id and points[-1].path == str(kept.path)
    for point, inventory in zip(points, (first, second), strict=True):
        totals = inventory.category_totals()
        assert point.disk == tuple(totals[c].disk_usage for c in Category)
        assert point.sizes(apparent=True) == tuple(totals[c].apparent_size for c in Category)
    grown = np.subtract(points[1].sizes(True), points[0].sizes(True))
    assert grown[Category.CHECKPOINT] >= 90_000  # the checkpoint (and its new folders)
    assert growth_points([str(tmp_path / "never-scanned")]) == []


def test_sizes_then_match_each_entry_and_agree_with_diff(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    before = scan_of(root)
    make(root, {"outputs/gpt/checkpoint-50/model.safetensors": 90_000,  # a new run
                "data/train/img_99.jpg": 7000})  # a folder that grew
    (root / "notes.txt").write_bytes(b"x" * 8000)  # a file that grew
    for item in (root / "outputs" / "bert" / "checkpoint-100").iterdir():
        item.unlink()
    (root / "outputs" / "bert" / "checkpoint-100").rmdir()  # a folder that went
    after = scan_of(root)
    old, new = before.snapshot, after.snapshot
    then = sizes_then(old, new)
    assert then.snapshot is new

    def entry(relative: str) -> int:
        return new.find(str(root / relative) if relative else str(root))

    # Files: their own size then, found by name in the matched folder; new ones were not.
    notes = entry("notes.txt")
    assert then.was_there[notes] and then.apparent[notes] == 500
    assert then.disk[notes] == old.disk_usage(old.find(str(root / "notes.txt")))
    new_image = entry("data/train/img_99.jpg")
    assert not then.was_there[new_image] and then.disk[new_image] == 0
    assert not then.was_there[entry("outputs/gpt")]
    assert not then.was_there[entry("outputs/gpt/checkpoint-50/model.safetensors")]
    # Folders: their whole subtree then, so what went since counts in their change.
    for relative in ("", "outputs", "outputs/bert", "data/train"):
        now_entry = entry(relative)
        old_entry = old.find(str(root / relative) if relative else str(root))
        assert then.was_there[now_entry]
        assert then.apparent[now_entry] == old.totals(old_entry).apparent_size
        assert then.disk[now_entry] == old.totals(old_entry).disk_usage
    # Every folder diff names changed by exactly the delta diff gives it.
    doc = diff(Side(before), Side(after))
    for change in doc["changes"]:
        e = new.find(change["path"])
        if change["status"] == "removed":
            assert e < 0
            continue
        assert new.totals(e).disk_usage - then.disk[e] == change["delta"], change["path"]
    # And the folders it does not name did not change, except by what their named
    # subfolders say.
    changed_rows = {new.row_of(new.find(c["path"])) for c in doc["changes"]
                    if c["status"] != "removed"}
    unchanged = [r for r in range(len(new.dir_entry))
                 if new.dir_disk[r] == then.disk[new.dir_entry[r]]]
    assert not changed_rows & set(unchanged)


def test_a_moved_workspace_still_matches_below_its_folder(tmp_path: Path) -> None:
    """As `diff` matches: by path below the scanned folder when each scan has one."""
    root = _workspace(tmp_path / "ws")
    before = scan_of(root)
    moved = root.rename(tmp_path / "moved")
    after = scan_of(moved)
    rows = match_folders(before.snapshot, after.snapshot)
    assert (rows >= 0).all()
    assert [before.snapshot.dir_paths[r] for r in rows] == [
        p.replace(str(moved), str(root), 1) for p in after.snapshot.dir_paths]
    then = sizes_then(before.snapshot, after.snapshot)
    assert then.was_there.all()
    assert np.array_equal(then.disk[after.snapshot.dir_entry], after.snapshot.dir_disk)


def test_short_dates() -> None:
    now = time.mktime((2026, 3, 10, 15, 0, 0, 0, 0, -1))
    assert short_date(now - 3600, now) == "14:00"
    assert short_date(now - 5 * 86400, now) == "5 Mar"
    assert short_date(now - 400 * 86400, now) == f"{time.localtime(now - 400 * 86400).tm_mday}" \
        f" {time.strftime('%b', time.localtime(now - 400 * 86400))} 2025"
