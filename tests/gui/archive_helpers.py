"""Shared by the cold-tier GUI tests: a cold tier named in config.toml (a tmpfs when root,
as a NAS or a second disk would be; else, for what does not depend on it, a folder on the
same disk with the guard lifted), a window opened on a small aged HF run, and the
Suggestions panel's rows."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from cleanup_helpers import mount_tmpfs
from gui_helpers import show_tab
from PySide6.QtWidgets import QTreeWidgetItem
from workspaces import hf_run

from mlspace.act import tier
from mlspace.act.tier import Tier
from mlspace.config import Settings, save_settings
from mlspace.ui import archive_actions
from mlspace.ui.main_window import MainWindow

WAIT_MS = 30_000
ARCHIVE_KEPT = "Archive the kept checkpoints of run"  # the workspace's archive suggestion
RETENTION = "Keep best 1 + latest 2 of run"


def mount_or_lift_guard(where: Path, size: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    """A tmpfs at ``where`` (True), or, where mounting is not possible, a plain folder the
    app may archive to although it is on the same disk (False)."""
    try:
        mount_tmpfs(where, size)
    except pytest.skip.Exception:
        where.mkdir(parents=True, exist_ok=True)
        monkeypatch.setattr(archive_actions, "Tier",
                            functools.partial(Tier, allow_same_filesystem=True))
        monkeypatch.setattr(tier, "same_disk_as", lambda *_: None)  # suggested all the same
        return False
    return True


def name_tier(where: Path, **settings: object) -> None:
    """Name ``where`` as the cold tier in config.toml, suggesting the kept checkpoints of
    runs untouched for 20 days (the HF run is a month old)."""
    save_settings(Settings(str(where), **{"archive_checkpoints_days": 20.0, **settings}))


def workspace(tmp_path: Path) -> tuple[Path, Path]:
    """(the workspace, its run): checkpoint-10 the best, 50 and 60 the latest."""
    root = tmp_path / "ws"
    return root, hf_run(root)


def suggestion_row(window: MainWindow, title: str) -> QTreeWidgetItem:
    panel = window.suggestions
    show_tab(window, panel)
    return next(i for i in panel.suggestion_items() if i.text(0) == title)


def group_of(window: MainWindow, title: str) -> str:
    return suggestion_row(window, title).parent().text(0)
