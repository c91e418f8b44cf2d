"""What removing a folder frees when hard links cross its edge, against the disk itself:
for every folder, its own blocks and its folders' plus the blocks of each file whose every
link lies inside it."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trees import make_awkward_tree, write
from walkers import both_walkers  # noqa: F401 (each test runs with both walkers)

from mlspace.scan import ScanOptions, Snapshot, scan
from mlspace.scan.hardlinks import freed_totals

FOLDERS = ["a", "a/b", "a/b/c", "d", "d/e", "f"]


def _freed_on_disk(folder: Path) -> tuple[int, int]:
    """(on disk, apparent) that removing ``folder`` would give back, from the disk."""
    links: Counter[tuple[int, int]] = Counter()
    sizes: dict[tuple[int, int], tuple[int, int, int]] = {}
    disk = apparent = 0
    for here, dirs, files in os.walk(folder):
        st = os.lstat(here)
        disk, apparent = disk + st.st_blocks * 512, apparent + st.st_size
        links_to_folders = [d for d in dirs if os.path.islink(os.path.join(here, d))]
        for name in files + links_to_folders:
            st = os.lstat(os.path.join(here, name))
            key = (st.st_dev, st.st_ino)
            links[key] += 1
            sizes[key] = (st.st_nlink, st.st_blocks * 512, st.st_size)
    for key, inside in links.items():
        nlink, blocks, size = sizes[key]
        if inside == nlink:
            disk, apparent = disk + blocks, apparent + size
    return disk, apparent


def _assert_every_folder_frees_what_the_disk_says(snap: Snapshot) -> None:
    for entry, _, path in snap.iter_paths():
        if snap.is_dir(entry):
            full = os.path.join(snap.roots[0], path) if path != "." else snap.roots[0]
            assert freed_totals(snap, entry) == _freed_on_disk(Path(full)), path


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.tuples(st.sampled_from(FOLDERS), st.integers(0, 20_000)),
                      min_size=1, max_size=8),
       links=st.lists(st.tuples(st.integers(0, 7), st.sampled_from(FOLDERS)), max_size=10))
def test_a_folder_frees_what_the_disk_gives_back(tmp_path: Path, files: list[tuple[str, int]],
                                                  links: list[tuple[int, str]]) -> None:
    root = tmp_path / "ws"
    shutil.rmtree(root, ignore_errors=True)
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
    made = [write(root / folder / f"file{i}", size) for i, (folder, size) in enumerate(files)]
    for n, (which, folder) in enumerate(links):
        os.link(made[which % len(made)], root / folder / f"link{n}")
    _assert_every_folder_frees_what_the_disk_says(scan([root], ScanOptions(workers=1)))


def test_links_out_of_the_scan_keep_the_blocks(tmp_path: Path) -> None:
    """A link outside the scanned folder keeps the file: nothing in the scan frees it."""
    write(tmp_path / "elsewhere" / "weights.bin", 50_000)
    (tmp_path / "run" / "ckpt").mkdir(parents=True)
    os.link(tmp_path / "elsewhere" / "weights.bin", tmp_path / "run" / "ckpt" / "weights.bin")
    snap = scan([tmp_path / "run"], ScanOptions(workers=1))
    _assert_every_folder_frees_what_the_disk_says(snap)
    ckpt = snap.find(str(tmp_path / "run" / "ckpt"))
    assert freed_totals(snap, ckpt)[0] < snap.totals(ckpt).disk_usage


def test_the_awkward_tree(tmp_path: Path) -> None:
    snap = scan([make_awkward_tree(tmp_path / "ws")], ScanOptions(workers=1))
    _assert_every_folder_frees_what_the_disk_says(snap)
