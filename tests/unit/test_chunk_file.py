"""A walked chunk written as a Parquet part (how a cluster worker hands its walk over) reads
back as the same chunk, and a scan merged from parts equals one merged from the chunks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from trees import NON_UTF8_NAME, make_awkward_tree, write

from mlspace.scan.build import SnapshotBuilder
from mlspace.scan.chunk_file import DamagedPart, read_chunk, write_chunk
from mlspace.scan.walker import DirTask, WalkChunk, walk

FIELDS = ("names", "kind", "size", "blocks", "mtime", "ino", "nlink", "uid", "dirs",
          "dir_paths", "pending", "errors", "other_filesystems", "last_dir")


def assert_same_chunk(back: WalkChunk, chunk: WalkChunk) -> None:
    for name in FIELDS:
        if name == "names":  # one block or many: the same names in the same order
            assert b"\0".join(back.names) == b"\0".join(chunk.names)
        else:
            assert getattr(back, name) == getattr(chunk, name), name


def root_task(root: Path) -> tuple[SnapshotBuilder, DirTask]:
    builder = SnapshotBuilder()
    task = builder.add_root(str(root))
    assert task is not None
    return builder, task


def test_a_walk_with_odd_names_errors_and_pending_folders_round_trips(tmp_path: Path) -> None:
    root = make_awkward_tree(tmp_path / "ws")
    locked = root / "locked"
    write(locked / "inside.bin", 10)
    locked.chmod(0)
    try:
        _, task = root_task(root)
        chunk = walk([task], 7)  # a budget that leaves folders pending
        part = str(tmp_path / "part-0.parquet")
        write_chunk(chunk, part)
        back = read_chunk(part)
    finally:
        locked.chmod(0o755)
    assert chunk.pending, "the budget should have left folders for another task"
    assert_same_chunk(back, chunk)
    assert not os.path.exists(part + ".partial")


def test_merging_parts_gives_the_snapshot_merging_the_chunks_gives(tmp_path: Path) -> None:
    root = make_awkward_tree(tmp_path / "ws")
    for i in range(5):  # one inode under several folders: counted once either way
        os.link(root / "sparse.img", root / f"link-{i}.img") if i == 0 else \
            write(root / f"d{i}" / "x.bin", 100 * i)
    direct, task = root_task(root)
    via_parts, _ = root_task(root)
    work, number = [task], 0
    while work:
        chunk = walk(work, 3)
        part = str(tmp_path / f"part-{number}.parquet")
        write_chunk(chunk, part)
        number += 1
        work = direct.merge(chunk)
        assert via_parts.merge(read_chunk(part)) == work
    a, b = direct.freeze(0.0), via_parts.freeze(0.0)
    assert bytes(a.name_buffer) == bytes(b.name_buffer)
    assert NON_UTF8_NAME in bytes(b.name_buffer)
    for column in ("kind", "apparent", "blocks", "mtime", "ino", "nlink", "uid", "counted",
                   "dir_entry", "dir_disk", "dir_apparent"):
        assert (getattr(a, column) == getattr(b, column)).all(), column
    assert a.grand_totals() == b.grand_totals()


def test_an_empty_walk_round_trips(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _, task = root_task(tmp_path / "empty")
    chunk = walk([task], 100)
    write_chunk(chunk, str(tmp_path / "p.parquet"))
    assert_same_chunk(read_chunk(str(tmp_path / "p.parquet")), chunk)


def test_a_part_that_is_not_a_workers_is_refused(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), other)
    truncated = tmp_path / "truncated.parquet"
    (tmp_path / "empty").mkdir()
    _, task = root_task(tmp_path / "empty")
    write_chunk(walk([task], 10), str(truncated))
    truncated.write_bytes(truncated.read_bytes()[:-20])
    fifo = tmp_path / "fifo.parquet"
    os.mkfifo(fifo)  # opening it would block until a writer came
    link = tmp_path / "link.parquet"
    link.symlink_to(other)
    for path in (other, truncated, tmp_path / "missing.parquet", fifo, link):
        with pytest.raises(DamagedPart):
            read_chunk(str(path))
