"""Old log folders are compressed beside themselves; undo brings them back and trashes the
archive."""

from __future__ import annotations

import os
import tarfile
import time
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from layouts import inventory_of, make

from mlspace.act import execute, undo
from mlspace.act import trash as trash_module
from mlspace.advise import advise

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")
RUN = "wandb/run-20240101_120000-abc123de"


def _old_logs(root: Path, age_days: float = 200) -> Path:
    lines = "".join(f"step {i} loss {1 / (i + 1):.6f}\n" for i in range(60_000))
    make(root, {f"{RUN}/files/output.log": lines, f"{RUN}/run-abc123de.wandb": 400_000,
                f"{RUN}/logs/debug.log": "x\n", "wandb/run-20991231_000000-new00000/files/"
                "output.log": lines})
    old = time.time() - age_days * 86400
    for folder, dirs, files in os.walk(root / RUN, topdown=False):
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (old, old))
        os.utime(folder, (old, old))
    return root


def test_old_log_folder_is_archived_and_undo_restores_it(tmp_path: Path) -> None:
    root = _old_logs(tmp_path / "ws")
    before = tree_digest(root)
    plan = advise(inventory_of(root))
    archives = [s for s in plan.suggestions if s.policy == "log-archives"]
    assert [s.paths for s in archives] == [(str(root / RUN),)]  # the recent run is left alone
    suggestion = archives[0]
    assert suggestion.archive and suggestion.risk == "review"
    result = execute([suggestion], plan.roots, recent_seconds=0)
    assert not result.skipped
    archive = Path(str(root / RUN) + ".tar.gz")
    assert not (root / RUN).exists()
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        member = tar.extractfile(f"{Path(RUN).name}/files/output.log")
        assert member is not None and member.read().startswith(b"step 0 loss")
    assert f"{Path(RUN).name}/logs/debug.log" in names
    # The trash holds the whole folder; what a purge frees is the folder less the archive,
    # which the suggestion promised "about": a compressed sample said so.
    folder = sum(i.disk_usage for i in suggestion.items)
    assert result.moved_to_trash == folder
    kept = archive.stat().st_blocks * 512
    assert abs((folder - kept) - suggestion.bytes) < 0.15 * folder
    assert "frees about" in suggestion.reason
    undo(result.cleanup_id)
    assert not archive.exists()
    assert tree_digest(root) == before


def test_logs_that_are_already_compressed_are_not_offered(tmp_path: Path) -> None:
    """W&B's .wandb records and event files compress to nothing: a tarball of them would
    free nothing (or grow), so no suggestion promises it."""
    root = tmp_path / "ws"
    make(root, {f"{RUN}/run-abc123de.wandb": 3_000_000, f"{RUN}/files/media/a.png": 500_000})
    old = time.time() - 200 * 86400
    for folder, dirs, files in os.walk(root / RUN, topdown=False):
        for name in dirs + files:
            os.utime(os.path.join(folder, name), (old, old))
        os.utime(folder, (old, old))
    assert not [s for s in advise(inventory_of(root)).suggestions if s.policy == "log-archives"]


def test_a_pack_that_would_not_shrink_leaves_the_folder(tmp_path: Path) -> None:
    """Asked to pack a folder of incompressible bytes anyway, the cleanup keeps the folder
    as it was, leaves no archive, and says why."""
    from dataclasses import replace

    root = tmp_path / "ws"
    make(root, {f"{RUN}/run-abc123de.wandb": 3_000_000, f"{RUN}/logs/debug.log": "x\n"})
    before = tree_digest(root)
    inv = inventory_of(root)
    from mlspace.advise.build import artifact_items
    from mlspace.advise.build import make as suggest

    run = next(a for a in inv.artifacts if a.path == str(root / RUN))
    forced = suggest("log-archives", "Compress", "", "review", artifact_items(inv, run), None,
                     archive=True)
    result = execute([replace(forced)], [str(root)], recent_seconds=0)
    (skipped,) = result.skipped
    assert "freeing next to nothing: the folder stays as it is" in skipped.reason
    assert tree_digest(root) == before
    assert not Path(str(root / RUN) + ".tar.gz").exists()
    assert not list(root.glob("wandb/*.partial"))


def test_the_packing_estimate_reads_a_file_again_only_when_it_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rescan re-estimates only what changed: the same inode, size and time keep their
    compressed figure; new content of another size is read and compressed afresh."""
    from mlspace.advise import packing

    root = _old_logs(tmp_path / "ws")
    reads: list[str] = []
    real_read = packing.read_head
    monkeypatch.setattr(packing, "read_head", lambda path, limit: (
        reads.append(path), real_read(path, limit))[1])
    log = root / RUN / "files" / "output.log"

    def estimate() -> float | None:
        inv = inventory_of(root)
        return packing.packed_share(inv, inv.snapshot.row_of(inv.snapshot.find(str(root / RUN))))

    text_share = estimate()
    assert str(log) in reads
    reads.clear()
    assert estimate() == text_share and str(log) not in reads
    log.write_bytes(os.urandom(600_000))  # now incompressible, and another size
    changed = estimate()
    assert str(log) in reads
    assert changed is not None and text_share is not None and changed > text_share
