"""Checkpoints someone copied out of their run: a file of a series with an identical copy
in another folder of the scan (a tracker's download of the version it resolved as best, an
export, a model registered by hand).

A tool that keeps its records where mlspace cannot read them (a tracker's database) still
leaves this trace when the user fetched a checkpoint from it: the copy carries the file's
name and bytes. That checkpoint was chosen, so a cleanup of the series keeps it. Copies are
found by name and size first (no read), then confirmed by their first and last 4 KiB, read
through mlspace.safe_read: the end of a torch zip holds the CRC of every tensor it stores,
and two saves of one architecture differ there even when their sizes agree.
"""

from __future__ import annotations

from mlspace.classify.artifacts import Candidate
from mlspace.safe_read import Unreadable, read_head, read_tail

#: Bytes compared at each end of two files of the same name and size.
ENDS = 4096
#: Most files whose ends are read, a scan (two small reads each): name-and-size twins are
#: few in a real workspace; a tree of thousands of same-named saves stops here.
MAX_FILES = 256


def copied_out(checkpoints: list[Candidate]) -> dict[str, str]:
    """For each checkpoint file with an identical copy of its name in another folder, the
    path of one such copy (``checkpoints``: every checkpoint found, of every series)."""
    by_key: dict[tuple[str, int], list[Candidate]] = {}
    for found in checkpoints:
        if not found.is_dir and not found.archived and found.apparent_size > 0:
            by_key.setdefault((found.name, found.apparent_size), []).append(found)
    copies: dict[str, str] = {}
    budget = MAX_FILES
    for same in by_key.values():
        if len({c.parent_row for c in same}) < 2:
            continue
        ends = {}
        for found in same:
            if budget <= 0:
                return copies
            budget -= 1
            ends[found.path] = _ends(found.path)
        for found in same:
            mine = ends[found.path]
            twin = next((c.path for c in same if c.parent_row != found.parent_row
                         and mine is not None and ends[c.path] == mine), None)
            if twin is not None:
                copies[found.path] = twin
    return copies


def _ends(path: str) -> tuple[bytes, bytes] | None:
    try:
        return read_head(path, ENDS), read_tail(path, ENDS)
    except Unreadable:
        return None
