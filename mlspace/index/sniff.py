"""Whether a path names a saved scan, and of which format: from its first bytes and its name,
with nothing heavy imported, since every command asks this of every PATH it is given."""

from __future__ import annotations

import os

from mlspace.safe_read import Unreadable, read_head, read_tail

PARQUET, NCDU, NCDU_BINARY = "parquet", "ncdu", "ncdu-binary"
PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"
NCDU_BINARY_MAGIC = b"\xbfncduEX1"
_JSON_SUFFIXES = (".json", ".json.gz", ".ncdu", ".gz")
#: A dataset's summary file and the key mlspace writes last in it (see parquet_dataset;
#: named here, where nothing heavy is imported).
DATASET_SUMMARY = "_metadata"
DATASET_MARKER = b"mlspace.dataset"
#: The marker is followed by its value, the writer's name and the footer's length.
_TAIL = 4096


def saved_scan_format(path: str) -> str | None:
    """PARQUET, NCDU (or NCDU_BINARY, which mlspace does not read) when ``path`` is a
    regular file that looks like a saved scan, or a folder holding a Parquet dataset mlspace
    wrote; else None (a folder to scan, or any other file)."""
    if os.path.isdir(path):
        return PARQUET if is_saved_dataset(path) else None
    if not os.path.isfile(path):
        return None
    try:
        head = read_head(os.path.realpath(path), 64)  # the user named it: a link is followed
    except Unreadable:
        head = b""
    name = path.lower()
    if head.startswith(PARQUET_MAGIC) or name.endswith(".parquet"):
        return PARQUET
    if head.startswith(NCDU_BINARY_MAGIC):
        return NCDU_BINARY
    if head.startswith(GZIP_MAGIC) or head.lstrip().startswith(b"[") \
            or name.endswith(_JSON_SUFFIXES):
        return NCDU
    return None


def is_saved_dataset(folder: str) -> bool:
    """Whether ``folder`` holds a scan mlspace saved as a Parquet dataset: its _metadata
    ends with mlspace's marker (another tool's dataset is a folder like any other)."""
    try:
        tail = read_tail(os.path.join(folder, DATASET_SUMMARY), _TAIL)
    except Unreadable:
        return False
    return tail.endswith(PARQUET_MAGIC) and DATASET_MARKER in tail
