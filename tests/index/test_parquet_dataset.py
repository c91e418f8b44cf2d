"""A scan saved as a Parquet dataset (a folder of parts and _metadata) opens as the same scan
the one-file index holds, other tools read its rows, rewriting it is all or nothing, and a
damaged or hostile dataset is refused with a reason, never hanging on what it names."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pa_dataset
import pyarrow.parquet as pq
import pytest
from index_helpers import assert_same_inventory, mlspace, rich_workspace, scan_of
from trees import write

from mlspace.index import parquet_dataset_write
from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.index.saved import open_saved
from mlspace.index.sniff import DATASET_MARKER, PARQUET, saved_scan_format


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of 40 rows, so a small workspace is saved in many of them."""
    monkeypatch.setattr(parquet_dataset_write, "PART_ROWS", 40)


def saved_dataset(inventory: object, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    parquet_dataset_write.write_dataset(str(folder), inventory, ScanInfo.here(time.time()))
    return folder


def parts_of(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("part-*.parquet"))


@pytest.mark.usefixtures("small_parts")
def test_a_dataset_opens_as_the_scan_it_holds(tmp_path: Path) -> None:
    inventory = scan_of(rich_workspace(tmp_path / "ws"))
    folder = saved_dataset(inventory, tmp_path / "scan.parquet")
    assert len(parts_of(folder)) == -(-len(inventory.snapshot) // 40) > 3
    for named in (folder, folder / "_metadata"):
        assert saved_scan_format(str(named)) == PARQUET
        assert_same_inventory(inventory, open_saved(str(named)).inventory())
    rows = pa_dataset.dataset(str(folder), format="parquet").to_table()  # another tool
    assert rows.num_rows == len(inventory.snapshot)
    assert sum(rows.column("disk_usage").to_pylist()) == \
        inventory.snapshot.grand_totals().disk_usage


def test_an_empty_scan_is_a_dataset_too(tmp_path: Path) -> None:
    inventory = scan_of(tmp_path / "missing")
    folder = saved_dataset(inventory, tmp_path / "empty.parquet")
    assert_same_inventory(inventory, open_saved(str(folder)).inventory())


def test_a_folder_or_another_tools_dataset_is_a_folder_to_scan(tmp_path: Path) -> None:
    write(tmp_path / "plain" / "_metadata", 100)
    other = tmp_path / "spark.parquet"
    other.mkdir()
    collected: list[pq.FileMetaData] = []
    pq.write_table(pa.table({"a": [1, 2]}), other / "part-0.parquet",
                   metadata_collector=collected)
    collected[0].set_file_path("part-0.parquet")
    pq.write_metadata(pa.schema([("a", pa.int64())]), other / "_metadata",
                      metadata_collector=collected)
    assert saved_scan_format(str(tmp_path / "plain")) is None
    assert saved_scan_format(str(other)) is None


@pytest.mark.usefixtures("small_parts")
def test_writing_again_replaces_the_parts_and_leaves_other_files(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / "a.bin", 5000)
    folder = saved_dataset(scan_of(ws), tmp_path / "scan.parquet")
    first = parts_of(folder)
    write(folder / "NOTES.txt", 10)
    write(ws / "b.bin", 7000)
    inventory = scan_of(ws)
    saved_dataset(inventory, folder)
    assert set(parts_of(folder)).isdisjoint(first)
    assert (folder / "NOTES.txt").exists()
    assert_same_inventory(inventory, open_saved(str(folder)).inventory())


@pytest.mark.usefixtures("small_parts")
def test_an_interrupted_write_leaves_the_earlier_dataset_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    earlier = scan_of(rich_workspace(tmp_path / "ws"))
    folder = saved_dataset(earlier, tmp_path / "scan.parquet")
    before = sorted(os.listdir(folder))
    real_writer = parquet_dataset_write.index_writer
    opened: list[str] = []

    def fails_on_the_third_part(path: str, *args: object, **kwargs: object) -> object:
        opened.append(path)
        if len(opened) == 3:
            raise OSError(28, "No space left on device")
        return real_writer(path, *args, **kwargs)

    monkeypatch.setattr(parquet_dataset_write, "index_writer", fails_on_the_third_part)
    with pytest.raises(OSError, match="No space"):
        saved_dataset(scan_of(tmp_path / "ws"), folder)
    assert sorted(os.listdir(folder)) == before
    assert_same_inventory(earlier, open_saved(str(folder)).inventory())


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(parquet_dataset_write, "PART_ROWS", 40)
    return saved_dataset(scan_of(rich_workspace(tmp_path / "ws")), tmp_path / "scan.parquet")


def test_a_missing_part(dataset: Path) -> None:
    (dataset / parts_of(dataset)[1]).unlink()
    with pytest.raises(CannotOpen, match="part .* is missing"):
        open_saved(str(dataset))


def test_a_fifo_or_a_link_in_place_of_a_part_is_not_opened(dataset: Path,
                                                           tmp_path: Path) -> None:
    first, second = (dataset / name for name in parts_of(dataset)[:2])
    first.unlink()
    os.mkfifo(first)  # opening it would block until a writer came
    with pytest.raises(CannotOpen, match="not a regular file"):
        open_saved(str(dataset))
    first.unlink()
    first.symlink_to(second)
    with pytest.raises(CannotOpen, match="not a regular file"):
        open_saved(str(dataset))


def test_a_part_that_changed_since(dataset: Path) -> None:
    first, second = (dataset / name for name in parts_of(dataset)[:2])
    pq.write_table(pq.read_table(second).slice(0, 5), first)
    with pytest.raises(CannotOpen, match="changed after the scan was saved"):
        open_saved(str(dataset))


def test_a_summary_that_points_outside_the_folder(dataset: Path, tmp_path: Path) -> None:
    summary = pq.read_metadata(dataset / "_metadata")
    footer = pq.read_metadata(dataset / parts_of(dataset)[0])
    footer.set_file_path("../elsewhere.parquet")
    with pq.ParquetWriter(dataset / "_metadata", footer.schema.to_arrow_schema(),
                          store_schema=False) as writer:  # the marker last, as mlspace writes
        writer.add_key_value_metadata({b"mlspace": summary.metadata[b"mlspace"],
                                       DATASET_MARKER: b"mlspace-scan"})
    forged = pq.read_metadata(dataset / "_metadata")
    forged.append_row_groups(footer)
    forged.write_metadata_file(dataset / "_metadata")
    with pytest.raises(CannotOpen, match="not a part of the folder"):
        open_saved(str(dataset))


def test_the_cli_writes_and_reads_a_dataset(tmp_path: Path) -> None:
    ws = rich_workspace(tmp_path / "ws")
    out = tmp_path / "out.parquet"
    result = mlspace("scan", str(ws), "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert (out / "_metadata").is_file() and parts_of(out)
    assert not [n for n in os.listdir(out) if n.startswith("_walk")]
    shown = mlspace("inventory", str(out))
    assert shown.returncode == 0, shown.stderr
    fresh = mlspace("inventory", str(ws)).stdout.splitlines()
    assert fresh[0].startswith(os.sep) and " full · " in fresh[0] and fresh[1] == ""
    fresh = fresh[2:]  # the disk line: said of a scan made now, not of a saved one
    assert shown.stdout.splitlines()[1:] == fresh[1:]  # all but the line with the scan time
    again = mlspace("scan", str(ws), "-o", str(out))  # an existing dataset: replaced
    assert again.returncode == 0, again.stderr


def test_the_cli_never_writes_a_dataset_among_other_files(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / "a.bin", 10)
    busy = tmp_path / "busy"
    write(busy / "thesis.tex", 10)
    refused = mlspace("scan", str(ws), "-o", str(busy))
    assert refused.returncode == 2 and "holds other files" in refused.stderr
    assert os.listdir(busy) == ["thesis.tex"]
    write(tmp_path / "a-file", 10)
    assert "not a folder" in mlspace("scan", str(ws), "-o", f"{tmp_path / 'a-file'}/").stderr
    wrong = mlspace("scan", str(ws), "--format", "json", "-o", f"{tmp_path / 'new'}/")
    assert wrong.returncode == 2 and "Parquet dataset" in wrong.stderr
    assert not (tmp_path / "new").exists()
