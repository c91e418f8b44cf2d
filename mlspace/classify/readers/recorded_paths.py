"""Which file here a path recorded elsewhere names: a checkpoint's record of its run's files
(Lightning's best, top-k and last paths) is as the training process saw them, absolute on
the training machine or relative to its working directory, and from any OS.

A recorded path names the candidate with the same basename; among several, the one sharing
the longest path suffix with it (parent folder, then grandparent, ...). A tie names none:
a wrong match could let a cleanup take the best checkpoint for another.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator


def parts(path: str) -> list[str]:
    """Components of a path from any OS (``/`` or ``\\``), without empty and ``.`` parts."""
    return [part for part in re.split(r"[\\/]", path) if part not in ("", ".")]


def common_suffix(a: list[str], b: list[str]) -> int:
    """How many trailing components two paths' :func:`parts` share."""
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def match_recorded_path(recorded: str, candidates: Iterable[str]) -> str | None:
    """The candidate that is the file a recorded path names: the one with the same basename,
    and among several, the one sharing the longest path suffix with it (parent folder, then
    grandparent, ...). None when no basename matches or the best match is a tie."""
    wanted = parts(recorded)
    if not wanted:
        return None
    best: str | None = None
    best_len, tie = 0, False
    for candidate in candidates:
        length = common_suffix(wanted, parts(candidate))
        if length > best_len:
            best, best_len, tie = candidate, length, False
        elif length == best_len and length > 0 and candidate != best:
            tie = True
    return None if tie else best


def by_basename(paths: Iterable[str]) -> dict[str, list[str]]:
    """The paths by their last component: the candidates a recorded path is matched with."""
    index: dict[str, list[str]] = {}
    for path in paths:
        found = parts(path)
        if found:
            index.setdefault(found[-1], []).append(path)
    return index


def matches(recorded: Iterable[str], index: dict[str, list[str]]
            ) -> Iterator[tuple[str, str]]:
    """``(recorded path, file here)`` for each recorded path that names one of the paths
    ``index`` (:func:`by_basename`) holds, in the order recorded."""
    for path in recorded:
        name = parts(path)
        found = match_recorded_path(path, index.get(name[-1], ())) if name else None
        if found is not None:
            yield path, found
