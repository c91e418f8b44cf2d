"""The saved scan as other tools see it: plain columns whose sums are mlspace's totals.

``SELECT category, sum(disk_usage) FROM 'scan.parquet' GROUP BY 1`` (DuckDB) is checked
here with pyarrow's group_by, which reads the same file the same way."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from index_helpers import rich_workspace, scan_of

from mlspace.classify import Category
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_schema import COLUMNS, FORMAT_NAME, FORMAT_VERSION
from mlspace.index.parquet_write import write_parquet


def _saved(tmp_path: Path) -> tuple[Path, object]:
    inventory = scan_of(rich_workspace(tmp_path / "ws"))
    path = tmp_path / "scan.parquet"
    write_parquet(str(path), inventory, ScanInfo.here(time.time()))
    return path, inventory


def test_sum_by_category_is_mlspace_s_totals(tmp_path: Path) -> None:
    path, inventory = _saved(tmp_path)
    table = pq.read_table(path)
    files = table.filter(pc.not_equal(table["kind"], "dir"))
    disk = {r["category"]: r["disk_usage_sum"] for r in
            table.group_by("category").aggregate([("disk_usage", "sum")]).to_pylist()}
    apparent = {r["category"]: r["apparent_size_sum"] for r in
                table.group_by("category").aggregate([("apparent_size", "sum")]).to_pylist()}
    counts = {r["category"]: r["name_count"] for r in
              files.group_by("category").aggregate([("name", "count")]).to_pylist()}
    totals = inventory.category_totals()
    for category in Category:
        assert disk.get(category.id, 0) == totals[category].disk_usage, category
        assert apparent.get(category.id, 0) == totals[category].apparent_size, category
        assert counts.get(category.id, 0) == totals[category].files, category
    grand = inventory.snapshot.grand_totals()
    assert pc.sum(table["disk_usage"]).as_py() == grand.disk_usage


def test_columns_types_and_metadata(tmp_path: Path) -> None:
    path, inventory = _saved(tmp_path)
    handle = pq.ParquetFile(path)
    assert tuple(handle.schema_arrow.names) == COLUMNS
    schema = handle.schema_arrow
    assert schema.field("name").type == pa.binary()
    assert schema.field("parent").type == pa.int64()
    assert schema.field("inode").type == pa.uint64()
    assert schema.field("uid").type == pa.uint32()
    assert schema.field("mtime").type == pa.float64()
    column = handle.metadata.row_group(0).column(0)
    assert column.compression == "ZSTD"
    doc = json.loads(handle.schema_arrow.metadata[b"mlspace"])
    assert doc["format"] == FORMAT_NAME and doc["version"] == FORMAT_VERSION
    for key in ("roots", "host", "user", "started", "finished", "options", "totals",
                "categories", "errors", "inventory", "entries"):
        assert key in doc, key
    assert doc["entries"] == handle.metadata.num_rows == len(inventory.snapshot)
    assert set(doc["inventory"]) == {"artifacts", "series", "runs", "warnings", "hub_detached"}
    # rows: the roots first (parent -1), then entries after their folder
    parents = pq.read_table(path, columns=["parent"])["parent"].to_pylist()
    assert parents[0] == -1 and all(p < i for i, p in enumerate(parents) if p >= 0)
    # the artifact column names the innermost artifact holding each entry
    table = pq.read_table(path, columns=["artifact"])
    ids = {a.id for a in inventory.artifacts}
    assert {v for v in table["artifact"].to_pylist() if v is not None} <= ids
