"""Saved scans are data: sizes that cannot be true and compressed exports that inflate
without end are refused with the reason, in bounded time and memory, never shown as a
negative total. Through the CLI, as a user opening a file someone shared meets it."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_helpers import assert_clean_run, mlspace_cli
from workspaces import hf_run

from mlspace.classify import classify
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_write import write_parquet
from mlspace.scan import scan

EIB4 = 2**62  # 4 EiB: three of them add up to 12 EiB, which wraps to -4 EiB in 64 bits


def _ncdu(path: Path, sizes: list[int]) -> Path:
    entries = [{"name": f"f{n}", "asize": size, "dsize": size, "ino": n + 2}
               for n, size in enumerate(sizes)]
    doc = [1, 2, {"progname": "ncdu", "progver": "2.3", "timestamp": 1700000000},
           [{"name": "/data/shared", "asize": 4096, "dsize": 4096, "ino": 1}, *entries]]
    path.write_text(json.dumps(doc))
    return path


def _saved(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    hf_run(root)
    path = tmp_path / "scan.parquet"
    write_parquet(str(path), classify(scan([str(root)])), ScanInfo.here(time.time()))
    return path


def _rewritten(good: Path, target: Path, table: pa.Table | None = None,
               document: dict | None = None) -> Path:
    handle = pq.ParquetFile(good)
    doc = json.loads(handle.schema_arrow.metadata[b"mlspace"])
    rows = table if table is not None else handle.read()
    with pq.ParquetWriter(target, rows.schema, store_schema=False) as writer:
        writer.write_table(rows)
        writer.add_key_value_metadata({b"mlspace": json.dumps(document or doc).encode()})
    return target


# -------------------------------------------------------------------------- absurd sizes
@pytest.mark.parametrize("command", ["inventory", "scan", "report"])
def test_ncdu_sizes_adding_up_past_8_eib_are_refused(tmp_path: Path, command: str) -> None:
    export = _ncdu(tmp_path / "shared.json", [EIB4, EIB4, EIB4])
    extra = ["-o", str(tmp_path / "r.json")] if command == "report" else []
    result = mlspace_cli(command, str(export), *extra)
    assert_clean_run(result, 2)
    assert f"mlspace: cannot open {export}: its entries' sizes add up to 12.0 EiB on disk" \
        in result.stderr
    assert "-4.0 EiB" not in result.stdout + result.stderr


def test_one_entry_of_the_largest_size_is_refused_not_wrapped(tmp_path: Path) -> None:
    """2**63 - 1 bytes rounded up to whole 512-byte blocks wrapped to a negative size."""
    export = _ncdu(tmp_path / "shared.json", [2**63 - 1])
    result = mlspace_cli("inventory", str(export))
    assert_clean_run(result, 2)
    assert "add up to 8.0 EiB on disk, more than mlspace counts" in result.stderr


def test_large_but_possible_sizes_still_open(tmp_path: Path) -> None:
    export = _ncdu(tmp_path / "shared.json", [EIB4, 2**61])  # 6 EiB of sparse files
    result = mlspace_cli("inventory", str(export), "--format", "json")
    assert_clean_run(result)
    assert json.loads(result.stdout)["totals"]["apparent_size"] == EIB4 + 2**61 + 4096


def test_parquet_rows_of_2_62_bytes_are_refused(tmp_path: Path) -> None:
    good = _saved(tmp_path)
    table = pq.read_table(good)
    disk = table.column("disk_usage").to_pylist()
    files = [i for i, kind in enumerate(table.column("kind").to_pylist()) if kind == "file"]
    for i in files[:3]:
        disk[i] = EIB4
    forged = _rewritten(good, tmp_path / "forged.parquet", table.set_column(
        table.schema.get_field_index("disk_usage"), "disk_usage", pa.array(disk, pa.int64())))
    for command in (["inventory", str(forged)], ["report", str(forged), "-o",
                                                  str(tmp_path / "r.html")]):
        result = mlspace_cli(*command)
        assert_clean_run(result, 2)
        assert "its entries' sizes add up to 12.0 EiB on disk" in result.stderr


def test_a_saved_run_larger_than_its_scan_is_refused(tmp_path: Path) -> None:
    """The saved conclusions carry sizes too: a run of 4 EiB in a scan of 200 KiB."""
    good = _saved(tmp_path)
    doc = json.loads(pq.ParquetFile(good).schema_arrow.metadata[b"mlspace"])
    doc["inventory"]["runs"][0]["disk_usage"] = EIB4
    forged = _rewritten(good, tmp_path / "forged.parquet", document=doc)
    result = mlspace_cli("inventory", str(forged))
    assert_clean_run(result, 2)
    assert f"has disk_usage {EIB4:,}, outside the scan's 0 to" in result.stderr


# ---------------------------------------------------------------------- compressed bombs
def test_a_gzip_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """A 3 MB .json.gz that inflates to 3 GiB (48 gzip members of 64 MiB of spaces each,
    inside a valid export's brackets) kept `inventory` busy for minutes and took GiBs."""
    bomb = tmp_path / "shared.json.gz"
    spaces = gzip.compress(b" " * (64 << 20), 9)
    with bomb.open("wb") as out:
        out.write(gzip.compress(b'[1,2,{"progname":"ncdu"},\n[{"name":"/data"},'))
        for _ in range(48):
            out.write(spaces)
        out.write(gzip.compress(b'{"name":"a","asize":1}]]'))
    assert bomb.stat().st_size < 8 << 20
    result = mlspace_cli("inventory", str(bomb), timeout=60)
    assert_clean_run(result, 2)  # under the 4 GiB memory cap of mlspace_cli: never inflated
    assert f"mlspace: cannot open {bomb}: its gzip data inflates to more than 200 times " \
           "its size" in result.stderr


def test_a_real_export_in_gzip_members_and_padding_opens(tmp_path: Path) -> None:
    """pigz and concatenated files write several members; some tools pad with zeros."""
    plain = _ncdu(tmp_path / "e.json", [1000, 2000]).read_bytes()
    packed = tmp_path / "e.json.gz"
    packed.write_bytes(gzip.compress(plain[:40]) + gzip.compress(plain[40:]) + b"\0" * 512)
    result = mlspace_cli("inventory", str(packed), "--format", "json")
    assert_clean_run(result)
    assert json.loads(result.stdout)["totals"]["apparent_size"] == 4096 + 3000


@pytest.mark.parametrize("damage", ["cut", "garbage-after"])
def test_damaged_gzip_is_a_message(tmp_path: Path, damage: str) -> None:
    data = gzip.compress(_ncdu(tmp_path / "e.json", [1000]).read_bytes())
    packed = tmp_path / "e.json.gz"
    packed.write_bytes(data[:-10] if damage == "cut" else data + b"not gzip")
    result = mlspace_cli("inventory", str(packed))
    assert_clean_run(result, 2)
    assert "damaged gzip data" in result.stderr
