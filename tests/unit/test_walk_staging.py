"""A cluster scan's staging folder goes at the end with the parts left in it, and nothing
else: not a file of another name, not what a link swapped in for the folder points to."""

from __future__ import annotations

import os
from pathlib import Path

from mlspace.cli.walk_staging import walk_staging


def test_the_folder_goes_with_the_parts_left_in_it(tmp_path: Path) -> None:
    with walk_staging(str(tmp_path)) as staging:
        assert os.path.dirname(staging) == str(tmp_path) and os.path.isdir(staging)
        Path(staging, "walk-0a1b.parquet").write_bytes(b"part")
        Path(staging, "walk-2c3d.parquet").write_bytes(b"part")
    assert os.listdir(tmp_path) == []


def test_a_file_of_another_name_keeps_the_folder(tmp_path: Path) -> None:
    with walk_staging(str(tmp_path)) as staging:
        Path(staging, "walk-0a1b.parquet").write_bytes(b"part")
        Path(staging, "notes.txt").write_text("someone's")
    assert os.listdir(staging) == ["notes.txt"]


def test_a_folder_swapped_for_a_link_is_left_and_what_it_points_to_untouched(
        tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "walk-precious.parquet").write_bytes(b"not ours")
    out = tmp_path / "out"
    out.mkdir()
    with walk_staging(str(out)) as staging:
        os.rmdir(staging)
        os.symlink(elsewhere, staging)
    assert (elsewhere / "walk-precious.parquet").read_bytes() == b"not ours"
    assert os.path.islink(staging)


def test_a_folder_swapped_for_another_is_left_alone(tmp_path: Path) -> None:
    with walk_staging(str(tmp_path)) as staging:
        os.rename(staging, tmp_path / "ours-moved")
        os.mkdir(staging)
        Path(staging, "walk-theirs.parquet").write_bytes(b"not ours")
    assert Path(staging, "walk-theirs.parquet").read_bytes() == b"not ours"


def test_a_link_among_the_parts_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "target.parquet"
    target.write_bytes(b"kept")
    out = tmp_path / "out"
    out.mkdir()
    with walk_staging(str(out)) as staging:
        os.symlink(target, Path(staging, "walk-link.parquet"))
    assert target.read_bytes() == b"kept" and os.listdir(out) == []
