"""Giving the disk back from the command line, on a workspace that is a tmpfs of its own
(its free space moves only with what the commands do): the disk line of `plan`, `clean`
that says the trash is still on this disk, `purge` and `clean --free-now` whose "Freed"
is what `df` sees, the trash's retention in `purge --expired` and in every policy run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from cli_runner import run_mlspace

from mlspace import fmt
from mlspace.act import trash as trash_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from workspaces import age, hf_run  # noqa: E402

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args)


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize



def _retention_id(root: Path) -> dict:
    doc = json.loads(mlspace("plan", str(root), "--format", "json").stdout)
    return next(s for s in doc["suggestions"] if s["policy"] == "checkpoint-retention")


def _freed(text: str) -> str:
    match = re.search(r"Freed ([0-9.]+ \w+):", text)
    assert match, text
    return match.group(1)


def test_plan_opens_with_the_disk_line_and_its_json_carries_it(disk: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    shown = mlspace("plan", str(root))
    first = shown.stdout.splitlines()[0]
    doc = json.loads(mlspace("plan", str(root), "--format", "json").stdout)
    (record,) = doc["disks"]
    assert record["mount"] == str(disk) and record["roots"] == [str(root)]
    assert record["free"] == _free(disk) and record["size"] == 256 << 20
    safe = sum(s["bytes"] for s in doc["suggestions"] if s["risk"] == "safe")
    assert record["reclaimable_safe"] == safe > 0
    assert first == record["line"]
    assert first.startswith(f"{disk} — ") and f"{fmt.size(safe)} reclaimable (safe)" in first


def test_clean_then_purge_gives_back_what_it_says(disk: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    chosen = _retention_id(root)
    before = _free(disk)
    cleaned = mlspace("clean", str(root), "--apply", chosen["id"], "--yes")
    assert cleaned.returncode == 0, cleaned.stderr
    assert "still on this disk" in cleaned.stdout and "Freed" not in cleaned.stdout
    assert _free(disk) <= before  # the trash is on this disk: nothing came back
    assert f"{fmt.size(chosen['bytes'])} in mlspace's trash" in cleaned.stdout  # disk line
    cleanup_id = re.search(r"mlspace purge (\S+) ", cleaned.stdout).group(1)
    dry = mlspace("purge", cleanup_id, "--dry-run")
    assert dry.returncode == 0 and "Dry run: nothing was deleted." in dry.stdout
    asked = mlspace("purge", cleanup_id)  # no terminal to ask on: refused, nothing deleted
    assert asked.returncode == 2 and "--yes" in asked.stderr
    ahead = _free(disk)
    purged = mlspace("purge", cleanup_id, "--yes")
    assert purged.returncode == 0, purged.stderr
    assert _freed(purged.stdout) == fmt.size(_free(disk) - ahead)  # what df sees
    assert _free(disk) - ahead >= chosen["bytes"]
    listing = mlspace("undo", "--list").stdout
    assert "3 freed" in listing and f"{fmt.size(_free(disk) - ahead)} freed" in listing
    undone = mlspace("undo", cleanup_id)
    assert undone.returncode == 1 and "deleted for good" in undone.stderr


def test_clean_free_now_frees_at_once(disk: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    chosen = _retention_id(root)
    before = _free(disk)
    done = mlspace("clean", str(root), "--apply", chosen["id"], "--yes", "--free-now")
    assert done.returncode == 0, done.stderr
    gained = _free(disk) - before
    assert gained >= chosen["bytes"]
    assert _freed(done.stdout) == fmt.size(gained) and "3 items deleted for good" in done.stdout
    assert "still on this disk" not in done.stdout
    assert not any(n for n in os.listdir(disk / f".Trash-{os.getuid()}" / "files"))


def test_purge_expired_and_a_policy_run_apply_the_trash_retention(
        disk: Path, isolated_user_dirs: Path) -> None:
    root = disk / "ws"
    hf_run(root)
    age(root)
    chosen = _retention_id(root)
    assert mlspace("clean", str(root), "--apply", chosen["id"], "--yes").returncode == 0
    config = isolated_user_dirs / ".config" / "mlspace" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("trash_days = 0\n")
    kept = mlspace("purge", "--expired", "--yes")
    assert "kept until freed by hand" in kept.stdout
    config.write_text("trash_days = 1e-9\n")  # 86 µs
    expired = mlspace("purge", "--expired", "--yes")
    assert expired.returncode == 0 and "3 items deleted for good" in expired.stdout
    # A policy run frees what its own purge_after_days says, from its folders only.
    make_more = disk / "ws2"
    hf_run(make_more)
    age(make_more)
    before = tree_digest(root)
    policy = disk / "policy.toml"
    policy.write_text('version = 1\npurge_after_days = 1e-9\n[[rule]]\nfolders = ["*"]\n')
    run = mlspace("apply-policy", str(make_more), "--policy", str(policy), "--yes")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "deleted for good" in run.stdout  # its own items went straight through
    assert tree_digest(root) == before
    assert os.listdir(disk / f".Trash-{os.getuid()}" / "files") == []
