"""Fixtures of the acting tests: the cold tier and the workspace each on a filesystem of
their own, so that what the disk gets back can be measured with statvfs, free of whatever
else this machine writes to its own disk meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tier_fixtures import mounted


@pytest.fixture
def cold(tmp_path: Path) -> Iterator[Path]:
    """A 256 MiB tmpfs as the cold tier."""
    with mounted(tmp_path / "cold") as where:
        yield where


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 MiB tmpfs for the workspace: its trash is the volume's .Trash-UID."""
    with mounted(tmp_path / "disk") as where:
        yield where
