"""Cleanups and undos against a hostile or unlucky disk: a folder swapped for a link while
the cleanup runs, an undo meeting another cleanup's items in the trash, files in use
through a symlinked root, a full disk under the journal. Nothing outside the scanned root
may move, nothing may be lost, and no command may end in a traceback."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cleanup_helpers import mount_tmpfs, tree_digest, unmount
from cli_runner import run_mlspace
from workspaces import age, hf_run, retention_of

from mlspace.act import JournalUnavailable, execute, history, undo
from mlspace.act import trash as trash_module

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")

_LIBC = ctypes.CDLL(None, use_errno=True)
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two names atomically (renameat2 RENAME_EXCHANGE), as an attacker would."""
    return _LIBC.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b),
                           _RENAME_EXCHANGE) == 0


def _trashed_names(home: Path) -> list[str]:
    files = home / ".local/share/Trash/files"
    return sorted(os.listdir(files)) if files.exists() else []


@pytest.mark.skipif(not hasattr(_LIBC, "renameat2"), reason="no renameat2 in this libc")
def test_a_folder_swapped_for_a_link_mid_cleanup_moves_nothing_from_outside(
        tmp_path: Path, isolated_user_dirs: Path) -> None:
    """Race: run/ is swapped with a link to another tree while clean runs (200+ swaps)."""
    root = tmp_path / "ws"
    run = hf_run(root)
    # The other tree is an exact copy (names, sizes, mtimes): only identity can tell it.
    other = tmp_path / "victim" / "run"
    shutil.copytree(run, other, symlinks=True, copy_function=shutil.copy2)
    age(tmp_path / "victim")
    victim_before = tree_digest(tmp_path / "victim")
    link = tmp_path / "swap-link"
    link.symlink_to(other)

    swaps = 0
    stop = threading.Event()

    def attacker() -> None:
        nonlocal swaps
        while not stop.is_set():
            if _exchange(run, link):
                swaps += 1

    undone = 0
    for _ in range(40):
        suggestion = retention_of(root) if os.path.isdir(run) and not run.is_symlink() \
            else None
        if suggestion is None:
            continue
        thread = threading.Thread(target=attacker)
        thread.start()
        try:
            result = execute([suggestion], [str(root)], recent_seconds=0)
        finally:
            stop.set()
            thread.join()
            stop.clear()
        if run.is_symlink():  # put the real folder back where it belongs
            assert _exchange(run, link)
        assert tree_digest(tmp_path / "victim") == victim_before
        if any(o.done for o in result.outcomes):
            undo(result.cleanup_id)
            undone += 1
        if swaps >= 200 and undone >= 10:
            break
    assert swaps >= 200, swaps
    assert tree_digest(tmp_path / "victim") == victim_before
    assert not run.is_symlink() and sorted(os.listdir(run)) == sorted(os.listdir(other))


def test_a_folder_replaced_by_a_link_before_the_move_is_refused(tmp_path: Path) -> None:
    """A parent folder that became a link since the scan: the item is skipped, with why."""
    root = tmp_path / "ws"
    run = hf_run(root)
    suggestion = retention_of(root)
    other = tmp_path / "elsewhere"
    shutil.copytree(run, other / "run", symlinks=True, copy_function=shutil.copy2)
    os.rename(run, tmp_path / "moved-away")
    os.symlink(other / "run", run)
    before = tree_digest(other)
    result = execute([suggestion], [str(root)], recent_seconds=0)
    assert not any(o.done for o in result.outcomes)
    assert all("no longer a folder" in o.reason or "changed" in o.reason
               for o in result.outcomes), result.outcomes
    assert tree_digest(other) == before


def test_undo_refuses_another_cleanups_item_under_the_same_name(
        tmp_path: Path, isolated_user_dirs: Path) -> None:
    """Clean P, empty the trash, clean Q with the same names: undo P must not take Q's."""
    p_root, q_root = tmp_path / "P", tmp_path / "Q"
    hf_run(p_root)
    hf_run(q_root)
    first = execute([retention_of(p_root)], [str(p_root)], recent_seconds=0)
    assert first.outcomes and all(o.done for o in first.outcomes)
    trash = isolated_user_dirs / ".local/share/Trash"
    for sub in ("files", "info"):  # the user empties the trash by hand
        shutil.rmtree(trash / sub)
    q_before_names = sorted(os.listdir(q_root / "outputs/run"))
    second = execute([retention_of(q_root)], [str(q_root)], recent_seconds=0)
    assert [Path(o.reason).name for o in second.outcomes] == \
        [Path(o.reason).name for o in first.outcomes]  # the very same names in the trash
    results = undo(first.cleanup_id)
    assert all(r.restored_to is None for r in results)
    assert all("another item" in r.reason for r in results), results
    assert sorted(os.listdir(p_root / "outputs/run")) == sorted(
        n for n in q_before_names if n not in {Path(o.path).name for o in first.outcomes})
    assert len(_trashed_names(isolated_user_dirs)) == len(second.outcomes)
    back = undo(second.cleanup_id)
    assert all(r.restored_to == r.path for r in back)
    assert sorted(os.listdir(q_root / "outputs/run")) == q_before_names


