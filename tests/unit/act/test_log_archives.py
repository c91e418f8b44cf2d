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
    assert 0 < result.moved_to_trash < suggestion.bytes  # the archive takes some space back
    undo(result.cleanup_id)
    assert not archive.exists()
    assert tree_digest(root) == before
