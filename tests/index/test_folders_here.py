"""Which folders of a saved scan are on this machine (the app cleans up only there), and how
F5 scans an opened scan's folders again."""

from __future__ import annotations

from pathlib import Path

from mlspace.index.here import folders_not_here
from mlspace.index.info import ScanInfo
from mlspace.scan import ScanOptions


def info(host: str, **options: object) -> ScanInfo:
    return ScanInfo(host, "me", 1.0, 2.0, options)


def test_a_folder_is_here_when_scanned_on_this_host_and_still_there(tmp_path: Path) -> None:
    there, gone = str(tmp_path), str(tmp_path / "gone")
    assert folders_not_here(info("laptop"), [there, gone], host="laptop") == {
        gone: f"{gone} is no longer on this machine"}


def test_another_hosts_folder_is_here_where_the_same_folder_exists(tmp_path: Path) -> None:
    """Shared storage: a scan made on a compute node is cleaned from the login node (each
    item is still checked against this disk before it moves)."""
    gone = str(tmp_path / "gone")
    assert folders_not_here(info("gpu-node3"), [str(tmp_path), gone], host="laptop") == {
        gone: f"scanned on gpu-node3; {gone} is not on this machine"}


def test_an_export_that_names_no_host_is_here_where_its_folder_exists(tmp_path: Path) -> None:
    gone = str(tmp_path / "gone")
    assert folders_not_here(info(""), [str(tmp_path), gone], host="laptop") == {
        gone: f"{gone} is not on this machine"}


def test_a_rescan_covers_what_the_saved_scan_covered() -> None:
    saved = info("laptop", exclude=["*.arrow", "wandb/*"], cross_filesystems=True, workers=64)
    again = saved.scan_options()
    assert again.exclude == ("*.arrow", "wandb/*") and again.cross_filesystems
    assert again.workers == ScanOptions().workers  # this machine's own
    assert info("").scan_options() == ScanOptions()  # an export says nothing: the defaults
