"""Eighth round of issue 27's principles, from heldout8's first contact, where duplicates
offered a recorded best or latest (all *review*):

- a file judged a checkpoint whose suffix no reader knows (a script's ``epoch_08.npz`` and
  ``best.npz`` in a folder of checkpoints) is a save of its series when a word orders or
  protects it, so two runs that saved identical weights keep each run's own best and latest;
  a lone number (``agent-1.msh``: seed 1) orders nothing;
- in a log folder a file of a format no run records as a log (MushroomRL's ``.msh``, a zip
  of the agent) is only a guess, which its name and bytes settle.
"""

from __future__ import annotations

from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make
from layouts_corpus import permissive_plan

from mlspace.classify.checkpoint_names import parse_unknown_weights


def _touched(inv) -> set[str]:  # noqa: ANN001 - an Inventory
    return {item.path for s in permissive_plan(inv).suggestions for item in s.items}


def test_saves_of_an_unknown_suffix_are_ordered_only_by_words() -> None:
    assert parse_unknown_weights("epoch_08.npz").epoch == 8  # type: ignore[union-attr]
    assert parse_unknown_weights("best.npz").role == "best"  # type: ignore[union-attr]
    assert parse_unknown_weights("step_300.params").step == 300  # type: ignore[union-attr]
    assert parse_unknown_weights("agent-1.msh") is None  # seed 1, not step 1
    assert parse_unknown_weights("latest") is None  # a pointer beside the saves
    assert parse_unknown_weights("metrics_epoch_3.json") is None  # a record, not weights
    assert parse_unknown_weights("optimizer_epoch_3.pt.bak") is None


def test_two_runs_that_saved_the_same_weights_keep_each_runs_best_and_latest(
        tmp_path: Path) -> None:
    """Austin profiled the same deterministic training twice: checkpoints/full/ and
    checkpoints/wall/ hold byte-identical epoch_NN.npz and best.npz."""
    spec: dict[str, object] = {}
    for run in ("full", "wall"):
        for epoch in range(1, 9):
            spec[f"checkpoints/{run}/epoch_{epoch:02d}.npz"] = bytes([epoch]) * 70_000
        spec[f"checkpoints/{run}/best.npz"] = bytes([6]) * 70_000 + b"best"
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    assert len([s for s in inv.series if s.path.startswith(str(root / "checkpoints"))]) == 2
    touched = _touched(inv)
    for run in ("full", "wall"):
        for kept in ("epoch_08.npz", "best.npz"):
            assert str(root / f"checkpoints/{run}/{kept}") not in touched
    assert str(root / "checkpoints/full/epoch_03.npz") in touched  # an older save: offered


def test_an_agent_saved_in_a_log_folder_is_a_checkpoint(tmp_path: Path) -> None:
    """MushroomRL's Logger: logs/DQN/ holds the run's log and metric arrays beside
    agent-<seed>.msh and agent-<seed>-best.msh (zips of the agent); a seed's latest may be
    byte-identical to its best."""
    msh = Sparse(60_000, b"PK\x03\x04" + b"\x00" * 26 + b"agent.config")
    root = make(tmp_path / "ws", {
        "logs/DQN/DQN-1.log": "Epoch 1 | J: 12.5\n" * 4,
        "logs/DQN/J-1.npy": Sparse(200, b"\x93NUMPY\x01\x00v\x00"),
        "logs/DQN/agent-1.msh": msh,
        "logs/DQN/agent-1-best.msh": msh,
        "train_dqn.py": "from mushroom_rl.core import Core\n",
    })
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats["logs/DQN/agent-1.msh"] == "checkpoint"
    assert cats["logs/DQN/agent-1-best.msh"] == "checkpoint"
    assert cats["logs/DQN/DQN-1.log"] == "log" and cats["logs/DQN/J-1.npy"] == "log"
    touched = _touched(inv)
    assert not {str(root / "logs/DQN/agent-1.msh"), str(root / "logs/DQN/agent-1-best.msh")} \
        & touched
