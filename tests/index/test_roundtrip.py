"""Scan, save, open: the same scan, on the hard trees (hard links, sparse files, non-UTF-8
names, symlinks, a FIFO, unreadable folders, several roots, parallel walks) and on
workspaces whose best and latest checkpoints come from the tools' records."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from index_helpers import assert_same_inventory, rich_workspace, saved_and_opened, scan_of
from trees import NON_UTF8_NAME, du, has_du, make_awkward_tree, write

from mlspace.classify import classify
from mlspace.index import parquet_write
from mlspace.scan import ScanOptions, scan, walker


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.usefixtures("tiny_walk_budgets")
def test_awkward_tree_round_trips(tmp_path: Path, workers: int) -> None:
    """Chunks merged in any order (parallel walks, tiny budgets) still save and open as
    the same scan: folder entries together, parents first, whatever the row order."""
    root = make_awkward_tree(tmp_path / "ws")
    inventory = scan_of(root, workers=workers)
    opened = saved_and_opened(inventory, tmp_path)
    assert opened.snapshot.source == "import"
    assert_same_inventory(inventory, opened.inventory())
    if has_du():
        assert opened.snapshot.grand_totals().disk_usage == du(root, "-B1")
        assert opened.snapshot.grand_totals().apparent_size == du(root, "-b")


def test_many_row_groups_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan of more than a row group's rows (a million) is read back group by group."""
    monkeypatch.setattr(parquet_write, "ROW_GROUP", 7)
    inventory = scan_of(rich_workspace(tmp_path / "ws"))
    assert_same_inventory(inventory, saved_and_opened(inventory, tmp_path).inventory())


def test_names_that_are_not_utf8_keep_their_bytes(tmp_path: Path) -> None:
    root = make_awkward_tree(tmp_path / "ws")
    snapshot = saved_and_opened(scan_of(root), tmp_path).snapshot
    entry = next(e for e in range(len(snapshot)) if snapshot.name_bytes(e) == NON_UTF8_NAME)
    assert os.fsencode(snapshot.path(entry)) == os.fsencode(root) + b"/" + NON_UTF8_NAME


def test_hard_links_count_once_and_keep_their_sizes(tmp_path: Path) -> None:
    """A second path to a file is saved with sizes 0 (so any sum over the file counts the
    inode once) and gets the file's sizes back when opened."""
    root = make_awkward_tree(tmp_path / "ws")
    original = scan_of(root).snapshot
    opened = saved_and_opened(scan_of(root), tmp_path).snapshot
    links = [e for e in range(len(opened)) if opened.name(e).startswith("a")
             and opened.name(e).endswith(".bin")]
    assert len(links) == 3 and sum(bool(opened.counted[e]) for e in links) == 1
    assert {int(opened.blocks[e]) for e in links} == {int(original.blocks[links[0]])}


def test_the_rich_workspace_keeps_best_latest_and_how_they_are_known(tmp_path: Path) -> None:
    root = rich_workspace(tmp_path / "ws")
    inventory = scan_of(root)
    assert any(s.best_reason.startswith("trainer_state.json") for s in inventory.series)
    assert any(s.latest_reason for s in inventory.series)
    opened = saved_and_opened(inventory, tmp_path)
    assert_same_inventory(inventory, opened.inventory())


def test_opening_reads_nothing_of_the_scanned_disk(tmp_path: Path) -> None:
    """The records are gone (the whole workspace is): the saved scan still knows the best
    and latest checkpoints, and why."""
    root = rich_workspace(tmp_path / "ws")
    inventory = scan_of(root)
    saved = saved_and_opened(inventory, tmp_path)
    shutil.rmtree(root)
    reopened = saved_and_opened(saved.inventory(), tmp_path)
    assert_same_inventory(inventory, reopened.inventory())


def test_several_roots_a_file_root_and_an_unreadable_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Errors (a folder that cannot be listed, a root that is missing) and folders not
    listed round-trip, and totals stay right."""
    first = make_awkward_tree(tmp_path / "one")
    write(tmp_path / "two" / "locked" / "secret.bin", 3000)
    write(tmp_path / "two" / "open" / "x.bin", 5000)
    alone = write(tmp_path / "model.safetensors", 7000)
    locked = str(tmp_path / "two" / "locked")
    real_open = walker.open_directory

    def refuse(path: str) -> int:
        if path == locked:
            raise PermissionError(13, "Permission denied")
        return real_open(path)

    monkeypatch.setattr(walker, "open_directory", refuse)
    monkeypatch.setenv("MLSPACE_WALKER", "python")  # the walker whose open is refused here
    snapshot = scan([first, tmp_path / "two", alone, tmp_path / "missing"],
                    ScanOptions(workers=1))
    assert {e.path for e in snapshot.errors} == {locked, str(tmp_path / "missing")}
    inventory = classify(snapshot)
    opened = saved_and_opened(inventory, tmp_path)
    assert_same_inventory(inventory, opened.inventory())
    assert opened.snapshot.row_of(opened.snapshot.find(locked)) < 0  # still not listed


def test_an_empty_scan_round_trips(tmp_path: Path) -> None:
    inventory = classify(scan([tmp_path / "missing"], ScanOptions(workers=1)))
    assert len(inventory.snapshot) == 0
    assert_same_inventory(inventory, saved_and_opened(inventory, tmp_path).inventory())


def test_the_owner_is_recorded_and_kept(tmp_path: Path) -> None:
    mine = write(tmp_path / "ws" / "mine.bin", 10)
    if os.geteuid() == 0:
        os.chown(mine, 4242, 4242)
    snapshot = scan([tmp_path / "ws"], ScanOptions(workers=1))
    entry = snapshot.find(str(mine))
    assert int(snapshot.uid[entry]) == os.lstat(mine).st_uid
    opened = saved_and_opened(classify(snapshot), tmp_path).snapshot
    assert int(opened.uid[entry]) == os.lstat(mine).st_uid
