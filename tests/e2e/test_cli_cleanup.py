"""`mlspace plan`, `mlspace clean` and `mlspace undo` end to end, in a temporary home."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from cli_runner import run_mlspace
from trees import du

from mlspace import fmt
from mlspace.act import trash as trash_module
from mlspace.demo import generate

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args)


def test_plan_json(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    result = mlspace("plan", str(root), "--format", "json", "--keep-latest", "3")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["version"] == 1
    for s in doc["suggestions"]:
        assert {"id", "policy", "title", "reason", "risk", "bytes", "paths"} <= set(s)
        assert all(p.startswith(str(root)) for p in s["paths"])
        assert s["risk"] in ("safe", "review", "risky")
    assert any(s["title"] == "Keep best 1 + latest 3 of bert-large-lr3e-4"
               for s in doc["suggestions"])


def test_clean_dry_run_then_apply_then_undo(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    before = tree_digest(root)
    plan = json.loads(mlspace("plan", str(root), "--format", "json").stdout)
    chosen = [s for s in plan["suggestions"] if s["policy"] == "checkpoint-retention"][:1]
    ids = [s["id"] for s in chosen]
    dry = mlspace("clean", str(root), "--apply", *ids, "--dry-run")
    assert dry.returncode == 0 and "Dry run: nothing was moved." in dry.stdout
    assert tree_digest(root) == before
    no_tty = mlspace("clean", str(root), "--apply", *ids)
    assert no_tty.returncode == 2 and "--yes" in no_tty.stderr
    applied = mlspace("clean", str(root), "--apply", *ids, "--yes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert f"({len(chosen[0]['paths'])} items)" in applied.stdout
    # Nothing is deleted: the user is told where the bytes wait, that they are still on
    # this disk, and how to free them.
    said = applied.stdout.split("still on this disk in ")[1]
    trash = Path(said.split(".\n")[0])
    assert sorted(p.name for p in (trash / "files").iterdir()) == \
        sorted(Path(p).name for p in chosen[0]["paths"])
    assert "Free it now with: mlspace purge " in applied.stdout
    assert "Freed" not in applied.stdout
    listing = mlspace("undo", "--list")
    assert listing.returncode == 0 and "Keep best 1 + latest 2" in listing.stdout
    assert f"(in {root})" in listing.stdout  # which folder each cleanup was in
    mlspace("undo")
    assert tree_digest(root) == before
    undone = next(line for line in mlspace("undo", "--list").stdout.splitlines()
                  if "Keep best 1 + latest 2" in line)
    assert "undone" in undone and fmt.size(chosen[0]["bytes"]) in undone  # not "0 Bytes"
    cleanup_id = undone.split()[0]
    again = mlspace("undo", cleanup_id)  # it said "Restored 0 of 0 items"
    assert again.returncode == 0 and "it was undone already" in again.stdout


def test_the_folder_may_come_after_the_ids(tmp_path: Path) -> None:
    """`clean --apply ID PATH`: --apply takes every word after it, and the folder was once
    read as an id ("required: PATH")."""
    root = generate(tmp_path / "ws")
    plan = json.loads(mlspace("plan", str(root), "--format", "json").stdout)
    first = plan["suggestions"][0]
    dry = mlspace("clean", "--apply", first["id"], str(root), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Dry run: nothing was moved." in dry.stdout and first["paths"][0] in dry.stdout


def test_clean_with_unknown_id_explains(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    result = mlspace("clean", str(root), "--apply", "checkpoint-retention-0000000000", "--yes")
    assert result.returncode == 2
    assert "no such suggestion now" in result.stderr


def test_undo_with_nothing_to_undo_says_so_and_succeeds(tmp_path: Path) -> None:
    """Nothing to undo is a state, not bad usage (2): it says so and exits 0, as an undo of
    a cleanup undone already does; a script's `mlspace undo || alert` stays quiet."""
    result = mlspace("undo")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("Nothing to undo: no cleanup has anything in the trash")
    root = generate(tmp_path / "ws")
    caches = next(s for s in json.loads(mlspace("plan", str(root), "--format",
                                                "json").stdout)["suggestions"]
                  if s["policy"] == "datasets-cache")
    assert mlspace("clean", str(root), "--apply", caches["id"], "--yes").returncode == 0
    assert mlspace("undo").returncode == 0
    again = mlspace("undo")
    assert again.returncode == 0 and again.stdout.startswith("Nothing to undo")


