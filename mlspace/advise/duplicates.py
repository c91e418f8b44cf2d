"""Exact duplicate files: same size, then same first and last 64 KiB, then the same SHA-256.

This is the one step of advising that reads file contents (never runs them), so it is a
separate, opt-in pass (``mlspace plan --duplicates``): hashing checkpoints costs a read of
every byte of the candidates. Hard links are not duplicates (they take no extra space) and
raw datasets are never touched. Of each group one copy is always kept: the one whose name
means something (best, final, last), or a checkpoint the tools' records point to."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

import numpy as np

from mlspace import fmt
from mlspace.advise.model import REVIEW, PlanItem, Suggestion, kept_item, suggestion_id
from mlspace.classify import Category, Inventory
from mlspace.classify.rules import CONTEXTS, Context
from mlspace.paths import natural_key
from mlspace.safe_read import Unreadable, iter_blocks, open_regular
from mlspace.scan.walker import KIND_FILE

MIN_SIZE = 1 << 20
_EDGE = 64 * 1024
_KEEP_WORDS = ("best", "final", "last", "latest")


def _edges_hash(path: str, size: int) -> bytes | None:
    """The hash of the first and last 64 KiB, or None when the file is not the regular
    file of ``size`` bytes the scan saw (since replaced by a FIFO, a link, a device, or
    changed): opened only through safe_read, so nothing blocks and no link is followed."""
    try:
        with open_regular(path) as (fd, info):
            if info.st_size != size:
                return None
            head = os.pread(fd, _EDGE, 0)
            tail = os.pread(fd, _EDGE, max(size - _EDGE, 0))
    except (Unreadable, OSError):
        return None
    return hashlib.sha256(head + tail).digest()


def _full_hash(path: str) -> bytes | None:
    """SHA-256 of the whole file, read through safe_read in blocks (never more bytes than
    it had when opened), or None when it cannot be read as a regular file."""
    digest = hashlib.sha256()
    try:
        for block in iter_blocks(path):
            digest.update(block)
    except Unreadable:
        return None
    return digest.digest()


def find_duplicates(inv: Inventory, min_size: int = MIN_SIZE) -> list[list[int]]:
    """Groups (2 or more entries) of files with identical content."""
    snap = inv.snapshot
    candidates = np.flatnonzero((snap.kind == KIND_FILE) & snap.counted & (snap.nlink == 1)
                                & (snap.apparent >= min_size)
                                & (inv.categories != Category.DATASET))
    sizes = snap.apparent[candidates]
    unique, counts = np.unique(sizes, return_counts=True)
    groups: list[list[int]] = []
    for size in unique[counts > 1].tolist():
        same_size = [int(e) for e in candidates[sizes == size]]
        for edges in _split(same_size, snap.path, lambda p, n=size: _edges_hash(p, n)):
            if len(edges) > 1:
                groups.extend(g for g in _split(edges, snap.path, _full_hash) if len(g) > 1)
    return groups


def _split(entries: list[int], path_of: Callable[[int], str],
           key: Callable[[str], bytes | None]) -> list[list[int]]:
    buckets: dict[bytes, list[int]] = {}
    for entry in entries:
        digest = key(path_of(entry))
        if digest is not None:
            buckets.setdefault(digest, []).append(entry)
    return list(buckets.values())


#: Folders whose files are saves or parts of one.
_SAVE_CONTEXTS = frozenset({Context.CHECKPOINTS, Context.CHECKPOINT_UNIT})


def duplicate_suggestions(inv: Inventory, groups: list[list[int]]) -> list[Suggestion]:
    snap = inv.snapshot
    # Every file of a protected checkpoint made of several (a fixed-name set, a sharded
    # save), not only the path it is named by.
    protected_paths = {inv.snapshot.path(e) for a in _kept_for_copies(inv)
                       for e in inv.artifact_by_id[a].entries}
    protected_paths |= {inv.artifact_by_id[a].path for a in _kept_for_copies(inv)}
    owners = inv.artifact_of_entries() if groups else None
    out = []
    for group in groups:
        paths = {e: snap.path(e) for e in group}
        # Among equals the newest copy stays, and of copies equally new the one whose name
        # sorts last (a tool's later version folder, 2026-12-02T10.15/ after 10.14/): the
        # copy a tool loads as its latest.
        latest_first = sorted(group, key=lambda e: natural_key(paths[e]), reverse=True)
        keep = min(latest_first, key=lambda e: (*_keep_rank(paths[e], protected_paths),
                                                -float(snap.mtime[e])))
        drop = [e for e in group if e != keep and not _is_protected(paths[e], protected_paths)
                and not _splits_a_save(inv, e, owners)
                and not _unplaced_checkpoint(inv, e, owners, snap.name(keep))]
        if not drop:
            continue
        items = [PlanItem(paths[e], False, snap.disk_usage(e), int(snap.apparent[e]),
                          float(snap.mtime[e]), 1) for e in sorted(drop, key=paths.get)]
        item_paths = tuple(i.path for i in items)
        out.append(Suggestion(
            suggestion_id("duplicates", item_paths), "duplicates",
            f"Remove {fmt.plural(len(items), 'exact copy', 'exact copies')} of "
            f"{os.path.basename(paths[keep])}",
            f"Byte-for-byte identical to {paths[keep]}, which is kept.", REVIEW,
            tuple(items), None, kept=(kept_item(snap, keep, "the copy that stays"),)))
    return out


def _kept_for_copies(inv: Inventory) -> set[str]:
    """Every checkpoint a series protects (best, latest, what records point to, and their
    copies) stays, even when an identical copy exists elsewhere: duplicates never override
    the protection the rest of mlspace gives."""
    return {a for s in inv.series for a in s.protected}


def _splits_a_save(inv: Inventory, entry: int, owners: np.ndarray | None) -> bool:
    """One file of a checkpoint made of several (a model folder's ``python_version.txt``
    beside its weights, a shard of a sharded save): taking it out leaves a save that no
    longer loads, to win a file's worth of space. A whole save goes, or stays, by its
    series' retention, never a piece of it as a copy."""
    if owners is None:
        return False
    if owners[entry] >= 0:
        artifact = inv.artifacts[int(owners[entry])]
        return artifact.category == Category.CHECKPOINT and artifact.files > 1
    if inv.category(entry) != Category.CHECKPOINT:
        return False
    # A checkpoint file no unit claims: a piece of one when others lie beside it.
    snap = inv.snapshot
    folder = snap.parent(entry)
    siblings = snap.children(folder) if folder >= 0 else range(0)
    return any(e != entry and snap.kind[e] == KIND_FILE
               and inv.category(e) == Category.CHECKPOINT for e in siblings)


