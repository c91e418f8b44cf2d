"""Open mlspace's Parquet index: the entries back into a Snapshot, the inventory back from
what was concluded when it was saved. Nothing on the scanned disk is read.

Anything unexpected (not Parquet, truncated, someone else's Parquet, a newer format version,
columns of the wrong type, a damaged metadata document) is a CannotOpen with the reason.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mlspace.classify import Category, Inventory
from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.index.inventory_codec import decode_conclusions, decode_inventory
from mlspace.index.parquet_dataset import (
    check_part,
    dataset_folder,
    listed_parts,
    part_rows,
    summary_path,
)
from mlspace.index.parquet_schema import (
    CODE_BY_KIND,
    FORMAT_NAME,
    FORMAT_VERSION,
    METADATA_KEY,
)
from mlspace.index.rebuild import EntryColumns, ScanFacts, blocks_of, rebuild_snapshot
from mlspace.index.sniff import DATASET_SUMMARY
from mlspace.scan import ScanError, Snapshot

#: The columns read back, with their types (the artifact column is for other tools: the
#: inventory in the metadata says the same).
_READ = {"parent": pa.int64(), "name": None, "kind": None, "disk_usage": pa.int64(),
         "apparent_size": pa.int64(), "mtime": pa.float64(), "inode": pa.uint64(),
         "nlink": pa.uint16(), "uid": pa.uint32(), "category": None}
#: Read back as dictionaries (codes), not as one string per entry.
_DICTIONARIES = ["kind", "category"]


def read_metadata(path: str) -> dict[str, Any]:
    """The ``mlspace`` document of a saved scan, checked to be one this mlspace reads (only
    the file's footer, or a dataset's _metadata, is read)."""
    return _document(_open(_footer_file(path)))


def read_parquet(path: str) -> tuple[Snapshot, Inventory, ScanInfo]:
    """The scan saved at ``path`` (one file, or a dataset named by its folder or its
    _metadata): its snapshot, its inventory and who made it, when."""
    handle = _open(_footer_file(path))
    doc = _document(handle)
    conclusions = decode_conclusions(doc["inventory"])
    try:
        table = _entries(path, handle)
        columns, categories = _columns(table)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise CannotOpen(f"damaged data ({_first_line(err)})") from None
    facts = _facts(doc, len(columns))
    snapshot = rebuild_snapshot(columns, facts)
    if list(snapshot.roots) != doc["roots"]:
        raise CannotOpen("the scanned folders in the rows and in the metadata differ")
    return snapshot, decode_inventory(conclusions, snapshot, categories), _info(doc)


def _footer_file(path: str) -> str:
    """Where the document is: the file itself, or a dataset's _metadata."""
    return summary_path(path) if _is_dataset(path) else path


def _is_dataset(path: str) -> bool:
    return os.path.isdir(path) or os.path.basename(path) == DATASET_SUMMARY


def _entries(path: str, handle: pq.ParquetFile) -> pa.Table:
    names = set(handle.schema_arrow.names)
    missing = [c for c in _READ if c not in names]
    if missing:
        raise CannotOpen(f"the column{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing")
    if _is_dataset(path):
        return _dataset_entries(dataset_folder(path), handle)
    # Opened again with the dictionary columns kept as dictionaries (the footer is reused).
    handle = pq.ParquetFile(path, metadata=handle.metadata, read_dictionary=_DICTIONARIES)
    return handle.read(columns=list(_READ), use_threads=True)


def _dataset_entries(folder: str, summary: pq.ParquetFile) -> pa.Table:
    """The rows of the parts _metadata lists, in order, each checked to hold the rows it
    held when the dataset was written."""
    parts = listed_parts(folder, summary.metadata)
    if not parts:  # a scan of nothing: _metadata alone is a valid, empty table
        return summary.read(columns=list(_READ))
    rows = part_rows(summary.metadata)
    tables = []
    for name in parts:
        part = pq.ParquetFile(check_part(folder, name), read_dictionary=_DICTIONARIES)
        if part.metadata.num_rows != rows[name]:
            raise CannotOpen(f"its part {name} changed after the scan was saved")
        tables.append(part.read(columns=list(_READ), use_threads=True))
    return pa.concat_tables(tables)


