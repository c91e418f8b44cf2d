"""The Hugging Face hub cache (ml-layouts.md §6.1): which revisions of a cached repo no
branch, tag or PR points to any more ("detached", what `hf cache prune` removes), and which
blobs only those revisions use. Reads the small refs/ files and the snapshots' symlinks."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class DetachedRevision:
    repo: str  # the models--org--name folder
    revision: str
    snapshot: str  # snapshots/<revision>
    blobs: tuple[str, ...]  # blobs no kept revision uses


def _refs(repo: str) -> set[str]:
    found = set()
    for folder, _, files in os.walk(os.path.join(repo, "refs")):
        for name in files:
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    found.add(f.read().strip())
            except OSError:
                continue
    return found


def _blobs_of(snapshot: str) -> set[str]:
    """The blobs a snapshot's files link to (a copy instead of a link is part of the
    snapshot folder itself)."""
    used = set()
    for folder, _, files in os.walk(snapshot):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                used.add(os.path.normpath(os.path.join(folder, os.readlink(path))))
    return used


def detached_revisions(repo: str) -> list[DetachedRevision]:
    snapshots_dir = os.path.join(repo, "snapshots")
    try:
        revisions = sorted(os.listdir(snapshots_dir))
    except OSError:
        return []
    refs = _refs(repo)
    if not refs:
        return []  # without refs nothing can be told apart: leave the repo alone
    used = {rev: _blobs_of(os.path.join(snapshots_dir, rev)) for rev in revisions}
    kept_blobs = set().union(*(used[r] for r in revisions if r in refs))
    out = []
    for rev in revisions:
        if rev in refs:
            continue
        exclusive = sorted(b for b in used[rev] - kept_blobs if os.path.lexists(b))
        out.append(DetachedRevision(repo, rev, os.path.join(snapshots_dir, rev),
                                    tuple(exclusive)))
    return out
