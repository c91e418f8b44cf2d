"""Archiving to the cold tier and back, the tier on a filesystem of its own (a tmpfs): the
copy is verified, a link or stub is left, the original leaves the fast disk (not the
trash), and undo or a bring-back restores the tree byte for byte, after checking that the
archived copy reads as it was archived. Refusals and cancellations leave the original as it
was and no partial copy behind."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from cleanup_helpers import mount_tmpfs, tier_at, trash_contents, tree_digest, unmount
from layouts import inventory_of, make
from workspaces import age, hf_run, retention_of

from mlspace.act import ARCHIVE, TRASH, history, run, treecopy, undo
from mlspace.act import trash as trash_module
from mlspace.act.bring_back import NotArchived, bring_back
from mlspace.act.pointer import STUB_SUFFIX
from mlspace.act.tier import Tier, TierUnavailable
from mlspace.advise import advise

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def _files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if not p.is_dir())


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bfree * st.f_frsize


def test_archive_frees_the_fast_disk_and_undo_restores_all(
        disk: Path, cold: Path, isolated_user_dirs: Path) -> None:
    root = disk / "ws"
    run_dir = hf_run(root)
    (run_dir / "checkpoint-20" / "weights").symlink_to("model.safetensors")
    age(root)
    before = tree_digest(root)
    suggestion = retention_of(root)
    tier = tier_at(cold)
    steps: list[str] = []
    free_before = _free(disk)
    result = run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0,
                 on_step=lambda event, path: steps.append(event))
    gained = _free(disk) - free_before
    assert not result.skipped
    assert steps[:6] == ["tier-copy-begun", "tier-copied", "tier-placed", "tier-set-aside",
                         "tier-removed", "tier-linked"]
    # What mlspace says it freed is what statvfs says the disk got back: what the plan
    # promised, less what the links left take (tmpfs gives a long link target a page).
    links = sum(os.lstat(i.path).st_blocks * 512 for i in suggestion.items)
    assert result.freed == gained == suggestion.bytes - links
    assert result.moved_to_trash == 0 and result.removed == suggestion.bytes
    for item in suggestion.items:
        dest = Path(tier.destination(item.path))
        assert os.readlink(item.path) == str(dest)
        assert dest == cold / "box" / item.path.lstrip("/")
        assert (Path(item.path) / "model.safetensors").read_bytes() == \
            (dest / "model.safetensors").read_bytes()
    assert os.readlink(Path(tier.destination(suggestion.items[0].path)) / "weights") == \
        "model.safetensors"  # a link inside is copied as a link
    assert not os.path.exists(disk / ".Trash-0" / "files") or \
        os.listdir(disk / ".Trash-0" / "files") == []
    assert history()[0].kind == "tier" and len(history()[0].archived) == 3
    restored = undo(result.cleanup_id)
    assert all(r.restored_to == r.path for r in restored), restored
    assert tree_digest(root) == before
    assert _files_in(cold) == []


def test_the_folders_made_in_the_tier_are_closed_to_others(tmp_path: Path, cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    suggestion = retention_of(root)
    tier = tier_at(cold)
    assert not run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0).skipped
    made = Path(tier.destination(suggestion.items[0].path)).parent
    while made != cold:
        assert stat.S_IMODE(os.stat(made).st_mode) == 0o700, made
        made = made.parent


def test_a_stub_instead_of_a_link_and_bring_back_by_the_stub(tmp_path: Path, cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    suggestion = retention_of(root)
    tier = tier_at(cold, link="stub")
    result = run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0)
    assert not result.skipped
    first = suggestion.items[0].path
    assert not os.path.lexists(first) and os.path.isfile(first + STUB_SUFFIX)
    back = bring_back(first + STUB_SUFFIX)
    assert back.restored_to == first
    assert not os.path.lexists(first + STUB_SUFFIX)
    assert not os.path.lexists(tier.destination(first))
    restored = undo(result.cleanup_id)  # the other two; the first is not taken twice
    assert sorted(r.path for r in restored) == sorted(suggestion.paths[1:])
    assert tree_digest(root) == before


def test_bring_back_onto_a_disk_without_room_copies_nothing(disk: Path, tmp_path: Path) -> None:
    """The disk that was full is often still nearly full: bringing a checkpoint back first
    asks for room, and without it leaves the stub, the archived copy and the disk alone."""
    root = disk / "ws"
    hf_run(root)
    suggestion = retention_of(root)
    big = tmp_path / "big-cold"
    mount_tmpfs(big, "64m")
    try:
        tier = tier_at(big, link="stub")
        assert not run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0).skipped
        first = suggestion.items[0].path
        archived = tree_digest(Path(tier.destination(first)))
        filler = disk / "filler"
        with open(filler, "wb") as f:  # the disk fills up again
            while True:
                try:
                    f.write(b"x" * (1 << 20))
                    f.flush()
                except OSError:
                    break
        back = bring_back(first + STUB_SUFFIX)
        assert back.restored_to is None
        assert "the disk has" in back.reason and "still archived" in back.reason
        assert os.path.isfile(first + STUB_SUFFIX)
        assert tree_digest(Path(tier.destination(first))) == archived
        assert not [p for p in Path(first).parent.iterdir() if p.name.startswith(".mlspace")]
        filler.unlink()
        assert bring_back(first + STUB_SUFFIX).restored_to == first
    finally:
        unmount(big)


def test_trash_and_archive_actions_share_one_undoable_journal(tmp_path: Path,
                                                             cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    make(root, {"src/__pycache__/m.cpython-311.pyc": 100})
    age(root)
    before = tree_digest(root)
    plan = advise(inventory_of(root))
    caches = next(s for s in plan.suggestions if s.policy == "python-caches")
    result = run([(retention_of(root), ARCHIVE), (caches, TRASH)], [str(root)],
                 tier_at(cold), recent_seconds=0)
    assert not result.skipped and len(result.outcomes) == 4
    assert result.moved_to_trash == caches.bytes
    assert not (root / "src/__pycache__").exists()
    undo(result.cleanup_id)
    assert tree_digest(root) == before


def test_a_fifo_inside_stops_that_item_untouched(tmp_path: Path, cold: Path) -> None:
    root = tmp_path / "ws"
    run_dir = hf_run(root)
    before = tree_digest(root)  # without the FIFO: reading one blocks
    os.mkfifo(run_dir / "checkpoint-20" / "pipe")
    age(root)
    result = run([(retention_of(root), ARCHIVE)], [str(root)], tier_at(cold), recent_seconds=0)
    reasons = {Path(o.path).name: o.reason for o in result.outcomes}
    assert "is a FIFO" in reasons["checkpoint-20"] and "original is untouched" in \
        reasons["checkpoint-20"]
    assert stat.S_ISFIFO(os.lstat(run_dir / "checkpoint-20" / "pipe").st_mode)
    assert not any(".mlspace-partial" in f for f in _files_in(cold))
    assert sum(o.done for o in result.outcomes) == 2
    undo(result.cleanup_id)
    (run_dir / "checkpoint-20" / "pipe").unlink()
    assert tree_digest(root) == before


def test_cancelling_rolls_back_the_item_and_stops(tmp_path: Path, cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    asked = {"n": 0}

    def cancel() -> bool:
        asked["n"] += 1
        return asked["n"] > 3  # some way into the first copy

    result = run([(retention_of(root), ARCHIVE)], [str(root)], tier_at(cold),
                 recent_seconds=0, cancel=cancel)
    assert result.outcomes[0].reason.startswith("cancelled")
    assert all(o.reason.startswith("not attempted") for o in result.outcomes[1:])
    assert "cancelled" in result.stopped
    assert tree_digest(root) == before
    assert _files_in(cold) == []


def test_a_copy_that_does_not_read_back_the_same_is_rolled_back(
        tmp_path: Path, cold: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    real = treecopy.summarize

    def corrupted(parent_fd: int, name: str, read: bool = True, **kw: object
                  ) -> treecopy.Summary:
        got = real(parent_fd, name, read, **kw)  # type: ignore[arg-type]
        return treecopy.Summary("0" * 64, got.listing, got.bytes, got.files) if read else got

    monkeypatch.setattr(treecopy, "summarize", corrupted)
    result = run([(retention_of(root), ARCHIVE)], [str(root)], tier_at(cold), recent_seconds=0)
    assert all("does not read back the same" in o.reason for o in result.outcomes)
    assert tree_digest(root) == before
    assert _files_in(cold) == []


def test_the_same_disk_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    (tmp_path / "cold").mkdir()
    result = run([(retention_of(root), ARCHIVE)], [str(root)], Tier(str(tmp_path / "cold")),
                 recent_seconds=0)
    assert all("same disk" in o.reason and "free nothing" in o.reason
               for o in result.outcomes)
    assert tree_digest(root) == before
    assert os.listdir(tmp_path / "cold") == []  # refused before any folder was made there
    with pytest.raises(TierUnavailable, match="not there"):
        run([(retention_of(root), ARCHIVE)], [str(root)], Tier(str(tmp_path / "nas")))


def test_an_existing_archived_copy_is_never_overwritten(tmp_path: Path, cold: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    suggestion = retention_of(root)
    tier = tier_at(cold)
    taken = Path(tier.destination(suggestion.items[0].path))
    taken.mkdir(parents=True, mode=0o700)
    for folder in taken.parents:
        if folder == cold:
            break
        folder.chmod(0o700)
    (taken / "someone-elses").write_text("keep me")
    result = run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0)
    assert "already holds" in result.outcomes[0].reason
    assert (taken / "someone-elses").read_text() == "keep me"
    assert os.path.isdir(suggestion.items[0].path) and not os.path.islink(
        suggestion.items[0].path)


def test_bring_back_refuses_a_link_mlspace_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "ckpt").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(NotArchived, match="not in the archive folder"):
        bring_back(str(tmp_path / "ws" / "ckpt"), archive_root=str(tmp_path / "cold"))
    with pytest.raises(NotArchived, match="not an archived item"):
        bring_back(str(tmp_path / "elsewhere"))


def test_sparse_files_stay_sparse_and_times_are_kept(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    dst.mkdir()
    with open(src / "big.bin", "wb") as f:
        f.seek(64 << 20)
        f.write(b"end")
    os.utime(src / "big.bin", ns=(1_000_000_123, 2_000_000_456))
    src_fd, dst_fd = os.open(src, os.O_RDONLY), os.open(dst, os.O_RDONLY)
    try:
        copied = treecopy.copy_tree(src_fd, "big.bin", dst_fd, "copy.bin")
        assert treecopy.summarize(dst_fd, "copy.bin").digest == copied.digest
    finally:
        os.close(src_fd)
        os.close(dst_fd)
    st = os.stat(dst / "copy.bin")
    assert st.st_size == (64 << 20) + 3 and st.st_mtime_ns == 2_000_000_456
    assert st.st_blocks * 512 < 1 << 20


@pytest.mark.parametrize("swapped", ["run folder", "checkpoint"])
def test_a_folder_swapped_for_a_link_after_the_scan_archives_nothing_from_outside(
        tmp_path: Path, cold: Path, swapped: str) -> None:
    """Between plan and archive, a folder is swapped for a link to an identical copy
    elsewhere (same names, sizes and times: only the inode tells them apart). Nothing of
    the other tree is copied to the tier, moved or removed."""
    root = tmp_path / "ws"
    run_dir = hf_run(root)
    age(root)
    suggestion = retention_of(root)
    elsewhere = tmp_path / "elsewhere"
    target = run_dir if swapped == "run folder" else Path(suggestion.items[0].path)
    shutil.copytree(target, elsewhere, symlinks=True)
    shutil.copystat(target, elsewhere)
    other = tree_digest(elsewhere)
    shutil.rmtree(target)
    target.symlink_to(elsewhere)
    tier = tier_at(cold)
    result = run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0)
    assert tree_digest(elsewhere) == other
    assert target.is_symlink() and os.readlink(target) == str(elsewhere)
    swapped_items = [i.path for i in suggestion.items
                     if i.path == str(target) or i.path.startswith(str(run_dir) + "/")
                     and swapped == "run folder"]
    assert swapped_items and {o.path for o in result.skipped} >= set(swapped_items)
    assert not any(Path(tier.destination(p)).exists() for p in swapped_items)
    assert trash_contents(tmp_path)[0] == []