def test_keep_for_one_run(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    run = root / "outputs" / "bert-large-lr3e-4"
    doc = json.loads(mlspace("plan", str(root), "--format", "json", "--keep-for",
                             f"{run}=3:4").stdout)
    titles = [s["title"] for s in doc["suggestions"]]
    assert "Keep best 3 + latest 4 of bert-large-lr3e-4" in titles
    assert "Keep best 1 + latest 2 of bert-base-lr1e-4" in titles
    bad = mlspace("plan", str(root), "--keep-for", f"{run}=3")
    assert bad.returncode == 2 and "FOLDER=K:N" in bad.stderr


def test_hard_linked_checkpoints_free_what_the_plan_says(tmp_path: Path) -> None:
    """Checkpoints that are hard links of one weights file (a `cp -al` snapshot, or rsync
    --link-dest): removing the older ones frees only their own files, the plan says so,
    and the re-check does not take the shared file for a change."""
    run = tmp_path / "ws" / "run"
    weights = run / "checkpoint-4" / "model.safetensors"
    weights.parent.mkdir(parents=True)
    weights.write_bytes(os.urandom(1 << 20))
    for step in (1, 2, 3):
        (run / f"checkpoint-{step}").mkdir()
        os.link(weights, run / f"checkpoint-{step}" / "model.safetensors")
    for step in (1, 2, 3, 4):
        (run / f"checkpoint-{step}" / "config.json").write_text('{"model_type": "bert"}')
    month_ago = time.time() - 30 * 86400
    for path in sorted(run.rglob("*"), reverse=True):
        os.utime(path, (month_ago, month_ago), follow_symlinks=False)
    plan = json.loads(mlspace("plan", str(tmp_path / "ws"), "--format", "json").stdout)
    (suggestion,) = plan["suggestions"]
    assert sorted(Path(p).name for p in suggestion["paths"]) == ["checkpoint-1", "checkpoint-2"]
    own = sum(os.lstat(p).st_blocks * 512 for p in (
        run / "checkpoint-1", run / "checkpoint-1" / "config.json",
        run / "checkpoint-2", run / "checkpoint-2" / "config.json"))
    assert suggestion["bytes"] == own  # not the shared 1 MiB, counted where first met
    before = du(tmp_path / "ws", "-B1")
    applied = mlspace("clean", str(tmp_path / "ws"), "--apply", suggestion["id"], "--yes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "skipped" not in applied.stdout + applied.stderr
    assert before - du(tmp_path / "ws", "-B1") == own


def test_undo_over_a_new_item_says_how_to_restore_beside_it(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    plan = json.loads(mlspace("plan", str(root), "--format", "json").stdout)
    chosen = next(s for s in plan["suggestions"] if s["policy"] == "checkpoint-retention")
    assert mlspace("clean", str(root), "--apply", chosen["id"], "--yes").returncode == 0
    taken = Path(chosen["paths"][0])
    taken.mkdir()  # a new run wrote there since
    refused = mlspace("undo")
    assert refused.returncode == 1
    assert f"not restored {taken}" in refused.stderr
    cleanup_id = refused.stdout.split(" of ")[-1].rstrip(".\n")
    assert f"mlspace undo {cleanup_id} --beside" in refused.stderr
    beside = mlspace("undo", cleanup_id, "--beside")
    assert beside.returncode == 0, beside.stderr
    assert (taken.parent / f"{taken.name} (restored)").is_dir()
