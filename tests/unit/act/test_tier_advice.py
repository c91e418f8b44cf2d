"""Archive suggestions: the checkpoints retention keeps of runs finished long ago, old
datasets (raw ones for review) and old log archives; never overlapping a cleanup, and the
same plan however often they are added."""

from __future__ import annotations

from pathlib import Path

from cleanup_helpers import mounted, tier_at, tree_digest
from layouts import inventory_of, make
from workspaces import age, hf_run

from mlspace.act import TRASH, execute, run
from mlspace.advise import AdviceSettings, advise
from mlspace.advise.archive import ArchiveAges, action_of, with_archive_suggestions

AGES = ArchiveAges(checkpoints=20, datasets=20, logs=20)


def _workspace(root: Path) -> Path:
    hf_run(root)
    make(root, {"data/raw/train.csv": 3000, "data/raw/dataset_info.json": {},
                "wandb/run-20240101_120000-abc123de.tar.gz": 2000})
    age(root)
    return root


def test_old_runs_datasets_and_log_archives_are_offered(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    inv = inventory_of(root)
    plan = with_archive_suggestions(advise(inv), inv, AdviceSettings(), AGES)
    by_policy = {s.policy: s for s in plan.suggestions}
    kept = sorted(p.rsplit("/", 1)[-1] for p in by_policy["archive-checkpoints"].paths)
    assert kept == ["checkpoint-10", "checkpoint-50", "checkpoint-60"]  # best + latest 2
    assert by_policy["archive-checkpoints"].risk == "safe"
    data = by_policy["archive-datasets"]
    assert data.paths == (str(root / "data"),) and data.risk == "review"
    assert by_policy["archive-logs"].paths == (
        str(root / "wandb/run-20240101_120000-abc123de.tar.gz"),)
    assert action_of(by_policy["archive-logs"]) == "archive"
    assert action_of(by_policy["checkpoint-retention"]) == "trash"
    cleaned = set(by_policy["checkpoint-retention"].paths)
    archived = {p for s in plan.suggestions if action_of(s) == "archive" for p in s.paths}
    assert not cleaned & archived
    assert with_archive_suggestions(plan, inv, AdviceSettings(), AGES) == plan


def test_nothing_is_offered_before_the_ages(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    inv = inventory_of(root)
    plan = with_archive_suggestions(advise(inv), inv)  # the defaults: 60 / 180 / 180 days
    assert not [s for s in plan.suggestions if action_of(s) == "archive"]


def test_an_archive_suggestion_is_never_trashed(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    before = tree_digest(root)
    inv = inventory_of(root)
    plan = with_archive_suggestions(advise(inv), inv, AdviceSettings(), AGES)
    data = next(s for s in plan.suggestions if s.policy == "archive-datasets")
    result = execute([data], plan.roots, recent_seconds=0)
    assert not any(o.done for o in result.outcomes)
    assert "never trashed" in result.outcomes[0].reason
    assert tree_digest(root) == before
    with mounted(tmp_path / "cold") as cold:
        moved = run([(data, TRASH)], plan.roots, tier_at(cold),
                    recent_seconds=0)  # asked to trash it: archived all the same
        assert moved.outcomes[0].done and (root / "data").is_symlink()
