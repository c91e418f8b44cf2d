"""Freeing what mlspace moved to the trash, on a real filesystem of its own (a tmpfs, so its
free space moves only with what the test does): the disk gets back what mlspace says it
freed, measured independently with statvfs; nothing is deleted that mlspace did not put
there as it was, nothing outside the trash folders, nothing another user owns; a purge
killed half-way leaves a journal that says what is gone, and the next one finishes it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from workspaces import hf_run, retention_of

from mlspace.act import execute, history, purge, undo
from mlspace.act import trash as trash_module

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")

DAY = 86400.0
TESTS = Path(__file__).resolve().parents[2]


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bfree * st.f_frsize


def _cleaned(disk: Path) -> tuple[Path, object]:
    """A workspace on the tmpfs ``disk`` with one retention cleanup done (to the trash)."""
    root = disk / "ws"
    hf_run(root)
    suggestion = retention_of(root)
    result = execute([suggestion], [str(root)], recent_seconds=0)
    assert len(result.done) == 3 and result.freed is None
    return root, result


def _trash_files(disk: Path) -> list[str]:
    files = disk / f".Trash-{os.getuid()}" / "files"
    return sorted(os.listdir(files)) if files.is_dir() else []


def test_a_cleanup_to_the_trash_frees_nothing_and_a_purge_frees_it(disk: Path) -> None:
    free_before = _free(disk)
    root, result = _cleaned(disk)
    after_clean = _free(disk)
    # The trash is on the same disk: moving there gave nothing back (the .trashinfo
    # records take a page each), and mlspace said so (freed None, moved_to_trash).
    assert after_clean <= free_before and result.moved_to_trash > 0
    items = purge.select([result.cleanup_id])
    assert sorted(i.path for i in items) == sorted(o.path for o in result.done)
    done = purge.purge(items)
    gained = _free(disk) - after_clean
    assert not done.left and len(done.purged) == 3
    assert done.freed == gained  # what mlspace says is what statvfs says
    # ... and that is what the items took, less nothing (tmpfs has no metadata slack for
    # files; each .trashinfo page comes back too, so at most 3 pages more).
    assert result.moved_to_trash <= gained <= result.moved_to_trash + 3 * 4096
    assert _trash_files(disk) == []
    record = history()[0]
    assert len(record.purged) == 3 and record.freed == gained and not record.in_trash
    said = undo(result.cleanup_id)
    assert [r.restored_to for r in said] == [None] * 3
    assert all("deleted for good" in r.reason for r in said)


def test_a_purge_leaves_what_changed_was_swapped_or_came_back(disk: Path,
                                                              tmp_path: Path) -> None:
    root, result = _cleaned(disk)
    files = disk / f".Trash-{os.getuid()}" / "files"
    changed, swapped, linked = sorted(files.iterdir())
    with open(changed / "model.safetensors", "ab") as f:  # written to in the trash
        f.write(b"more")
    shutil.rmtree(swapped)  # another item under the same name
    swapped.mkdir()
    (swapped / "keep.txt").write_text("someone else's")
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "data.bin").write_bytes(b"x" * 5000)
    shutil.rmtree(linked)  # a link in its place, into data outside the trash
    linked.symlink_to(outside)
    before_outside = tree_digest(outside)
    done = purge.purge(purge.select([result.cleanup_id]))
    assert done.purged == ()
    reasons = {Path(i.trash_file).name: why for i, why in done.left}
    assert "changed since the scan" in reasons[changed.name]
    assert "another item" in reasons[swapped.name]
    assert "link" in reasons[linked.name] or "another item" in reasons[linked.name]
    assert (swapped / "keep.txt").read_text() == "someone else's"
    assert tree_digest(outside) == before_outside and linked.is_symlink()
    assert (changed / "model.safetensors").exists()


def test_an_undone_cleanup_has_nothing_to_purge(disk: Path) -> None:
    root, result = _cleaned(disk)
    undo(result.cleanup_id)
    assert purge.select([result.cleanup_id]) == []
    assert purge.purge(purge.select()).purged == ()
    assert all((Path(o.path)).is_dir() for o in result.done)


def test_only_what_mlspace_put_in_the_trash_is_ever_deleted(disk: Path) -> None:
    """The user's own items in the same trash, and another user's trash folder on the
    volume, are never touched; nor is a path a journal names outside any trash folder."""
    root, result = _cleaned(disk)
    trash = disk / f".Trash-{os.getuid()}"
    (trash / "files" / "mine.txt").write_text("trashed by hand")
    (trash / "info" / "mine.txt.trashinfo").write_text("[Trash Info]\nPath=ws/mine.txt\n")
    other = disk / ".Trash-4242" / "files"
    other.mkdir(parents=True)
    (other / "theirs.bin").write_bytes(b"y" * 4096)
    os.chown(other.parent, 4242, 4242)
    done = purge.purge(purge.select())
    assert len(done.purged) == 3
    assert (trash / "files" / "mine.txt").read_text() == "trashed by hand"
    assert (other / "theirs.bin").read_bytes() == b"y" * 4096
    forged = purge.PurgeItem("x", str(root / "outputs/run/checkpoint-60"),
                             str(root / "outputs/run/checkpoint-60"), "", 0, 0.0,
                             {"path": "", "is_dir": True}, {})
    assert "not in a trash folder" in (purge.why_not(forged) or "")
    assert (root / "outputs/run/checkpoint-60").is_dir()


def test_retention_removes_exactly_what_is_past_its_age(disk: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    first = execute([retention_of(root)], [str(root)], recent_seconds=0)
    time.sleep(0.3)
    (root / "src" / "__pycache__").mkdir(parents=True)
    (root / "src" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"z" * 100)
    from layouts import inventory_of

    from mlspace.advise import advise

    caches = [s for s in advise(inventory_of(root)).suggestions if s.policy == "python-caches"]
    second = execute(caches, [str(root)], recent_seconds=0)
    trashed_first = min(i.trashed_at for i in purge.select([first.cleanup_id]))
    # One day after the first cleanup's items went, the second's (0.3 s younger) stay.
    now = max(i.trashed_at for i in purge.select([first.cleanup_id])) + DAY + 0.1
    assert now - trashed_first >= DAY
    expired = purge.expire(1.0, now=now)
    assert sorted(p.cleanup_id for p in expired.purged) == [first.cleanup_id] * 3
    assert [i.cleanup_id for i in purge.select()] == [second.cleanup_id]
    assert purge.expire(0, now=now + 10 * DAY).purged == ()  # 0: kept until freed by hand


_CHILD = """
import os, signal, sys
from mlspace.act import purge, treecopy
removed = [0]
real = os.unlink
def unlink(name, *args, **kw):
    real(name, *args, **kw)
    removed[0] += 1
    if removed[0] == int(sys.argv[1]):
        os.kill(os.getpid(), signal.SIGKILL)
os.unlink = unlink
purge.purge(purge.select())
"""


def test_a_purge_killed_half_way_says_what_is_gone_and_the_next_finishes(disk: Path) -> None:
    root, result = _cleaned(disk)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(TESTS / "unit" / "act"), str(TESTS / "hostile"), str(TESTS)]))
    child = subprocess.run([sys.executable, "-c", _CHILD, "6"], env=env, capture_output=True,
                           text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    record = history()[0]
    gone = sorted(i["path"] for i in record.purged)
    waiting = sorted(e["path"] for e in record.in_trash)
    assert gone and waiting and len(gone) + len(waiting) == 3  # the journal says which
    leftovers = [n for n in _trash_files(disk) if n.startswith(".mlspace-purging-")]
    assert leftovers  # what the killed purge had begun waits under its private name
    said = {r.path: r for r in undo(result.cleanup_id)}
    assert all("deleted for good" in said[p].reason for p in gone)
    assert all(said[p].restored_to == p and Path(p).is_dir() for p in waiting)
    done = purge.purge(purge.select())
    assert done.finished and _trash_files(disk) == []
    assert sorted(i["path"] for i in history()[0].purged) == gone
