"""Sparse files whose apparent sizes cannot all be added up (three of 4 EiB each make 12 EiB,
which wraps to -4 EiB in 64 bits), met in a live scan with either walker: the totals stay
true sums, the files the scan could not count in full are named with what was counted, and
the sizes on disk are untouched."""

from __future__ import annotations

from pathlib import Path

from cleanup_helpers import mounted
from hostile_helpers import assert_clean_run, mlspace_cli
from walkers import both_walkers  # noqa: F401

from mlspace.classify import classify
from mlspace.scan import scan

EIB4 = 2**62


def _sparse(folder: Path, count: int, size: int) -> None:
    folder.mkdir()
    for n in range(count):
        with open(folder / f"disk{n}.img", "wb") as f:
            f.truncate(size)
    (folder / "notes.txt").write_bytes(b"x" * 5000)


def test_sizes_that_cannot_add_up_are_counted_on_disk_and_named(tmp_path: Path) -> None:
    with mounted(tmp_path / "disk", "16m") as disk:  # tmpfs takes files of 4 EiB
        _sparse(disk / "ws", 3, EIB4)
        snap = scan([str(disk / "ws")])
        root = snap.root_entries[0]
        totals = snap.totals(root)
        assert 0 < totals.apparent_size <= 2**63 - 1
        # one of the three still counts in full; two are counted as their blocks (none)
        assert totals.apparent_size == EIB4 + 5000 + int(snap.apparent[root])
        assert sorted(e.path.rsplit("/", 1)[-1] for e in snap.errors) == ["disk0.img",
                                                                          "disk1.img"]
        assert all("more than any disk holds" in e.message for e in snap.errors)
        assert classify(snap).dir_category_apparent.min() >= 0
        result = mlspace_cli("inventory", str(disk / "ws"), "--apparent")
        assert_clean_run(result, 1)  # finished, leaving part of two files' sizes out
        assert "disk0.img" in result.stderr and "more than any disk holds" in result.stderr
        assert "-4.0 EiB" not in result.stdout and "4.0 EiB" in result.stdout


def test_sizes_that_add_up_are_left_alone(tmp_path: Path) -> None:
    with mounted(tmp_path / "disk", "16m") as disk:
        _sparse(disk / "ws", 1, EIB4)
        snap = scan([str(disk / "ws")])
        root = snap.root_entries[0]
        assert snap.totals(root).apparent_size == EIB4 + 5000 + int(snap.apparent[root])
        assert snap.errors == ()