def _holder(code: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """A process that keeps something in use until killed; returns once it is ready."""
    proc = subprocess.Popen([sys.executable, "-c", code + "\nprint('ready', flush=True)\n"
                             "import time\ntime.sleep(600)"], cwd=cwd, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    return proc


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs Linux /proc")
@pytest.mark.parametrize("how", ["open", "mmap", "cwd"])
def test_items_in_use_through_a_symlinked_root_are_skipped(tmp_path: Path, how: str) -> None:
    """Open file / memory map / working folder, reached through a symlinked root (/home)."""
    real = tmp_path / "real"
    hf_run(real)
    link = tmp_path / "home-link"
    link.symlink_to(real)
    suggestion = retention_of(link)
    victim = Path(suggestion.items[0].path.replace(str(link), str(real)))
    target = victim / "optimizer.pt"
    code = {"open": f"f = open({str(target)!r}, 'rb')",
            "mmap": f"import mmap\nf = open({str(target)!r}, 'rb')\n"
                    "m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\nf.close()",
            "cwd": ""}[how]
    proc = _holder(code, cwd=victim if how == "cwd" else None)
    try:
        result = execute([suggestion], [str(link)], recent_seconds=0)
    finally:
        proc.kill()
        proc.wait()
    reasons = {o.path: o.reason for o in result.outcomes}
    assert reasons[suggestion.items[0].path].startswith("in use by a running process")
    assert target.exists()
    assert all(o.done for o in result.outcomes if o.path != suggestion.items[0].path)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> object:
    mounted: list[Path] = []

    def mount(name: str, size: str = "256k") -> Path:
        where = tmp_path / name
        mount_tmpfs(where, size)
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        unmount(where)


def _fill(folder: Path) -> None:
    """Write until the filesystem is full."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


def test_a_full_disk_under_the_journal_moves_nothing(
        tmp_path: Path, small_tmpfs: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal's disk is full: nothing moves, the message says why, no temp file left."""
    data = small_tmpfs("data")  # type: ignore[operator]
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    suggestion = retention_of(root)
    _fill(data)
    with pytest.raises(JournalUnavailable, match="No space left"):
        execute([suggestion], [str(root)], recent_seconds=0)
    assert tree_digest(root) == before
    assert [p.name for p in data.rglob("*") if p.is_file()] == ["filler"]
    cli = run_mlspace("clean", str(root), "--apply", suggestion.id, "--yes")
    assert cli.returncode == 2, cli.stderr
    assert "Traceback" not in cli.stderr
    assert "journal cannot be written" in cli.stderr and "nothing was moved" in cli.stderr
    assert tree_digest(root) == before


def test_a_journal_that_fills_up_mid_cleanup_stops_and_undo_brings_all_back(
        tmp_path: Path, small_tmpfs: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills after the plan was journaled: the cleanup stops; undo restores all."""
    data = small_tmpfs("data")  # type: ignore[operator]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home-data"))
    monkeypatch.setattr("mlspace.act.journal.journal_dir", lambda: data / "journal")
    root = tmp_path / "ws"
    hf_run(root, steps=tuple(range(10, 310, 10)))  # enough lines to need a new page
    before = tree_digest(root)
    suggestion = retention_of(root)
    assert len(suggestion.items) >= 20

    def fill_after_first(done: int, total: int, path: str) -> None:
        if done == 1:
            _fill(data)

    result = execute([suggestion], [str(root)], recent_seconds=0, progress=fill_after_first)
    assert "journal cannot be written" in result.stopped
    moved = [o for o in result.outcomes if o.done]
    assert 1 <= len(moved) < len(suggestion.items)
    assert all(o.reason.startswith("not attempted") for o in result.outcomes[len(moved):])
    (data / "filler").unlink()
    restored = undo(result.cleanup_id)
    assert {r.path for r in restored if r.restored_to} == {o.path for o in moved}
    assert tree_digest(root) == before
    assert history()[0].id == result.cleanup_id


def test_a_full_volume_leaves_no_empty_trash_record(tmp_path: Path, small_tmpfs: object,
                                                    ) -> None:
    """The item's own volume is full: its .trashinfo cannot be written, the item stays."""
    volume = small_tmpfs("scratch", "512k")  # type: ignore[operator]
    root = volume / "ws"
    hf_run(root, steps=(1, 2, 3, 4))
    suggestion = retention_of(root)
    before = tree_digest(root)
    trash = volume / f".Trash-{os.getuid()}"
    trash.mkdir(mode=0o700)
    _fill(volume)
    result = execute([suggestion], [str(root)], recent_seconds=0)
    assert not any(o.done for o in result.outcomes)
    assert all("No space left" in o.reason for o in result.outcomes), result.outcomes
    assert not any((trash / "info").iterdir()) and not any((trash / "files").iterdir())
    assert tree_digest(root) == before


def _wait_gone(path: Path) -> None:
    deadline = time.time() + 5
    while path.exists() and time.time() < deadline:
        time.sleep(0.05)
