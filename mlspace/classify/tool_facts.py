"""What a training tool's own records say about the checkpoints of one folder, in the names
of the files here: the shape every reader of a tool's records (Lightning's ModelCheckpoint
state, timm's CheckpointSaver, Ray's checkpoint manager) hands to the series, so that the
series treats them alike.

A tool that keeps only its best k (Lightning ``save_top_k``, timm ``--checkpoint-hist``,
Ray's ``CheckpointConfig(num_to_keep)``) has done the retention itself: every numbered file
it left is one of its k best, and deleting the oldest by age would delete one of them. So
the series learns that set (``top_k``) and protects it, and a user releases part of it only
by asking, for that run, for fewer best ones than the tool keeps (mlspace.advise.policies).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ToolFacts:
    """A folder's records, in the names of the files here."""

    source: str  # the file the record that describes the folder was read from
    best: str | None
    best_reason: str
    metric: str | None  # the metric the tool ranks by
    value: float | None  # the best's recorded score (finite), if any
    mode: str | None  # "min" or "max"
    named: frozenset[str]  # files any record read names as best or last
    top_k: tuple[str, ...]  # files the tool keeps as its top-k, best first if ranked
    top_k_ranked: bool  # top_k is in the order of the metric's recorded scores
    top_k_reason: str
    scores: dict[str, float]  # file -> its recorded score under ``metric`` (finite); shared
    files_read: int  # records read that hold the tool's state
    epochs: dict[str, int] = field(default_factory=dict)  # file -> epoch, where a name hides it
    top_k_newest_first: bool = False  # top_k is the newest ones the tool keeps, newest first
    latest: str | None = None  # the latest, where a record names it and no name orders them
    latest_reason: str = ""


#: The identity of a file, as far as a remembered read of it goes: path, device, inode, size
#: and times. A tool rewrites its records in place or replaces them; either changes one.
FileIdentity = tuple[str, int, int, int, int, int]


def file_identity(path: str) -> FileIdentity:
    """``path``'s identity, all zeros when it cannot be stat'ed (a read then finds nothing)."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return path, 0, 0, 0, 0, 0
    return path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def finite(value: float | None) -> float | None:
    """``value`` when it is a finite number, else None (an infinite or NaN score is none)."""
    return value if value is not None and math.isfinite(value) else None


def rank_key(score: float | None, mode: str) -> float:
    """Sort key, best first. NaN (and an unknown score) ranks last, as Lightning and timm
    rank a NaN score (neither ever prefers it to a number)."""
    if score is None or math.isnan(score):
        return math.inf
    return score if mode == "min" else -score
