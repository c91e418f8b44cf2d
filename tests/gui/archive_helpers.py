"""Shared by the cold-tier GUI tests: a cold tier named in config.toml (a tmpfs, as a NAS
or a second disk would be: archiving onto the scanned disk frees nothing and is refused),
a window opened on a small aged HF run, and the Suggestions panel's rows."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import show_tab
from PySide6.QtWidgets import QTreeWidgetItem
from workspaces import hf_run

from mlspace.config import Settings, save_settings
from mlspace.ui.main_window import MainWindow

WAIT_MS = 30_000
ARCHIVE_KEPT = "Archive the kept checkpoints of run"  # the workspace's archive suggestion
RETENTION = "Keep best 1 + latest 2 of run"


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
