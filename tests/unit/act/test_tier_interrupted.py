"""An archive killed (SIGKILL) at each step, then undone or run again: nothing is lost and
nothing is duplicated. The archive runs in a child process that kills itself right after
the step is journaled (through the step callback every run has), or in the middle of a
copy (through the progress callback). The tier is a tmpfs of its own: a second filesystem,
as a NAS would be."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cleanup_helpers import tier_at, trash_contents, tree_digest
from workspaces import hf_run, retention_of

from mlspace.act import ARCHIVE, history, run, undo
from mlspace.act import trash as trash_module

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")

TESTS = Path(__file__).resolve().parents[2]
_CHILD = """
import os, signal, sys
from pathlib import Path
from cleanup_helpers import tier_at
from workspaces import retention_of
from mlspace.act import ARCHIVE, run
root, cold, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

def die(*_):
    os.kill(os.getpid(), signal.SIGKILL)

def on_step(event, path):
    if event == kill_at:
        die()

def progress(done, total, path):
    if kill_at == "mid-copy" and done > 6000:
        die()

run([(retention_of(root), ARCHIVE)], [str(root)], tier_at(cold), recent_seconds=0,
    on_step=on_step, progress=progress)
"""
STEPS = ("mid-copy", "tier-copied", "tier-placed", "tier-set-aside", "tier-removed",
         "tier-linked")


def _killed_archive(tmp_path: Path, kill_at: str) -> tuple[Path, dict[str, str]]:
    """An HF run archived by a child killed at ``kill_at``: its root, and its tree before."""
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(TESTS / "unit" / "act"), str(TESTS / "hostile"), str(TESTS)]))
    child = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(tmp_path / "cold"),
                            kill_at],
                           env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    return root, before


def _tier_files(tmp_path: Path) -> list[str]:
    cold = tmp_path / "cold"
    return sorted(str(p.relative_to(cold)) for p in cold.rglob("*") if not p.is_dir())


@pytest.mark.parametrize("kill_at", STEPS)
@pytest.mark.usefixtures("cold")
def test_killed_then_undone_leaves_the_tree_as_it_was(tmp_path: Path, kill_at: str,
                                                     isolated_user_dirs: Path) -> None:
    root, before = _killed_archive(tmp_path, kill_at)
    record = history()[0]
    undo(record.id)
    assert tree_digest(root) == before
    assert _tier_files(tmp_path) == []
    assert trash_contents(isolated_user_dirs)[0] == []
    again = history()[0]
    assert not again.trashed and not again.in_flight


@pytest.mark.parametrize("kill_at", STEPS)
@pytest.mark.usefixtures("cold")
def test_killed_then_run_again_archives_each_item_once(tmp_path: Path, kill_at: str,
                                                      isolated_user_dirs: Path) -> None:
    root, before = _killed_archive(tmp_path, kill_at)
    planned = tuple(str(root / "outputs/run" / f"checkpoint-{n}") for n in (20, 30, 40))
    tier = tier_at(tmp_path / "cold")
    result = run([(retention_of(root), ARCHIVE)], [str(root)], tier, recent_seconds=0)
    assert not result.skipped, result
    for path in planned:  # every item archived, exactly once, and reachable by its link
        assert os.readlink(path) == tier.destination(path)
        prefix = f"outputs/run/{Path(path).name}/"
        assert tree_digest(Path(path)) == {k[len(prefix):]: v for k, v in before.items()
                                           if k.startswith(prefix)}
    per_item = len([k for k in before if k.startswith("outputs/run/checkpoint-20/")])
    assert len(_tier_files(tmp_path)) == len(planned) * per_item
    assert not any(".mlspace-partial" in f for f in _tier_files(tmp_path))
    assert trash_contents(isolated_user_dirs)[0] == []  # originals left the disk, not trashed
    undo(result.cleanup_id)  # the run that finished the interrupted one
    undo(history()[-1].id)  # the interrupted one: its item (if it finished) comes back too
    assert tree_digest(root) == before
    assert _tier_files(tmp_path) == []
