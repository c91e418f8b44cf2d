"""Whether a path names a saved scan, and of which format: from its first bytes and its name,
with nothing heavy imported, since every command asks this of every PATH it is given."""

from __future__ import annotations

import os

from mlspace.safe_read import Unreadable, read_head

PARQUET, NCDU, NCDU_BINARY = "parquet", "ncdu", "ncdu-binary"
PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"
NCDU_BINARY_MAGIC = b"\xbfncduEX1"
_JSON_SUFFIXES = (".json", ".json.gz", ".ncdu", ".gz")


def saved_scan_format(path: str) -> str | None:
    """PARQUET, NCDU (or NCDU_BINARY, which mlspace does not read) when ``path`` is a
    regular file that looks like a saved scan, else None (a folder, or any other file)."""
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