def _unplaced_checkpoint(inv: Inventory, entry: int, owners: np.ndarray | None,
                         kept_name: str) -> bool:
    """Part of no save of a series, and not to be offered as a copy of ``kept_name``: a
    checkpoint under another name than the copy that stays (a tool's ``news.vw.2`` beside
    its final ``news.vw``: which one the tool loads goes by the name, and nothing here says
    which is the run's latest), or any other file of a folder of saves (the source a
    packaged model keeps in its tag folder: taking one file out breaks the save). A
    checkpoint of the same name in another folder (an older version folder of it) is a
    copy like any other."""
    if owners is None:
        return False
    owner = int(owners[entry])
    if owner >= 0 and inv.artifacts[owner].series:
        return False  # a save of a series: its series says what is protected
    if inv.category(entry) == Category.CHECKPOINT:
        return inv.snapshot.name(entry) != kept_name
    row = inv.snapshot.parent_row(entry)
    return row >= 0 and CONTEXTS[inv.contexts[row]] in _SAVE_CONTEXTS


def _is_protected(path: str, protected: set[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in protected)


def _keep_rank(path: str, protected: set[str]) -> tuple[int, int, int]:
    """Lower is kept first: protected checkpoints, then meaningful names, then shallow
    paths."""
    name = os.path.basename(path).lower()
    meaningful = next((i for i, w in enumerate(_KEEP_WORDS) if w in name), len(_KEEP_WORDS))
    return (0 if _is_protected(path, protected) else 1, meaningful, path.count("/"))
