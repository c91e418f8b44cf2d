"""Shared by the cold-tier tests: the aged HF run of the hostile tests' workspaces (one
definition of that tree), and the tier on a filesystem of its own (a tmpfs, as a NAS or a
second disk would be: archiving onto the scanned disk is refused, since it frees nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cleanup_helpers import mount_tmpfs, unmount
from workspaces import age, hf_run, retention_of

from mlspace.act.tier import Tier

__all__ = ["age", "hf_run", "mounted", "retention_of", "tier_at"]


def tier_at(cold: Path, link: str = "symlink") -> Tier:
    """The tier in ``cold`` (a mounted tmpfs), for the host "box"."""
    return Tier(str(cold), link=link, host="box")


@contextmanager
def mounted(where: Path, size: str = "256m") -> Iterator[Path]:
    """A tmpfs at ``where`` for the length of the block (the test is skipped where none
    can be mounted)."""
    mount_tmpfs(where, size)
    try:
        yield where
    finally:
        unmount(where)
