"""Files that are not saved scans mlspace can read: a message, exit 2, never a traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from index_helpers import mlspace, scan_of
from trees import make_awkward_tree

from mlspace.cli import main
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_write import write_parquet


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("good")
    path = folder / "scan.parquet"
    write_parquet(str(path), scan_of(make_awkward_tree(folder / "ws")),
                  ScanInfo.here(time.time()))
    return path


def _refused(path: Path, reason: str, capsys: pytest.CaptureFixture[str],
             command: str = "inventory") -> None:
    code = main([command, str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"mlspace: cannot open {path}: "), err
    assert reason in err, err
    assert "Traceback" not in err


def _rewritten(good: Path, target: Path, table: pa.Table | None = None,
               document: dict | None = None) -> Path:
    """``good`` with its rows or its metadata document replaced."""
    handle = pq.ParquetFile(good)
    doc = json.loads(handle.schema_arrow.metadata[b"mlspace"])
    with pq.ParquetWriter(target, (table or handle.read()).schema, store_schema=False) as w:
        w.write_table(table if table is not None else handle.read())
        w.add_key_value_metadata({b"mlspace": json.dumps(document or doc).encode()})
    return target


def test_random_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.parquet"
    bad.write_bytes(b"\x00garbage" * 100)
    _refused(bad, "not a Parquet file, or a truncated one", capsys)


@pytest.mark.parametrize("keep", [0.2, 0.5, 0.9, 0.99])
def test_truncated(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                   keep: float) -> None:
    data = good.read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(data[: int(len(data) * keep)])
    _refused(cut, "", capsys)


def test_a_parquet_file_that_is_not_a_scan(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), other)
    _refused(other, "a Parquet file, but not a scan saved by mlspace", capsys)


def test_a_newer_format_version(good: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(pq.ParquetFile(good).schema_arrow.metadata[b"mlspace"])
    newer = _rewritten(good, tmp_path / "newer.parquet", document={**doc, "version": 2})
    _refused(newer, "saved by a newer mlspace (format version 2", capsys)


def test_metadata_that_lies(good: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(pq.ParquetFile(good).schema_arrow.metadata[b"mlspace"])
    wrong_count = _rewritten(good, tmp_path / "a.parquet",
                             document={**doc, "entries": doc["entries"] + 1})
    _refused(wrong_count, "entries", capsys)
    artifacts = [{"id": "x", "kind": "k", "category": "other", "entry": 10**9,
                  "entries": [10**9], "path": "/x", "name": "x", "tool": None,
                  "disk_usage": 0, "apparent_size": 0, "files": 0, "newest_mtime": 0.0,
                  "is_dir": False}]
    out_of_range = _rewritten(good, tmp_path / "b.parquet", document={
        **doc, "inventory": {**doc["inventory"], "artifacts": artifacts}})
    _refused(out_of_range, "names rows the scan lacks", capsys)
    badly_typed = _rewritten(good, tmp_path / "c.parquet", document={
        **doc, "inventory": {**doc["inventory"], "series": [{"id": 3}]}})
    _refused(badly_typed, "the saved inventory is damaged", capsys)


def test_rows_out_of_order(good: Path, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    table = pq.read_table(good)
    parents = table["parent"].to_pylist()
    swapped = table.set_column(0, "parent", pa.array(parents[:1] + [len(parents) - 1]
                                                     + parents[2:], type=pa.int64()))
    _refused(_rewritten(good, tmp_path / "order.parquet", swapped), "parent", capsys)


def test_a_name_with_a_slash(good: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    table = pq.read_table(good)
    names = table["name"].to_pylist()
    names[-1] = b"a/b"
    renamed = table.set_column(1, "name", pa.array(names, type=pa.binary()))
    _refused(_rewritten(good, tmp_path / "slash.parquet", renamed), "a name holds a '/'",
             capsys)


def test_an_unknown_category(good: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    table = pq.read_table(good)
    values = ["weights"] * table.num_rows
    index = table.schema.get_field_index("category")
    odd = table.set_column(index, "category", pa.array(values).dictionary_encode())
    _refused(_rewritten(good, tmp_path / "cat.parquet", odd), "unknown category 'weights'",
             capsys)


def test_every_command_says_so_as_a_program(tmp_path: Path) -> None:
    bad = tmp_path / "x.parquet"
    bad.write_bytes(b"PAR1 and then nothing")
    for command in (["scan"], ["inventory"], ["plan"], ["report", "-o", str(tmp_path / "r.md")],
                    ["clean", "--apply", "x", "--dry-run"]):
        result = mlspace(command[0], str(bad), *command[1:])
        assert result.returncode == 2, (command, result.stderr)
        assert f"mlspace: cannot open {bad}:" in result.stderr
        assert "Traceback" not in result.stderr
    result = mlspace("diff", str(bad), str(bad))
    assert result.returncode == 2 and "cannot open" in result.stderr


def test_mlspaces_own_json_listing_says_what_it_is_and_how_to_keep_a_scan(
        tmp_path: Path) -> None:
    """`scan -o x.json` writes a listing to read, not a scan to open: opening it said "not
    a valid ncdu export: it does not start with '['"."""
    make_awkward_tree(tmp_path / "ws")
    listing = tmp_path / "x.json"
    written = mlspace("scan", str(tmp_path / "ws"), "-o", str(listing))
    assert written.returncode == 0, written.stderr
    assert f"mlspace: scan written to {listing} (json)" in written.stderr
    reopened = mlspace("inventory", str(listing))
    assert reopened.returncode == 2
    assert "a JSON document, not ncdu's export" in reopened.stderr
    assert "-o FILE.parquet" in reopened.stderr