def _open(path: str) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError, ValueError) as err:
        if "magic bytes" in str(err):
            raise CannotOpen("not a Parquet file, or a truncated one (no Parquet footer "
                             "at its end)") from None
        raise CannotOpen(f"not a readable Parquet file ({_first_line(err)})") from None


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def _document(handle: pq.ParquetFile) -> dict[str, Any]:
    raw = (handle.schema_arrow.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise CannotOpen("a Parquet file, but not a scan saved by mlspace "
                         f"(no {METADATA_KEY.decode()!r} metadata)")
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise CannotOpen("its mlspace metadata is not valid JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise CannotOpen("its mlspace metadata does not describe a saved scan")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CannotOpen("its format version is missing")
    if version > FORMAT_VERSION:
        raise CannotOpen(f"saved by a newer mlspace (format version {version}; this one "
                         f"reads version {FORMAT_VERSION} and older)")
    if version < 1:
        raise CannotOpen(f"unknown format version {version}")
    for key, kind in (("roots", list), ("entries", int), ("inventory", dict)):
        if not isinstance(doc.get(key), kind):
            raise CannotOpen(f"its mlspace metadata lacks {key!r}")
    if not all(isinstance(r, str) for r in doc["roots"]):
        raise CannotOpen("its mlspace metadata names a root that is not text")
    return doc


def _columns(table: pa.Table) -> tuple[EntryColumns, np.ndarray]:
    n = table.num_rows
    table = table.unify_dictionaries()  # each row group has a dictionary of its own
    plain = {}
    for name, kind in _READ.items():
        column = table.column(name)
        if column.null_count:
            raise ValueError(f"the {name} column has empty cells")
        if kind is not None:
            if column.type != kind:  # another writer's types (cast imports pyarrow.compute)
                column = column.cast(kind)
            plain[name] = _one_array(column).to_numpy()  # no copy: one chunk, no nulls
    names, offsets = _names(table.column("name"), n)
    disk = plain["disk_usage"]
    if np.any(disk < 0):
        raise CannotOpen("an entry has a negative size")
    columns = EntryColumns(
        names=names,
        name_offsets=offsets,
        parent=plain["parent"],
        kind=_codes(table.column("kind"), CODE_BY_KIND, np.uint8, "kind"),
        apparent=plain["apparent_size"],
        blocks=blocks_of(disk),
        mtime=plain["mtime"],
        ino=plain["inode"],
        nlink=plain["nlink"],
        uid=plain["uid"],
    )
    category_ids = {c.id: int(c) for c in Category}
    return columns, _codes(table.column("category"), category_ids, np.uint8, "category")


def _names(column: pa.ChunkedArray, n: int) -> tuple[memoryview, np.ndarray]:
    """The binary name column as the snapshot's buffer: each name followed by NUL, put in
    with one numpy insert (far faster than joining a million bytes objects)."""
    if not (pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type)):
        column = column.cast(pa.large_binary())  # text from another writer: its UTF-8 bytes
    array = _one_array(column)
    buffers = array.buffers()
    wide = pa.types.is_large_binary(array.type)
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if wide else np.int32)
    offsets = offsets[array.offset : array.offset + n + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else \
        np.zeros(0, dtype=np.uint8)
    data = data[offsets[0] : offsets[-1]]
    offsets -= offsets[0]
    return memoryview(np.insert(data, offsets[1:], 0)), offsets + np.arange(n + 1)


def _one_array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array (combining chunks loads pyarrow.compute, a tenth of a
    second: only a scan of more than a row group pays for it)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _codes(column: pa.ChunkedArray, codes: dict[str, int], dtype: type, what: str
           ) -> np.ndarray:
    """A dictionary column (kind, category) as codes, refusing values mlspace does not know."""
    array = _one_array(column)
    if not pa.types.is_dictionary(array.type):
        array = array.dictionary_encode()
    values = array.dictionary.to_pylist()
    unknown = sorted({str(v) for v in values if v not in codes})
    if unknown:
        raise ValueError(f"unknown {what} {unknown[0]!r}")
    lookup = np.array([codes[v] for v in values] or [0], dtype=dtype)
    return lookup[array.indices.to_numpy(zero_copy_only=False)]


def _facts(doc: dict[str, Any], n: int) -> ScanFacts:
    if doc["entries"] != n:
        raise CannotOpen(f"the metadata counts {doc['entries']} entries, the rows {n}")
    try:
        errors = tuple(ScanError(_text(e["path"]), _text(e["error"]))
                       for e in doc.get("errors", []))
        other = tuple(_text(p) for p in doc.get("other_filesystems", []))
        unlisted = np.array([_whole(r) for r in doc.get("unlisted", [])], dtype=np.int64)
        devices = {_whole(e): _whole(d) for e, d in doc.get("devices", [])}
        duration = float(doc.get("duration", 0.0))
        cancelled = bool(doc.get("cancelled", False))
    except (TypeError, KeyError, ValueError) as err:
        raise CannotOpen(f"its mlspace metadata is damaged ({err})") from None
    return ScanFacts(unlisted, devices, None, errors, other, duration, cancelled)


def _info(doc: dict[str, Any]) -> ScanInfo:
    options = doc.get("options")
    return ScanInfo(
        host=str(doc.get("host", "")), user=str(doc.get("user", "")),
        started=_seconds(doc.get("started")), finished=_seconds(doc.get("finished")),
        options=options if isinstance(options, dict) else {},
        program=str(doc.get("program", "mlspace")))


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _whole(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _seconds(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else 0.0
