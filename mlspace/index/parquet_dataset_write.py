"""Write a saved scan as a Parquet dataset (the layout is described in parquet_dataset)."""

from __future__ import annotations

import contextlib
import os
import uuid
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.parquet as pq

from mlspace.classify import Inventory
from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_dataset import (
    PART_PREFIX,
    PART_SUFFIX,
    has_summary,
    listed_parts,
)
from mlspace.index.parquet_schema import FORMAT_NAME, METADATA_KEY
from mlspace.index.parquet_write import ROW_GROUP, entry_table, index_writer, metadata_document
from mlspace.index.sniff import DATASET_MARKER, DATASET_SUMMARY

#: Rows per part: one row group each.
PART_ROWS = ROW_GROUP


def write_dataset(folder: str, inventory: Inventory, info: ScanInfo) -> None:
    """Write the scan into ``folder`` (which exists) as a dataset, replacing the one there."""
    earlier = _earlier_parts(folder)
    table = entry_table(inventory)
    tag = uuid.uuid4().hex[:8]
    footers: list[pq.FileMetaData] = []
    written: list[str] = []
    with ThreadPoolExecutor(1) as pool:
        document = pool.submit(metadata_document, inventory, info)
        try:
            for number, start in enumerate(range(0, max(1, table.num_rows), PART_ROWS)):
                name = f"{PART_PREFIX}{number:05d}-{tag}{PART_SUFFIX}"
                written.append(name)
                with index_writer(os.path.join(folder, name), table.schema,
                                  metadata_collector=footers) as writer:
                    writer.write_table(table.slice(start, PART_ROWS), row_group_size=PART_ROWS)
                footers[-1].set_file_path(name)
            _write_summary(folder, table.schema, footers, document.result())
        except BaseException:
            for name in written:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
            raise
    for name in earlier - set(written):
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))


def _earlier_parts(folder: str) -> set[str]:
    """The parts of the dataset being replaced; none when its _metadata cannot be read
    (then nothing is removed: only files a readable summary lists are known to be ours)."""
    if not has_summary(folder):
        return set()
    try:
        return set(listed_parts(folder))
    except (CannotOpen, pa.ArrowException, OSError):
        return set()


def _write_summary(folder: str, schema: pa.Schema, footers: list[pq.FileMetaData],
                   document: bytes) -> None:
    """_metadata: every part's row groups, the document, then the marker; moved in place."""
    partial = os.path.join(folder, DATASET_SUMMARY + ".partial")
    try:
        with index_writer(partial, schema) as writer:
            writer.add_key_value_metadata({METADATA_KEY: document,
                                           DATASET_MARKER: FORMAT_NAME.encode()})
        summary = pq.read_metadata(partial)
        for footer in footers:
            summary.append_row_groups(footer)
        summary.write_metadata_file(partial)
        os.replace(partial, os.path.join(folder, DATASET_SUMMARY))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
