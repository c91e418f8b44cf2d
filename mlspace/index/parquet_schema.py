"""The names and codes mlspace's Parquet index is written and read with, in one place."""

from __future__ import annotations

#: The file-level metadata key holding the JSON document (format, roots, inventory...).
METADATA_KEY = b"mlspace"
FORMAT_NAME = "mlspace-scan"
#: Raised only for changes an older reader would misread; additions keep the version.
FORMAT_VERSION = 1

#: The columns, in file order.
COLUMNS = ("parent", "name", "kind", "disk_usage", "apparent_size", "mtime", "inode", "nlink",
           "uid", "category", "artifact")
#: Columns stored as a dictionary of values (few distinct values, read back as such).
DICTIONARY_COLUMNS = ("kind", "category", "artifact")

#: Entry kinds by ``st_mode >> 12``; anything else is "other" (read back as 0).
KIND_BY_CODE = {0o04: "dir", 0o10: "file", 0o12: "symlink", 0o01: "fifo", 0o14: "socket",
                0o02: "char-device", 0o06: "block-device"}
KIND_NAMES = (*KIND_BY_CODE.values(), "other")
CODE_BY_KIND = {name: code for code, name in KIND_BY_CODE.items()} | {"other": 0}
