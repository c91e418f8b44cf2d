"""The Hugging Face hub cache (ml-layouts.md §6.1): which revisions of a cached repo no
branch, tag or PR points to any more ("detached", what `hf cache prune` removes), and which
blobs only those revisions use. Reads the small refs/ files (through safe_read) and the
snapshots' symlinks (readlink: a link is read, never followed).

A cleanup of a detached revision may only hold paths inside that repo: the snapshot folder
(its links go with it, what they point at stays) and blobs, where a blob is a regular file
directly in the repo's ``blobs/`` that a link names. A link leading anywhere else (raw data
beside the cache, another repo's blobs) names no blob. Whenever the repo is not as hub
writes it in a way that hides what a kept revision uses (a ref that cannot be read, a
snapshot that is a link or cannot be listed), the repo is left alone."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from mlspace.safe_read import Unreadable, read_text

#: A ref holds a commit hash (40 hex digits); a file far longer is not a ref.
MAX_REF_BYTES = 4096


@dataclass(frozen=True)
class DetachedRevision:
    repo: str  # the models--org--name folder
    revision: str
    snapshot: str  # snapshots/<revision>
    blobs: tuple[str, ...]  # blobs no kept revision uses


class _Unknown(Exception):
    """Something that decides what a kept revision uses cannot be read."""


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _walk(top: str) -> list[tuple[str, list[str], list[str]]]:
    """os.walk of ``top`` (links to folders listed, not entered), raising _Unknown when a
    folder cannot be listed: a part that cannot be seen may be what a kept revision uses."""
    def fail(err: OSError) -> None:
        raise _Unknown(str(err))

    return list(os.walk(top, onerror=fail))


def _refs(repo: str) -> set[str]:
    """The revisions the repo's refs name. Raises _Unknown when one of them cannot be read
    (a FIFO, a link, a device, too large, empty, unlistable): such a ref may name any
    revision, so then none can be called detached."""
    refs = os.path.join(repo, "refs")
    if not _is_real_dir(refs):
        raise _Unknown("refs is not a folder")
    found = set()
    for folder, dirs, files in _walk(refs):
        if any(os.path.islink(os.path.join(folder, d)) for d in dirs):
            raise _Unknown("a ref folder is a link")
        for name in files:
            try:
                revision = read_text(os.path.join(folder, name), MAX_REF_BYTES).strip()
            except Unreadable as err:
                raise _Unknown(str(err)) from None
            if not revision:
                raise _Unknown("an empty ref")
            found.add(revision)
    return found


def _blobs_of(snapshot: str, blobs_dir: str) -> set[str]:
    """The blobs a snapshot's files link to: links resolving (lexically, nothing followed)
    to a regular file directly in ``blobs_dir``. A copy instead of a link is part of the
    snapshot folder itself; a link to anything else names no blob."""
    used = set()
    for folder, _, files in _walk(snapshot):
        for name in files:
            path = os.path.join(folder, name)
            try:
                target = os.readlink(path)
            except OSError:  # not a link: a file of the snapshot itself
                continue
            blob = os.path.normpath(os.path.join(folder, target))
            if os.path.dirname(blob) != blobs_dir:
                continue
            try:
                if stat.S_ISREG(os.lstat(blob).st_mode):
                    used.add(blob)
            except OSError:
                continue
    return used


def detached_revisions(repo: str) -> list[DetachedRevision]:
    """The repo's detached revisions, each with the blobs only it uses; none when the repo
    cannot be read well enough to tell (see the module doc)."""
    try:
        return _detached(os.path.normpath(repo))
    except _Unknown:
        return []


def _detached(repo: str) -> list[DetachedRevision]:
    snapshots_dir = os.path.join(repo, "snapshots")
    if not _is_real_dir(snapshots_dir):
        return []
    try:
        names = sorted(os.listdir(snapshots_dir))
    except OSError:
        return []
    revisions = []
    for name in names:
        path = os.path.join(snapshots_dir, name)
        if os.path.islink(path):
            raise _Unknown("a snapshot is a link")
        if _is_real_dir(path):
            revisions.append(name)
    refs = _refs(repo)
    if not refs:
        return []  # without refs nothing can be told apart: leave the repo alone
    blobs_dir = os.path.join(repo, "blobs")
    blobs_ok = _is_real_dir(blobs_dir)
    used = {rev: _blobs_of(os.path.join(snapshots_dir, rev), blobs_dir) if blobs_ok else set()
            for rev in revisions}
    kept_blobs = set().union(*(used[r] for r in revisions if r in refs))
    return [DetachedRevision(repo, rev, os.path.join(snapshots_dir, rev),
                             tuple(sorted(used[rev] - kept_blobs)))
            for rev in revisions if rev not in refs]
