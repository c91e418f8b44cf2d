"""Shared fixtures: every test runs offscreen and with its own config, data and trash dirs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from cleanup_helpers import cold, disk  # noqa: E402, F401 - tmpfs fixtures, registered here


@pytest.fixture(autouse=True)
def isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point HOME and the XDG dirs at a fresh folder, so no test reads or writes the real
    user's config, journal or trash."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(home / sub))
    return home


@pytest.fixture
def tiny_walk_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut every walk after a handful of entries, so even a small tree is scanned in many
    chunks, merged in whatever order the workers finish them, and handed on to a listing
    consumer a few at a time."""
    from mlspace.scan import scanner

    monkeypatch.setattr(scanner, "IN_PROCESS_BUDGET", 3)
    monkeypatch.setattr(scanner, "WORKER_BUDGET", 4)
    monkeypatch.setattr(scanner, "LISTING_ENTRIES", 5)
