"""A saved scan as a Parquet dataset: a folder of ``part-*.parquet`` files and ``_metadata``
(how it is laid out and checked; parquet_dataset_write writes one).

Why a folder: a scan of shared storage can hold hundreds of millions of entries. As parts of
a million rows each (one row group), the index is read a part at a time by any tool
(pyarrow.dataset, DuckDB, Spark read the folder), and a cluster scan's workers can hand their
walks over through the same folder (see mlspace.scan.chunk_file). The rows and the metadata
document are those of the one-file index (parquet_write), split at part boundaries.

``_metadata`` is Parquet's summary file: the footers of all parts in one, each row group
naming its part, plus mlspace's document and a marker key (sniff.DATASET_MARKER) written
last, so the marker sits at the file's end where ``sniff`` finds it without parsing Parquet.

Writing over an earlier dataset in the same folder: the new parts get names of their own,
``_metadata`` is moved in place in one step, and only then are the earlier parts removed.
An interrupted write leaves the earlier dataset whole; nothing else in the folder is touched.
"""

from __future__ import annotations

import os
import stat

import pyarrow.parquet as pq

from mlspace.index.errors import CannotOpen
from mlspace.index.sniff import DATASET_SUMMARY

PART_PREFIX, PART_SUFFIX = "part-", ".parquet"


def has_summary(folder: str) -> bool:
    """Whether the folder holds a _metadata file (an mlspace dataset's or not)."""
    return os.path.isfile(os.path.join(folder, DATASET_SUMMARY))


def summary_path(path: str) -> str:
    """The _metadata file of a dataset named by its folder or by its _metadata."""
    return path if os.path.basename(path) == DATASET_SUMMARY else \
        os.path.join(path, DATASET_SUMMARY)


def dataset_folder(path: str) -> str:
    """The folder of a dataset named by its folder or by its _metadata."""
    return os.path.dirname(path) if os.path.basename(path) == DATASET_SUMMARY else path


def listed_parts(folder: str, summary: pq.FileMetaData | None = None) -> list[str]:
    """The part names ``_metadata`` lists, in row order; CannotOpen for a name that is not
    one of this folder's parts (a summary may be damaged or made to point elsewhere)."""
    if summary is None:
        summary = pq.read_metadata(os.path.join(folder, DATASET_SUMMARY))
    names: list[str] = []
    for group in range(summary.num_row_groups):
        name = summary.row_group(group).column(0).file_path if summary.num_columns else ""
        if not (name.startswith(PART_PREFIX) and name.endswith(PART_SUFFIX)) \
                or "/" in name or "\\" in name:
            raise CannotOpen(f"its {DATASET_SUMMARY} names {name!r}, not a part of the folder")
        if names and names[-1] == name:
            continue  # the part's next row group
        if name in names:
            raise CannotOpen(f"its {DATASET_SUMMARY} lists {name} twice")
        names.append(name)
    return names


def part_rows(summary: pq.FileMetaData) -> dict[str, int]:
    """Rows per part, as the summary recorded them when the dataset was written."""
    rows: dict[str, int] = {}
    for group in range(summary.num_row_groups):
        meta = summary.row_group(group)
        name = meta.column(0).file_path
        rows[name] = rows.get(name, 0) + meta.num_rows
    return rows


def check_part(folder: str, name: str) -> str:
    """The part's path, once it is known to be a regular file in the folder (a FIFO, device
    or link under a part's name is refused without being opened)."""
    path = os.path.join(folder, name)
    try:
        mode = os.lstat(path).st_mode
    except OSError as err:
        raise CannotOpen(f"its part {name} is missing ({err.strerror})") from None
    if not stat.S_ISREG(mode):
        raise CannotOpen(f"its part {name} is not a regular file")
    return path
