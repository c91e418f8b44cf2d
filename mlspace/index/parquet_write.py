"""Write a classified scan as mlspace's Parquet index: one row per entry, the scan's facts and
the inventory's conclusions as JSON in the file's metadata (key ``mlspace``).

Rows are in scan order (the roots, then each listed folder's entries together), so reading
them back needs no sort. Sizes are what each entry adds to a total: a second path to a
hard-linked file has disk_usage and apparent_size 0, so ``sum(disk_usage)`` over any
selection, in any tool, counts each inode once, as mlspace and du do.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mlspace.classify import Category, Inventory
from mlspace.index.info import ScanInfo
from mlspace.index.inventory_codec import encode_inventory
from mlspace.index.json_slices import dumps_in_slices
from mlspace.index.parquet_schema import (
    COLUMNS,
    FORMAT_NAME,
    FORMAT_VERSION,
    KIND_BY_CODE,
    KIND_NAMES,
    METADATA_KEY,
)
from mlspace.report.listing import totals_record
from mlspace.report.records import category_records
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: zstd's fastest positive level: negative ones made the file a fifth larger here and were
#: hardly faster (the encoding, not the compression, takes most of the time).
_ZSTD_LEVEL = 1
#: Text columns with few distinct values, stored as a dictionary and runs of its indices
#: (numbers compress about as well without one, and are written faster).
_DICTIONARY = ["kind", "category", "artifact"]
#: Folder rows grow slowly and inodes mostly climb: their deltas pack tighter and faster
#: than zstd alone. Times split into byte streams compress about three times faster than
#: plain doubles, for a quarter more bytes (names compress best as plain values).
_ENCODINGS = {"parent": "DELTA_BINARY_PACKED", "inode": "DELTA_BINARY_PACKED",
              "mtime": "BYTE_STREAM_SPLIT"}
#: Version 2 data pages, written in large batches: a sixth faster to write here, read alike.
_PAGES: dict[str, Any] = {"data_page_version": "2.0", "write_batch_size": 1 << 16}
#: Rows per row group (pyarrow's default): a reader can take a large scan a group at a time.
ROW_GROUP = 1 << 20


def write_parquet(path: str, inventory: Inventory, info: ScanInfo) -> None:
    """Write the scan to ``path`` (callers write beside the final name and move the file in
    place, so an interrupted save never leaves a truncated file under it). The metadata
    document is made in a second thread while pyarrow, which lets go of the interpreter,
    writes the columns: on two cores that hides most of its cost."""
    table = entry_table(inventory)
    with ThreadPoolExecutor(1) as pool:
        document = pool.submit(metadata_document, inventory, info)
        with index_writer(path, table.schema) as writer:
            writer.write_table(table, row_group_size=ROW_GROUP)
            writer.add_key_value_metadata({METADATA_KEY: document.result()})


def index_writer(path: str, schema: pa.Schema, **options: Any) -> pq.ParquetWriter:
    """A writer with the index's encodings (the one file's and a dataset's parts alike).
    Without the Arrow schema in the footer: it would hold the metadata document twice."""
    return pq.ParquetWriter(path, schema, compression="zstd", compression_level=_ZSTD_LEVEL,
                            use_dictionary=_DICTIONARY, column_encoding=_ENCODINGS,
                            store_schema=False, write_statistics=False, **_PAGES, **options)


def metadata_document(inventory: Inventory, info: ScanInfo) -> bytes:
    """scan_metadata as the compact UTF-8 JSON stored under METADATA_KEY (made in slices:
    the app saves a scan in a thread while its window runs)."""
    return dumps_in_slices(scan_metadata(inventory, info)).encode("utf-8")


def entry_table(inventory: Inventory) -> pa.Table:
    """The per-entry columns (see parquet_schema.COLUMNS), in scan order."""
    snap = inventory.snapshot
    counted = snap.counted
    owners = inventory.artifact_of_entries()
    columns = {
        "parent": _numbers(np.append(snap.dir_entry, -1)[snap.all_parent_rows()], pa.int64()),
        "name": _names(snap),
        "kind": _kinds(snap.kind),
        "disk_usage": _numbers(np.where(counted, snap.disk_sizes(), 0), pa.int64()),
        "apparent_size": _numbers(np.where(counted, snap.apparent, 0), pa.int64()),
        "mtime": _numbers(snap.mtime, pa.float64()),
        "inode": _numbers(snap.ino, pa.uint64()),
        "nlink": _numbers(snap.nlink, pa.uint16()),
        "uid": _numbers(snap.uid, pa.uint32()),
        "category": pa.DictionaryArray.from_arrays(
            _numbers(inventory.categories, pa.int8()), [c.id for c in Category]),
        "artifact": pa.DictionaryArray.from_arrays(
            _numbers(owners, pa.int32(), missing=owners < 0),
            pa.array([a.id for a in inventory.artifacts], type=pa.string())),
    }
    return pa.table([columns[name] for name in COLUMNS], names=list(COLUMNS))


def _numbers(values: np.ndarray, kind: pa.DataType, missing: np.ndarray | None = None
             ) -> pa.Array:
    """A numpy column as an Arrow array over the same memory where the types agree (built
    from its buffers: pa.array's conversion costs 10 ms the first time it runs)."""
    data = np.ascontiguousarray(values, dtype=kind.to_pandas_dtype())
    validity = None if missing is None else pa.py_buffer(np.packbits(~missing,
                                                                     bitorder="little"))
    return pa.Array.from_buffers(kind, len(data), [validity, pa.py_buffer(data)],
                                 null_count=0 if missing is None else int(missing.sum()))


def scan_metadata(inventory: Inventory, info: ScanInfo) -> dict[str, Any]:
    """The JSON document under the ``mlspace`` key (documented in docs/saved-scans.md)."""
    snap = inventory.snapshot
    is_dir = snap.kind == KIND_DIR
    listed = np.zeros(len(snap), dtype=bool)
    listed[snap.dir_entry] = True
    parent_dev = np.append(snap.dir_dev, -1)[snap.dir_parent]
    changed = snap.dir_dev != parent_dev  # roots always: their parent reads -1
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "program": info.program,
        "roots": list(snap.roots),
        "host": info.host,
        "user": info.user,
        "started": info.started,
        "finished": info.finished,
        "duration": snap.duration,
        "cancelled": snap.cancelled,
        "options": info.options,
        "entries": len(snap),
        "totals": totals_record(snap),
        "categories": category_records(inventory),
        "errors": [{"path": e.path, "error": e.message} for e in snap.errors],
        "other_filesystems": list(snap.other_filesystems),
        "unlisted": np.flatnonzero(is_dir & ~listed).tolist(),
        "devices": [[int(e), int(d)] for e, d in zip(snap.dir_entry[changed].tolist(),
                                                     snap.dir_dev[changed].tolist(),
                                                     strict=True)],
        "inventory": encode_inventory(inventory),
    }


def _names(snap: Snapshot) -> pa.Array:
    """The raw names as a binary column: the snapshot's buffer without its NUL separators."""
    buffer = np.frombuffer(snap.name_buffer, dtype=np.uint8)
    offsets = snap.name_offsets.astype(np.int64)
    data = np.delete(buffer, offsets[1:] - 1) if len(buffer) else buffer
    starts = offsets - np.arange(len(offsets))
    large = len(data) >= 2**31
    kind = pa.large_binary() if large else pa.binary()
    starts = starts.astype(np.int64 if large else np.int32)
    return pa.Array.from_buffers(kind, len(snap), [None, pa.py_buffer(starts),
                                                   pa.py_buffer(data)])


def _kinds(kind: np.ndarray) -> pa.Array:
    lookup = np.full(16, len(KIND_NAMES) - 1, dtype=np.int8)  # "other"
    for position, code in enumerate(KIND_BY_CODE):
        lookup[code] = position
    return pa.DictionaryArray.from_arrays(_numbers(lookup[kind & 0xF], pa.int8()),
                                          list(KIND_NAMES))
