"""What the app's cold-tier screens stand on, without Qt: settings written as the CLI reads
them, a tier folder checked before it is saved, the archived items known from the
journals, the history's cost, a copy's progress in words, and undo's progress when it
copies back from the tier."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from cleanup_helpers import mounted, tier_at
from layouts import inventory_of
from workspaces import hf_run, retention_of

from mlspace.act import ARCHIVE, run, undo
from mlspace.act import trash as trash_module
from mlspace.act.archived import archived_items
from mlspace.act.bring_back import bring_back
from mlspace.act.pointer import STUB_SUFFIX
from mlspace.act.tier import progress_words, root_problem
from mlspace.advise import advise
from mlspace.advise.archive import with_user_archive
from mlspace.config import Settings, config_file, load_settings, save_settings
from mlspace.disks import same_disk_as
from mlspace.index import history as scan_history


def test_settings_saved_are_read_back_the_same(tmp_path: Path) -> None:
    odd = Settings('/mnt/nas "lab"\\cold', "stub", 60.0, 180.5, 1e6)
    save_settings(odd)
    assert load_settings() == odd
    assert load_settings(config_file()) == odd
    save_settings(Settings())  # no tier: the key is left out (commented), not written empty
    assert load_settings() == Settings()
    assert "# archive_root" in config_file().read_text()
    assert [p.name for p in config_file().parent.iterdir()] == ["config.toml"]  # no partial


def test_a_path_toml_cannot_hold_is_refused_and_the_old_file_stays() -> None:
    save_settings(Settings("/mnt/cold"))
    with pytest.raises(ValueError):
        save_settings(Settings(os.fsdecode(b"/mnt/\xff")))
    assert load_settings().archive_root == "/mnt/cold"


def test_the_tier_folder_is_checked_before_it_is_saved(tmp_path: Path) -> None:
    scanned = tmp_path / "ws"
    (scanned / "outputs").mkdir(parents=True)
    cold = tmp_path / "cold"
    cold.mkdir()
    assert root_problem(str(cold), [str(scanned)]) is None
    assert "is not there" in root_problem(str(tmp_path / "nowhere"), [str(scanned)])
    assert "not an absolute path" in root_problem("cold", [str(scanned)])
    assert root_problem(str(scanned / "outputs"), [str(scanned)]) == \
        f"{scanned / 'outputs'} is inside the scanned folder {scanned}"
    assert "inside the scanned folder" in root_problem(str(scanned), [str(scanned)])
    (tmp_path / "link").symlink_to(scanned / "outputs")
    assert "inside the scanned folder" in root_problem(str(tmp_path / "link"), [str(scanned)])
    assert same_disk_as(str(cold), [str(scanned)]) == str(scanned)
    assert same_disk_as(str(cold), ["/proc"]) is None


def test_a_folder_that_cannot_be_written_is_refused(tmp_path: Path) -> None:
    """Root writes in any folder, whatever its mode, but not on a read-only filesystem (a NAS
    exported read-only): as root the tier is such a mount, as a user a folder it may not
    write in."""
    cold = tmp_path / "cold"
    if os.geteuid() == 0:
        with mounted(cold, "1m", "ro"):
            assert "is not writable" in root_problem(str(cold), [])
    else:
        cold.mkdir(mode=0o500)
        assert "is not writable" in root_problem(str(cold), [])


@pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")
def test_archived_items_are_known_until_brought_back_or_undone(tmp_path: Path,
                                                              cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    suggestion = retention_of(root)
    tier = tier_at(cold, link="stub")
    result = run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0)
    items = {i.path: i for i in archived_items()}
    assert sorted(items) == sorted(suggestion.paths)
    first = items[suggestion.items[0].path]
    assert first.pointer == first.path + STUB_SUFFIX
    assert first.dest == tier.destination(first.path) and first.tier == tier.root
    assert (first.disk_usage, first.apparent_size) == (suggestion.items[0].disk_usage,
                                                       suggestion.items[0].apparent_size)
    assert first.cleanup_id == result.cleanup_id
    assert first.where == f"{tier.root}/…/{Path(first.path).name}"
    bring_back(first.pointer)
    assert sorted(i.path for i in archived_items()) == sorted(suggestion.paths[1:])
    undo(result.cleanup_id)
    assert archived_items() == []


@pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")
def test_undo_reports_the_bytes_it_copies_back(tmp_path: Path, cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    suggestion = retention_of(root)
    result = run([(suggestion, ARCHIVE)], [str(root)], tier_at(cold), recent_seconds=0)
    seen: list[tuple[int, int, str]] = []
    restored = undo(result.cleanup_id, progress=lambda *step: seen.append(step))
    assert all(r.restored_to == r.path for r in restored)
    assert {path for _, _, path in seen} == set(suggestion.paths)
    assert all(0 < done <= total for done, total, _ in seen)


def test_archive_suggestions_follow_the_user_settings(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    inv = inventory_of(root)
    plan = advise(inv)
    assert with_user_archive(plan, inv, Settings()) is plan
    assert with_user_archive(plan, inv, Settings("/mnt/cold")) == plan  # 60 days: too young
    aged = with_user_archive(plan, inv, Settings("/mnt/cold", archive_checkpoints_days=20))
    assert [s.policy for s in aged.suggestions if s.policy.startswith("archive-")] == \
        ["archive-checkpoints"]
    # A tier on the scanned folder's own disk frees nothing, and every item would be refused:
    # nothing is suggested (the app's total once rose by what could never be freed).
    (tmp_path / "cold").mkdir()
    assert with_user_archive(plan, inv, Settings(str(tmp_path / "cold"),
                                                 archive_checkpoints_days=20)) is plan


def test_the_history_says_what_it_keeps_and_what_it_costs(tmp_path: Path) -> None:
    assert scan_history.space_used() == (0, 0)
    folder = scan_history.history_dir()
    folder.mkdir(parents=True)
    (folder / "a.parquet").write_bytes(b"x" * 10_000)
    (folder / "index.json").write_text("[]")
    scans, used = scan_history.space_used()
    assert scans == 1 and used >= 10_000
    assert str(scan_history.KEEP_LAST) in scan_history.retention_words()


def test_a_copy_in_words() -> None:
    assert progress_words(1 << 30, 4 << 30, 2.0) == "1.0 GiB of 4.0 GiB, 512.0 MiB/s, 6.0 s left"
    assert progress_words(0, 0, 0.0) == "0 Bytes, 0 Bytes/s"  # nothing copied yet: no time left


def test_a_tier_that_does_not_answer_never_stalls_planning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same-disk question is asked on the app's GUI thread when the plan is made: a
    network tier whose server is gone answers nothing within a moment, and while its stat
    hangs, it is not asked again (one thread waits on it, not one per plan)."""
    from mlspace import disks

    gone = str(tmp_path / "nas")
    release, asked, answered = threading.Event(), [], []
    real = disks._stat_device

    def hanging(path: str) -> int:
        if path == gone:
            asked.append(path)
            release.wait(30)
            answered.append(path)
        return real(path)

    monkeypatch.setattr(disks, "_stat_device", hanging)
    try:
        for _ in range(3):
            assert same_disk_as(gone, [str(tmp_path)]) is None
        # Each answer came while the stat still hung: nobody waited for it to return.
        assert asked == [gone] and answered == []
    finally:
        release.set()
    (tmp_path / "cold").mkdir()
    assert same_disk_as(str(tmp_path / "cold"), [str(tmp_path)]) == str(tmp_path)
