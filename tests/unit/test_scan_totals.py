"""Scanner totals, against du on the same trees, to the byte."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from trees import NON_UTF8_NAME, du, has_du, make_awkward_tree, make_very_long_path, write
from walkers import both_walkers  # noqa: F401 (each test runs with both walkers)

from mlspace.scan import ScanOptions, scan

pytestmark = pytest.mark.skipif(not has_du(), reason="needs du")


@pytest.fixture
def awkward(tmp_path: Path) -> Path:
    return make_awkward_tree(tmp_path / "ws")


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.usefixtures("tiny_walk_budgets")
def test_totals_equal_du_with_hardlinks_sparse_and_symlinks(awkward: Path, workers: int
                                                            ) -> None:
    snap = scan([awkward], ScanOptions(workers=workers))
    totals = snap.grand_totals()
    assert totals.disk_usage == du(awkward, "-B1")
    assert totals.apparent_size == du(awkward, "-b")
    assert snap.errors == ()
    assert not snap.cancelled


def test_every_entry_is_recorded_once(awkward: Path) -> None:
    snap = scan([awkward], ScanOptions(workers=1))
    seen = sorted(path for _, _, path in snap.iter_paths())
    expected = ["."]
    for dirpath, dirnames, filenames in os.walk(os.fsencode(awkward)):
        rel = os.path.relpath(dirpath, os.fsencode(awkward))
        for name in dirnames + filenames:
            path = name if rel == b"." else os.path.join(rel, name)
            expected.append(os.fsdecode(path))
    assert seen == sorted(expected)
    files = snap.grand_totals().files
    assert files == sum(1 for p in expected[1:] if not os.path.isdir(awkward / p)
                        or os.path.islink(awkward / p))


def test_hard_links_count_once_in_every_directory_total(awkward: Path) -> None:
    snap = scan([awkward], ScanOptions(workers=1))
    by_path = {path: entry for entry, _, path in snap.iter_paths()}
    # du given both folders counts each inode once, in the first folder that holds it; which
    # folder is first depends on traversal order, so compare the sum, which does not.
    out = subprocess.run(["du", "-s", "-B1", awkward / "data", awkward / "other"],
                         capture_output=True, text=True, check=True).stdout.split()
    ours = snap.totals(by_path["data"]).disk_usage + snap.totals(by_path["other"]).disk_usage
    assert ours == int(out[0]) + int(out[2])
    links = ("data/a.bin", "data/a-hardlink.bin", "other/a-second-link.bin")
    assert sum(bool(snap.counted[by_path[p]]) for p in links) == 1


def test_sparse_file_sizes(awkward: Path) -> None:
    snap = scan([awkward], ScanOptions(workers=1))
    entry = next(e for e, _, p in snap.iter_paths() if p == "sparse.img")
    assert snap.apparent[entry] == 1 << 30
    assert snap.disk_usage(entry) == os.stat(awkward / "sparse.img").st_blocks * 512
    assert snap.disk_usage(entry) < 1 << 20


def test_symlinks_are_entries_never_followed(awkward: Path) -> None:
    snap = scan([awkward], ScanOptions(workers=1))
    kinds = {p: snap.kind[e] for e, _, p in snap.iter_paths()}
    from mlspace.scan import kind_name

    for link in ("link-to-file", "link-to-dir", "dangling", "loop"):
        assert kind_name(kinds[link]) == "symlink"
    assert not any(p.startswith("link-to-dir/") for p in kinds)
    assert kind_name(kinds["fifo"]) == "other"


def test_non_utf8_names_round_trip_to_the_filesystem(awkward: Path) -> None:
    snap = scan([awkward], ScanOptions(workers=1))
    entry = next(e for e in range(len(snap)) if snap.name_bytes(e) == NON_UTF8_NAME)
    path = snap.path(entry)
    assert os.fsencode(path) == os.fsencode(awkward) + b"/" + NON_UTF8_NAME
    assert os.lstat(path).st_size == 5


def test_paths_longer_than_path_max(tmp_path: Path) -> None:
    root = tmp_path / "long"
    root.mkdir()
    leaf = make_very_long_path(root)
    assert len(leaf) > 4096
    snap = scan([root], ScanOptions(workers=1))
    assert snap.errors == ()
    assert snap.grand_totals().disk_usage == du(root, "-B1")
    assert any(snap.name(e) == "leaf.txt" for e in range(len(snap)))


def test_empty_directories_and_empty_root(tmp_path: Path) -> None:
    (tmp_path / "e" / "f").mkdir(parents=True)
    snap = scan([tmp_path / "e"], ScanOptions(workers=1))
    assert snap.grand_totals().dirs == 2
    assert snap.grand_totals().files == 0
    assert snap.grand_totals().disk_usage == du(tmp_path / "e", "-B1")


def test_several_roots_and_nested_roots_count_once(tmp_path: Path) -> None:
    write(tmp_path / "a" / "x.bin", 3000)
    write(tmp_path / "b" / "y.bin", 7000)
    snap = scan([tmp_path / "a", tmp_path / "b", tmp_path / "a" / "."], ScanOptions(workers=1))
    assert len(snap.roots) == 2
    assert snap.grand_totals().disk_usage == du(tmp_path / "a", "-B1") + du(tmp_path / "b", "-B1")


def test_root_that_is_a_file(tmp_path: Path) -> None:
    f = write(tmp_path / "model.safetensors", 12345)
    snap = scan([f])
    assert snap.grand_totals().apparent_size == 12345
    assert snap.grand_totals().files == 1


def test_exclude_patterns(tmp_path: Path) -> None:
    write(tmp_path / "ws" / "keep.txt", 100)
    write(tmp_path / "ws" / "skip.tmp", 100)
    write(tmp_path / "ws" / "wandb" / "tmp" / "x", 100)
    write(tmp_path / "ws" / "other" / "tmp" / "y", 100)
    snap = scan([tmp_path / "ws"], ScanOptions(workers=1, exclude=("*.tmp", "*/wandb/tmp")))
    paths = {p for _, _, p in snap.iter_paths()}
    assert "keep.txt" in paths and "other/tmp/y" in paths
    assert "skip.tmp" not in paths and "wandb/tmp" not in paths and "wandb/tmp/x" not in paths


@pytest.mark.parametrize("pattern", ["data/", "./data", "data", "ws/data", "*/ws/data"])
def test_exclude_a_folder_as_people_write_it(tmp_path: Path, pattern: str) -> None:
    """'data/', './data' and a path below the scanned folder once matched nothing, and the
    scan counted the folder without a word."""
    write(tmp_path / "ws" / "data" / "laion" / "shard-0.tar", 100)
    write(tmp_path / "ws" / "logs" / "train.log", 100)
    write(tmp_path / "ws" / "logs" / "data", 100)  # a file named data is a name match too
    snap = scan([tmp_path / "ws"], ScanOptions(workers=1, exclude=(pattern,)))
    paths = {p for _, _, p in snap.iter_paths()}
    assert "data" not in paths and "data/laion/shard-0.tar" not in paths
    assert "logs/train.log" in paths


def test_exclude_a_path_below_the_scanned_folder(tmp_path: Path) -> None:
    write(tmp_path / "ws" / "data" / "laion-subset" / "shard-0.tar", 100)
    write(tmp_path / "ws" / "data" / "imagenet" / "a.jpg", 100)
    snap = scan([tmp_path / "ws"], ScanOptions(workers=1, exclude=("data/laion-subset",)))
    paths = {p for _, _, p in snap.iter_paths()}
    assert "data/laion-subset" not in paths and "data/imagenet/a.jpg" in paths


def test_directory_totals_are_cumulative_and_newest_mtime(tmp_path: Path) -> None:
    write(tmp_path / "r" / "a" / "b" / "f", 8192)
    os.utime(tmp_path / "r" / "a" / "b" / "f", (2_000_000_000, 2_000_000_000))
    snap = scan([tmp_path / "r"], ScanOptions(workers=1))
    by_path = {p: e for e, _, p in snap.iter_paths()}
    a = snap.totals(by_path["a"])
    assert a.disk_usage == du(tmp_path / "r" / "a", "-B1")
    assert a.files == 1 and a.dirs == 2
    assert a.newest_mtime == 2_000_000_000


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.usefixtures("tiny_walk_budgets")
def test_every_entry_knows_its_folder(awkward: Path, tmp_path: Path, workers: int) -> None:
    """all_parent_rows() (a running sum over the child ranges) agrees with the per-entry
    search and with the paths, with several roots, a file root and parallel chunks."""
    (tmp_path / "empty").mkdir()
    root_file = write(tmp_path / "alone.bin", 10)
    snap = scan([awkward, tmp_path / "empty", root_file], ScanOptions(workers=workers))
    parents = snap.all_parent_rows()
    assert parents.tolist() == [snap.parent_row(e) for e in range(len(snap))]
    for entry in range(len(snap)):
        if parents[entry] >= 0:
            folder = snap.dir_path(int(parents[entry]))
            assert snap.path(entry) == os.path.join(folder, snap.name(entry))
