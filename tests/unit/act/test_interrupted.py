"""A cleanup killed half-way (SIGKILL) can still be undone completely; and a property test:
any selection of suggestions on any tree comes back byte for byte."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from layouts import inventory_of, make

from mlspace.act import execute, history, undo
from mlspace.act import trash as trash_module
from mlspace.advise import advise

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")

_SLOW_CLEANUP = """
import sys, time
from mlspace.scan import scan
from mlspace.classify import classify
from mlspace.advise import advise
from mlspace.act import execute
plan = advise(classify(scan([sys.argv[1]])))
# slow each item down so the test can kill the process in the middle of the cleanup
execute(plan.suggestions, plan.roots, recent_seconds=0,
        progress=lambda done, total, path: time.sleep(0.15))
"""


def _many_checkpoints(root: Path, n: int = 30) -> Path:
    spec: dict[str, object] = {}
    for step in range(1, n + 1):
        spec[f"run/checkpoint-{step * 10}/model.safetensors"] = 2000
        spec[f"run/checkpoint-{step * 10}/optimizer.pt"] = 4000
    return make(root, spec)


def test_sigkill_in_the_middle_then_undo_restores_everything(tmp_path: Path) -> None:
    root = _many_checkpoints(tmp_path / "ws")
    before = tree_digest(root)
    child = subprocess.Popen([sys.executable, "-c", _SLOW_CLEANUP, str(root)],
                             env=dict(os.environ), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    journal_dir = Path(os.environ["XDG_DATA_HOME"]) / "mlspace" / "journal"
    deadline = time.time() + 60
    while time.time() < deadline:
        journals = list(journal_dir.glob("*.jsonl")) if journal_dir.exists() else []
        if journals and journals[0].read_text().count('"trashed"') >= 5:
            break
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    child.wait()
    record = history()[0]
    assert 5 <= len(record.trashed) < len(record.items), "killed in the middle"
    assert tree_digest(root) != before
    results = undo(record.id)
    assert all(r.restored_to == r.path for r in results), results
    assert tree_digest(root) == before


def test_undo_finds_an_item_moved_just_before_its_journal_line(tmp_path: Path) -> None:
    """The crash window between the move and the journal line: simulate it by moving an
    item into the trash the way a cleanup does, with no journal line about it."""
    root = _many_checkpoints(tmp_path / "ws", 4)
    before = tree_digest(root)
    plan = advise(inventory_of(root))
    result = execute(plan.suggestions, plan.roots, recent_seconds=0)
    journal = Path(os.environ["XDG_DATA_HOME"]) / "mlspace" / "journal" / \
        f"{result.cleanup_id}.jsonl"
    lines = journal.read_text().splitlines()
    dropped = json.loads(lines[-1])["path"]
    journal.write_text("\n".join(lines[:-1]) + "\n")  # as if killed before writing it
    restored = undo(result.cleanup_id)
    assert dropped in {r.path for r in restored if r.restored_to}
    assert tree_digest(root) == before


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(steps=st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=8,
                      unique=True),
       with_cache=st.booleans(), picks=st.lists(st.booleans(), min_size=4, max_size=4))
def test_any_selection_of_suggestions_round_trips(tmp_path_factory: pytest.TempPathFactory,
                                                   steps: list[int], with_cache: bool,
                                                   picks: list[bool]) -> None:
    root = tmp_path_factory.mktemp("prop") / "ws"
    spec: dict[str, object] = {}
    for step in steps:
        spec[f"out/checkpoint-{step}/model.safetensors"] = step * 10
        spec[f"out/checkpoint-{step}/optimizer.pt"] = step * 20
    if with_cache:
        spec["src/__pycache__/m.cpython-311.pyc"] = 50
    make(root, spec)
    before = tree_digest(root)
    plan = advise(inventory_of(root))
    chosen = [s for s, pick in zip(plan.suggestions, picks, strict=False) if pick]
    assume(chosen)  # a case that cleans nothing proves nothing
    result = execute(chosen, plan.roots, recent_seconds=0)
    assert not result.skipped
    assert all(not os.path.lexists(p) for s in chosen for p in s.paths)
    undo(result.cleanup_id)
    assert tree_digest(root) == before
