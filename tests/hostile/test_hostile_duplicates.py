"""Duplicate search reads file contents: a file that became a FIFO, a link to a device or a
link out of the tree after the scan is not opened, not followed, and not called a copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile_helpers import answers_quickly
from layouts import inventory_of, make

from mlspace.advise.duplicates import find_duplicates

SIZE = 256 * 1024


def _swap(path: Path, how: str, outside: Path) -> None:
    path.unlink()
    if how == "fifo":
        os.mkfifo(path)
    elif how == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    else:  # a link to an identical file outside the scanned tree
        path.symlink_to(outside)


@pytest.mark.parametrize("how", ["fifo", "link to /dev/zero", "link outside"])
def test_a_file_swapped_after_the_scan_is_not_read(tmp_path: Path, how: str) -> None:
    """Three identical files; one becomes a FIFO / a link to /dev/zero / a link to an
    identical file outside after the scan: no hang, and only the two real files are copies."""
    blob = os.urandom(SIZE)
    root = make(tmp_path / "ws", {"a/copy1.bin": blob, "b/copy2.bin": blob,
                                  "c/copy3.bin": blob})
    outside = make(tmp_path, {"elsewhere/same.bin": blob}) / "elsewhere/same.bin"
    inv = inventory_of(root)
    _swap(root / "c/copy3.bin", how, outside)
    groups = answers_quickly(find_duplicates, inv, 1024, seconds=10)
    assert [sorted(inv.snapshot.name(e) for e in g) for g in groups] == [
        ["copy1.bin", "copy2.bin"]]


def test_a_file_that_changed_size_since_the_scan_is_not_a_copy(tmp_path: Path) -> None:
    """A candidate that grew after the scan (same edges read at the scanned size would
    still match) is left out rather than compared by stale sizes."""
    blob = os.urandom(SIZE)
    root = make(tmp_path / "ws", {"a/copy1.bin": blob, "b/copy2.bin": blob,
                                  "c/copy3.bin": blob})
    inv = inventory_of(root)
    with open(root / "c/copy3.bin", "ab") as f:
        f.write(b"more")
    groups = find_duplicates(inv, 1024)
    assert [sorted(inv.snapshot.name(e) for e in g) for g in groups] == [
        ["copy1.bin", "copy2.bin"]]
