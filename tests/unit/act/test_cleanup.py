"""Cleanups against the real freedesktop trash in a temporary home (never a mock)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from cleanup_helpers import trash_contents, tree_digest
from layouts import inventory_of, make

from mlspace.act import execute, history, last_undoable, undo
from mlspace.act import trash as trash_module
from mlspace.advise import advise
from mlspace.demo import generate

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def _plan(root: Path):  # noqa: ANN202
    return advise(inventory_of(root))


def test_apply_then_undo_is_byte_identical(tmp_path: Path, isolated_user_dirs: Path) -> None:
    root = generate(tmp_path / "ws")
    before = tree_digest(root)
    plan = _plan(root)
    result = execute(plan.suggestions, plan.roots, recent_seconds=0)
    assert not result.skipped, result.skipped
    assert result.moved_to_trash == plan.total_bytes and result.freed is None
    files, infos = trash_contents(isolated_user_dirs)
    assert len(files) == len(infos) == sum(len(s.items) for s in plan.suggestions)
    assert all(not os.path.lexists(p) for s in plan.suggestions for p in s.paths)
    info = (isolated_user_dirs / ".local/share/Trash/info" / infos[0]).read_text()
    assert info.startswith("[Trash Info]") and "Path=" in info and "DeletionDate=" in info
    restored = undo(result.cleanup_id)
    assert all(r.restored_to == r.path for r in restored)
    assert tree_digest(root) == before
    assert trash_contents(isolated_user_dirs) == ([], [])
    record = history()[0]
    assert record.undone and record.id == result.cleanup_id
    assert record.bytes_in_trash == 0 and record.moved_when_run == plan.total_bytes
    titles = [s.title for s in plan.suggestions]
    assert len(titles) > 2 and record.title == \
        f"{titles[0]}; {titles[1]} and {len(titles) - 2} more"  # not "9 cleanups"


def test_items_changed_since_the_scan_are_skipped(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    plan = _plan(root)
    retention = next(s for s in plan.suggestions if s.policy == "checkpoint-retention")
    grown = Path(retention.items[0].path) / "model.safetensors"
    old = os.stat(grown).st_mtime
    with open(grown, "ab") as f:
        f.write(b"more")
    os.utime(grown, (old, old))
    recent = Path(retention.items[1].path) / "config.json"
    recent.write_text("{}")
    result = execute([retention], plan.roots)
    reasons = {o.path: o.reason for o in result.skipped}
    assert reasons[retention.items[0].path] == "changed since the scan"
    assert reasons[retention.items[1].path] == "changed since the scan"
    assert os.path.exists(retention.items[0].path) and os.path.exists(retention.items[1].path)


def test_recently_written_and_open_files_are_skipped(tmp_path: Path) -> None:
    make(tmp_path / "ws", {"job/core.1": b"\x7fELF", "job/old.pt.trace.json": 100,
                           "job/busy.pt.trace.json": 100})
    long_ago = time.time() - 90 * 86400
    for name in ("old.pt.trace.json", "busy.pt.trace.json"):
        os.utime(tmp_path / "ws/job" / name, (long_ago, long_ago))
    plan = _plan(tmp_path / "ws")
    debug = next(s for s in plan.suggestions if s.policy == "debug-dumps")
    with open(tmp_path / "ws/job/busy.pt.trace.json", "rb"):
        result = execute([debug], plan.roots)
    reasons = {Path(o.path).name: o.reason for o in result.outcomes}
    assert reasons["busy.pt.trace.json"].startswith("in use by a running process")
    assert not os.path.exists(tmp_path / "ws/job/old.pt.trace.json")
    # a file written a moment ago is refused even when it matches the scan
    fresh_plan = _plan(tmp_path / "ws")
    assert all("core.1" not in p for s in fresh_plan.suggestions for p in s.paths)


def test_paths_outside_the_scanned_roots_are_refused(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    plan = _plan(root)
    result = execute(plan.suggestions[:1], [str(tmp_path / "elsewhere")], recent_seconds=0)
    assert {o.reason for o in result.outcomes} == {"not inside a scanned folder"}


@pytest.mark.parametrize("in_its_place", ["a file", "a symlink"])
def test_no_trash_means_nothing_is_done(tmp_path: Path, isolated_user_dirs: Path,
                                        in_its_place: str) -> None:
    """The home trash (the one for this disk) cannot be used: a file stands where its folder
    should be, or a link to a folder elsewhere (which the trash spec says not to follow)."""
    root = generate(tmp_path / "ws")
    plan = _plan(root)
    trash = isolated_user_dirs / ".local" / "share" / "Trash"
    if in_its_place == "a file":
        trash.write_text("not a folder")
    else:
        (tmp_path / "elsewhere").mkdir()
        trash.symlink_to(tmp_path / "elsewhere")
    result = execute(plan.suggestions[:1], plan.roots, recent_seconds=0)
    assert result.moved_to_trash == 0 and len(result.skipped) == len(plan.suggestions[0].items)
    assert all("nothing was done" in o.reason for o in result.skipped), result.skipped
    assert all(os.path.exists(p) for p in plan.suggestions[0].paths)
    if in_its_place == "a file":
        assert trash.read_text() == "not a folder"
    else:
        assert list((tmp_path / "elsewhere").iterdir()) == []  # nothing went through the link


def test_undo_refuses_to_overwrite_and_can_restore_beside(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    plan = _plan(root)
    s = next(s for s in plan.suggestions if s.policy == "datasets-cache")
    result = execute([s], plan.roots, recent_seconds=0)
    recreated = Path(s.paths[0])
    recreated.write_text("new data")
    refused = undo(result.cleanup_id)
    assert [r.reason for r in refused if r.path == str(recreated)] == [
        "a new item exists at this path; restore beside it instead"]
    assert recreated.read_text() == "new data"
    beside = undo(result.cleanup_id, beside=True)
    assert [r.restored_to for r in beside] == [f"{recreated} (restored)"]
    assert recreated.read_text() == "new data"
    assert last_undoable() is None


def test_symlinks_go_as_links(tmp_path: Path) -> None:
    target = tmp_path / "keep-me.bin"
    target.write_bytes(b"precious")
    make(tmp_path / "ws", {"src/__pycache__/a.pyc": 10})
    os.symlink(target, tmp_path / "ws/src/__pycache__/link.pyc")
    plan = _plan(tmp_path / "ws")
    caches = next(s for s in plan.suggestions if s.policy == "python-caches")
    result = execute([caches], plan.roots, recent_seconds=0)
    assert not result.skipped
    assert target.read_bytes() == b"precious"
    undo(result.cleanup_id)
    assert os.readlink(tmp_path / "ws/src/__pycache__/link.pyc") == str(target)
