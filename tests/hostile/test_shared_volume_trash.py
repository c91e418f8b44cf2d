"""The trash on a shared volume (cluster scratch: world-writable and sticky), where another
user can create the trash folder's name before you. The cleanup runs as a second user in a
forked child; another uid plays the neighbour. Needs root to mount a tmpfs and switch uid."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from hostile_helpers import as_user
from workspaces import hf_run, retention_of

from mlspace.act import execute, undo
from mlspace.act import trash as trash_module
from mlspace.advise import Suggestion

YOU, NEIGHBOUR = 65534, 65533

pytestmark = [
    pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: mounts a tmpfs, switches uid"),
]


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder every uid can pass through (pytest's own tmp folders are root's, 0700)."""
    where = Path(tempfile.mkdtemp(prefix="mlspace-shared-"))
    os.chmod(where, 0o755)
    yield where
    shutil.rmtree(where, ignore_errors=True)


@pytest.fixture
def scratch(base: Path) -> Iterator[Path]:
    """A world-writable, sticky tmpfs: its own filesystem, like a cluster's scratch."""
    where = base / "scratch"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=1777", "tmpfs",
                           str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


def _chown_tree(root: Path, uid: int) -> None:
    os.chown(root, uid, uid)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _as_you(base: Path, work: Callable[[], object]) -> object:
    """Run ``work`` in a forked child that is uid YOU, with its own home on another
    filesystem; return what it returned (JSON)."""
    home = base / "your-home"
    home.mkdir(exist_ok=True)
    os.chown(home, YOU, YOU)

    def at_home() -> object:
        os.environ["HOME"] = str(home)
        os.environ["XDG_DATA_HOME"] = str(home / "data")
        return work()
    return as_user(YOU, at_home)


def _clean_and_undo(suggestion: Suggestion, root: Path) -> Callable[[], object]:
    def work() -> dict:
        result = execute([suggestion], [str(root)], recent_seconds=0)
        done = [o for o in result.outcomes if o.done]
        restored = undo(result.cleanup_id) if done else []
        return {"moved": [o.reason for o in done],
                "skipped": [o.reason for o in result.skipped],
                "restored": [r.restored_to for r in restored if r.restored_to]}
    return work


def _workspace(scratch: Path) -> tuple[Path, Suggestion, dict[str, str]]:
    root = scratch / "you" / "ws"
    hf_run(root)
    _chown_tree(scratch / "you", YOU)
    return root, retention_of(root), tree_digest(root)


def _neighbours_folder(path: Path, mode: int = 0o777) -> Path:
    path.mkdir()
    os.chown(path, NEIGHBOUR, NEIGHBOUR)
    os.chmod(path, mode)
    return path


def test_a_trash_folder_made_by_another_user_is_not_used(scratch: Path, base: Path) -> None:
    """A neighbour pre-created .Trash-<your uid>: nothing goes there, each item says why."""
    root, suggestion, before = _workspace(scratch)
    planted = _neighbours_folder(scratch / f".Trash-{YOU}")
    got = _as_you(base, _clean_and_undo(suggestion, root))
    assert got["moved"] == [] and len(got["skipped"]) == len(suggestion.items)  # type: ignore[index]
    assert all("belongs to another user" in r for r in got["skipped"])  # type: ignore[index]
    assert list(planted.rglob("*")) == []
    assert tree_digest(root) == before


def test_a_trash_folder_that_is_a_link_is_not_used(scratch: Path, base: Path) -> None:
    """.Trash-<your uid> is a symlink to the neighbour's folder: not followed, not used."""
    root, suggestion, before = _workspace(scratch)
    theirs = _neighbours_folder(scratch / "neighbour")
    (scratch / f".Trash-{YOU}").symlink_to(theirs)
    got = _as_you(base, _clean_and_undo(suggestion, root))
    assert got["moved"] == []  # type: ignore[index]
    assert all("symbolic link" in r for r in got["skipped"])  # type: ignore[index]
    assert list(theirs.rglob("*")) == []
    assert tree_digest(root) == before


def test_an_open_trash_folder_of_yours_is_not_used(scratch: Path, base: Path) -> None:
    """Your own .Trash-<uid> but open to everyone (mode 777): refused, as the spec asks."""
    root, suggestion, before = _workspace(scratch)
    folder = scratch / f".Trash-{YOU}"
    folder.mkdir()
    os.chown(folder, YOU, YOU)
    os.chmod(folder, 0o777)
    got = _as_you(base, _clean_and_undo(suggestion, root))
    assert got["moved"] == []  # type: ignore[index]
    assert all("open to other users" in r for r in got["skipped"])  # type: ignore[index]
    assert tree_digest(root) == before


@pytest.mark.parametrize("shared", ["none", "not sticky", "sticky, neighbour's uid folder"])
def test_a_private_trash_is_made_and_undo_brings_everything_back(
        scratch: Path, base: Path, shared: str) -> None:
    """No usable .Trash/<uid>: mlspace makes .Trash-<uid> (0700, yours), moves, undoes."""
    root, suggestion, before = _workspace(scratch)
    if shared != "none":
        common = scratch / ".Trash"
        common.mkdir()
        os.chmod(common, 0o1777 if shared.startswith("sticky") else 0o777)
        if shared.startswith("sticky"):
            _neighbours_folder(common / str(YOU))
    got = _as_you(base, _clean_and_undo(suggestion, root))
    assert len(got["moved"]) == len(suggestion.items)  # type: ignore[index]
    assert all(p.startswith(f"{scratch}/.Trash-{YOU}/files/") for p in got["moved"])  # type: ignore[index]
    st = os.lstat(scratch / f".Trash-{YOU}")
    assert st.st_uid == YOU and st.st_mode & 0o777 == 0o700
    assert sorted(got["restored"]) == sorted(i.path for i in suggestion.items)  # type: ignore[index]
    assert tree_digest(root) == before
    if shared.startswith("sticky"):
        assert list((scratch / ".Trash" / str(YOU)).rglob("*")) == []


def test_your_own_shared_trash_folder_is_used(scratch: Path, base: Path) -> None:
    """A sticky .Trash with your own 0700 .Trash/<uid>: the spec's first choice, used."""
    root, suggestion, before = _workspace(scratch)
    common = scratch / ".Trash"
    common.mkdir()
    os.chmod(common, 0o1777)
    got = _as_you(base, _clean_and_undo(suggestion, root))
    assert all(p.startswith(f"{common}/{YOU}/files/") for p in got["moved"])  # type: ignore[index]
    assert len(got["restored"]) == len(suggestion.items)  # type: ignore[index]
    assert tree_digest(root) == before
    shutil.rmtree(common)
