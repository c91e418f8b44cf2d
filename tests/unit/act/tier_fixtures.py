"""Shared by the cold-tier tests: the aged HF run of the hostile tests' workspaces (one
definition of that tree), and a one-filesystem tier for tests that need no mount."""

from __future__ import annotations

from pathlib import Path

from workspaces import age, hf_run, retention_of

from mlspace.act.tier import Tier

__all__ = ["age", "hf_run", "retention_of", "same_disk_tier"]


def same_disk_tier(tmp_path: Path, link: str = "symlink") -> Tier:
    """A tier in ``tmp_path/cold`` on the test's own filesystem (the guard lifted)."""
    (tmp_path / "cold").mkdir(exist_ok=True)
    return Tier(str(tmp_path / "cold"), link=link, host="box", allow_same_filesystem=True)
