"""A walked chunk as a Parquet part: how a cluster worker hands its walk to the client
through the shared filesystem instead of through the Dask scheduler.

Why: a task's result travels worker → scheduler → client and waits in the worker's memory
until the client takes it. On a scan of hundreds of millions of entries that is gigabytes
through one TCP connection; a part on the shared storage being scanned costs the worker one
write and the client one read, and frees the worker's memory at once.

The part holds one row per entry (the walker's columns, the name as raw bytes) and, in its
footer, the chunk's folder table, pending folders and errors as JSON (under ``WALK_KEY``).
It is read back as the very WalkChunk that was written, so merging a part and merging the
chunk itself give the same snapshot (hard links seen by different tasks included).
"""

from __future__ import annotations

import json
import os
import stat
from array import array
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mlspace.scan.walker import DirTask, WalkChunk

WALK_KEY = b"mlspace-walk"
#: The per-entry columns with their Arrow types (the array typecodes of WalkChunk).
_COLUMNS = {"kind": pa.uint8(), "size": pa.int64(), "blocks": pa.int64(),
            "mtime": pa.int64(), "ino": pa.uint64(), "nlink": pa.uint16(),
            "uid": pa.uint32()}


class DamagedPart(ValueError):
    """A part that is not what a worker wrote (truncated, replaced, or another file)."""


def write_chunk(chunk: WalkChunk, path: str) -> None:
    """Write ``chunk`` to ``path`` (beside it first, then moved in place, so a worker killed
    mid-write never leaves a part that looks whole)."""
    columns = [_names_column(chunk)] + [
        pa.Array.from_buffers(kind, len(chunk), [None, pa.py_buffer(getattr(chunk, name))])
        for name, kind in _COLUMNS.items()]
    table = pa.table(columns, names=["name", *_COLUMNS])
    facts = json.dumps(_facts(chunk), separators=(",", ":")).encode("utf-8")
    partial = path + ".partial"
    # lz4 without dictionaries: a third faster to write and read than zstd here, for a part
    # a third larger (still a seventh of the chunk's pickle); the client reads every part.
    with pq.ParquetWriter(partial, table.schema, compression="lz4", use_dictionary=False,
                          store_schema=False) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata({WALK_KEY: facts})
    os.replace(partial, path)


def read_chunk(path: str) -> WalkChunk:
    """The chunk written to ``path``; DamagedPart when it is not one (a FIFO, device or
    link under a part's name is refused without being opened: opening a FIFO blocks)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise DamagedPart(f"{path} is not a regular file")
        handle = pq.ParquetFile(path)
        raw = (handle.metadata.metadata or {}).get(WALK_KEY)
        if raw is None:
            raise DamagedPart(f"{path} is not a part written by an mlspace worker")
        table = handle.read(use_threads=False)
        facts = json.loads(raw)
        chunk = WalkChunk()
        chunk.names = _name_blocks(table.column("name"))
        for name, kind in _COLUMNS.items():
            column = table.column(name)
            if column.type != kind:
                raise DamagedPart(f"{path}: column {name} is {column.type}, not {kind}")
            values = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
            getattr(chunk, name).frombytes(values.to_numpy(zero_copy_only=False).tobytes())
        _restore_facts(chunk, facts)
    except (pa.ArrowException, OSError, ValueError, KeyError, TypeError) as err:
        if isinstance(err, DamagedPart):
            raise
        raise DamagedPart(f"{path}: {err}") from None
    return chunk


def _names_column(chunk: WalkChunk) -> pa.Array:
    """The names as one binary column over the chunk's own bytes (NULs separate them)."""
    joined = b"\0".join(chunk.names)
    data = np.frombuffer(joined, dtype=np.uint8)
    ends = np.append(np.flatnonzero(data == 0), len(data)) if len(chunk) else \
        np.zeros(0, dtype=np.int64)
    starts = np.concatenate(([0], ends[:-1] + 1)) if len(ends) else ends
    kept = np.delete(data, ends[:-1]) if len(ends) else data[:0]
    # A chunk is one task's budget of entries: its names are far below 2 GiB.
    offsets = np.append(starts - np.arange(len(starts)), len(kept)).astype(np.int32)
    return pa.Array.from_buffers(pa.binary(), len(chunk),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(kept)])


def _name_blocks(column: pa.ChunkedArray) -> list[bytes]:
    """The names back as one NUL-joined block (how the builder takes them: each block is
    followed by a NUL when merged, so one block of all names is the same as many)."""
    if not len(column):
        return []
    array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if not pa.types.is_binary(array.type):
        raise DamagedPart(f"the name column is {array.type}, not binary")
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[
        array.offset: array.offset + len(array) + 1]
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8)[offsets[0]: offsets[-1]]
    if np.any(data == 0):
        raise DamagedPart("a name holds a NUL byte")
    return [np.insert(data, offsets[1:-1] - offsets[0], 0).tobytes()]


def _facts(chunk: WalkChunk) -> dict[str, Any]:
    """What is not one per entry. Paths are text with undecodable bytes kept as surrogates,
    which JSON carries as escapes and gives back unchanged."""
    return {
        "dirs": chunk.dirs.tolist(),
        "dir_paths": chunk.dir_paths,
        "pending": [[t.path, t.ref, t.root_dev] for t in chunk.pending],
        "errors": [list(e) for e in chunk.errors],
        "other_filesystems": chunk.other_filesystems,
        "last_dir": chunk.last_dir,
    }


def _restore_facts(chunk: WalkChunk, facts: dict[str, Any]) -> None:
    dirs = array("q", facts["dirs"])
    paths = [str(p) for p in facts["dir_paths"]]
    if len(dirs) != 4 * len(paths):
        raise DamagedPart("its folder table and folder paths disagree")
    rows = np.frombuffer(dirs, dtype=np.int64).reshape(-1, 4)
    if len(rows) and (np.any(rows[:, 1] < 0) or np.any(rows[:, 2] < 0)
                      or np.any(rows[:, 1] + rows[:, 2] > len(chunk))):
        raise DamagedPart("its folder table points past its entries")
    chunk.dirs = dirs
    chunk.dir_paths = paths
    chunk.pending = [DirTask(str(p), int(r), int(d)) for p, r, d in facts["pending"]]
    chunk.errors = [(str(p), str(m)) for p, m in facts["errors"]]
    chunk.other_filesystems = [str(p) for p in facts["other_filesystems"]]
    chunk.last_dir = str(facts["last_dir"])
