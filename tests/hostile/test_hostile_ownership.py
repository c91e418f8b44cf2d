"""Files mlspace takes instructions from (the policy, config.toml, rules.toml) are used only
when they are the user's and nobody else can change them (mlspace.trust, as OpenSSH's
StrictModes): a neighbour on a shared workspace cannot steer a cleanup by planting one, a
loosely permissioned one is refused with the fix, and a dotfiles manager's link to the
user's own file is followed. Run through the CLI, as the user (root here) meets it; the
neighbour writes as a uid of its own. Needs root to switch uid."""

from __future__ import annotations

import grp
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from hostile_helpers import NEIGHBOUR, as_user, assert_clean_run, mlspace_cli
from workspaces import hf_run

from mlspace.config import Settings, config_dir, load_settings, save_settings

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: switches uid")

RUN = "outputs/run"
#: A group of several users (nogroup: nobody, sync, _apt here), unlike root's own group.
SHARED_GROUP = 65534
SHARED_GROUP_NAME = grp.getgrgid(SHARED_GROUP).gr_name
#: What the user wrote: the best checkpoint and the two latest stay.
OWN_POLICY = ('version = 1\n[[rule]]\nfolders = ["*"]\nkeep_best = 1\nkeep_latest = 2\n'
              'allow = ["safe"]\n')
#: What the neighbour plants: only the newest checkpoint stays (and the recorded best,
#: which no policy removes), and resuming from the best is no longer possible.
PLANTED_POLICY = ('version = 1\nmax_items = 500\n[[rule]]\nfolders = ["*"]\nkeep_best = 0\n'
                  'keep_latest = 1\nallow = ["safe", "review", "risky"]\n')


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder every uid can pass through (pytest's own tmp folders are root's, 0700)."""
    where = Path(tempfile.mkdtemp(prefix="mlspace-shared-"))
    where.chmod(0o755)
    yield where
    shutil.rmtree(where, ignore_errors=True)


def _shared_workspace(base: Path) -> Path:
    """A lab's shared workspace (mode 1777, like /scratch/team) holding the user's run."""
    root = base / "team"
    hf_run(root)
    root.chmod(0o1777)
    return root


def _planted(path: Path, text: str) -> Callable[[], str]:
    def work() -> str:
        path.write_text(text)
        return str(path)
    return work


def _own_policy() -> Path:
    path = config_dir() / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(OWN_POLICY)
    return path


def _checkpoints(root: Path) -> set[str]:
    return {p.name for p in (root / RUN).iterdir()}


# ---------------------------------------------------------------------------- policies
def test_a_policy_planted_in_a_shared_workspace_is_passed_over(base: Path) -> None:
    """The cron line of docs/policies.md (apply-policy --yes PATH, no --policy): another user's
    WORKSPACE/mlspace-policy.toml does not win over ~/.config/mlspace/policy.toml."""
    root = _shared_workspace(base)
    own = _own_policy()
    as_user(NEIGHBOUR, _planted(root / "mlspace-policy.toml", PLANTED_POLICY))
    result = mlspace_cli("apply-policy", str(root), "--yes")
    assert_clean_run(result)
    assert f"mlspace: passed over a policy: {root}/mlspace-policy.toml belongs to uid " \
           f"{NEIGHBOUR}, not to you" in result.stderr
    assert f"Policy {own}:" in result.stdout
    # What the user's policy keeps stays: the best (checkpoint-10, whole) and the two latest.
    assert _checkpoints(root) == {"checkpoint-10", "checkpoint-50", "checkpoint-60"}
    assert (root / RUN / "checkpoint-10" / "optimizer.pt").exists()


def test_a_planted_policy_and_none_of_the_users_stops_the_run(base: Path) -> None:
    root = _shared_workspace(base)
    before = tree_digest(root / "outputs")
    as_user(NEIGHBOUR, _planted(root / "mlspace-policy.toml", PLANTED_POLICY))
    result = mlspace_cli("apply-policy", str(root), "--yes")
    assert_clean_run(result, 2)
    assert "passed over a policy" in result.stderr and "no policy: pass --policy" in \
        result.stderr
    assert tree_digest(root / "outputs") == before


def test_a_policy_others_could_change_stops_the_run_with_the_fix(tmp_path: Path) -> None:
    """The user's own workspace policy, writable by a group other users are in: the user
    meant it for this workspace, so no other policy is used instead; the run stops and says
    how to fix it."""
    root = tmp_path / "ws"
    hf_run(root)
    _own_policy()
    policy = root / "mlspace-policy.toml"
    policy.write_text(PLANTED_POLICY)
    os.chown(policy, 0, SHARED_GROUP)
    policy.chmod(0o664)
    before = tree_digest(root)
    result = mlspace_cli("apply-policy", str(root), "--yes")
    assert_clean_run(result, 2)
    assert f"can be changed by the group {SHARED_GROUP_NAME} (mode 0664)" in result.stderr
    assert f"`chmod go-w {policy}`" in result.stderr
    assert tree_digest(root) == before
    policy.chmod(0o644)  # fixed: the run goes ahead with it
    assert_clean_run(mlspace_cli("apply-policy", str(root), "--yes"))
    assert _checkpoints(root) == {"checkpoint-10", "checkpoint-60"}


def test_a_policy_named_with_policy_is_checked_too(tmp_path: Path, base: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    shared = base / "shared"
    shared.mkdir(mode=0o1777)
    shared.chmod(0o1777)
    planted = Path(as_user(NEIGHBOUR, _planted(shared / "lab-policy.toml", PLANTED_POLICY)))
    for command in (["apply-policy", str(root), "--policy", str(planted), "--yes"],
                    ["policy", "check", str(planted)]):
        result = mlspace_cli(*command)
        assert_clean_run(result, 2)
        assert f"mlspace: not using the policy: {planted} belongs to uid {NEIGHBOUR}" in \
            result.stderr
    assert tree_digest(root) == before


def test_a_policy_linked_from_dotfiles_is_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    dotfiles = tmp_path / "dotfiles" / "mlspace" / "policy.toml"
    dotfiles.parent.mkdir(parents=True)
    dotfiles.write_text(OWN_POLICY)
    link = config_dir() / "policy.toml"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(dotfiles)
    result = mlspace_cli("apply-policy", str(root), "--yes")
    assert_clean_run(result)
    assert _checkpoints(root) == {"checkpoint-10", "checkpoint-50", "checkpoint-60"}


# ------------------------------------------------------------------------- config.toml
def _config(text: str) -> Path:
    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_config_linked_from_dotfiles_is_read(tmp_path: Path) -> None:
    """Every command exited 2 on a linked config.toml, so a nightly policy run failed every
    night. Now it is read: a mistake in the linked file is reported as one."""
    root = tmp_path / "ws"
    hf_run(root)
    dotfiles = tmp_path / "dotfiles" / "config.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text('archive_link = "stub"\narchive_checkpoints_days = 30\n')
    link = config_dir() / "config.toml"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(dotfiles)
    assert_clean_run(mlspace_cli("plan", str(root)))
    dotfiles.write_text('archive_link = "hardlink"\n')
    result = mlspace_cli("plan", str(root))
    assert_clean_run(result, 2)
    assert "archive_link must be one of" in result.stderr


def test_a_config_others_can_change_is_refused_with_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    path = _config('archive_link = "stub"\n')
    path.chmod(0o666)
    result = mlspace_cli("plan", str(root))
    assert_clean_run(result, 2)
    assert f"not using the settings file: {path} can be changed by others (mode 0666)" \
        in result.stderr and f"`chmod go-w {path}`" in result.stderr


def test_a_config_of_another_user_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    path = _config('archive_link = "stub"\n')
    os.chown(path, NEIGHBOUR, NEIGHBOUR)
    result = mlspace_cli("plan", str(root))
    assert_clean_run(result, 2)
    assert f"{path} belongs to uid {NEIGHBOUR}, not to you" in result.stderr


def test_a_config_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    """The file is the user's, but the folder holding it lets anyone replace it."""
    root = tmp_path / "ws"
    hf_run(root)
    _config('archive_link = "stub"\n')
    config_dir().chmod(0o777)
    result = mlspace_cli("plan", str(root))
    assert_clean_run(result, 2)
    assert f"{config_dir()}, which holds {config_dir()}/config.toml, can be written by " \
           "others (mode 0777)" in result.stderr


# -------------------------------------------------------------------------- rules.toml
def test_rules_another_user_wrote_are_not_used(tmp_path: Path) -> None:
    """Another user's rules.toml calling every checkpoint a cache would get them suggested
    as caches: it is ignored with the reason, and the checkpoints stay checkpoints."""
    root = tmp_path / "ws"
    hf_run(root)
    rules = config_dir() / "rules.toml"
    rules.parent.mkdir(parents=True, exist_ok=True)
    rules.write_text('[[dir]]\nid = "all-cache"\nnames = ["checkpoint-*"]\ncategory = "cache"\n')
    os.chown(rules, NEIGHBOUR, NEIGHBOUR)
    result = mlspace_cli("inventory", str(root), "--format", "json")
    assert_clean_run(result)
    assert f"{rules} belongs to uid {NEIGHBOUR}, not to you" in result.stderr
    assert '"cache": {\n   "disk_usage": 0' in result.stdout


def test_saving_settings_writes_through_the_dotfiles_link(tmp_path: Path) -> None:
    """The app's Settings dialog saves config.toml: the link stays a link, and the file in
    the dotfiles repository gets the change."""
    dotfiles = tmp_path / "dotfiles" / "config.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text('archive_link = "symlink"\n')
    link = config_dir() / "config.toml"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(dotfiles)
    save_settings(Settings(archive_link="stub"))
    assert link.is_symlink() and load_settings().archive_link == "stub"
    assert 'archive_link = "stub"' in dotfiles.read_text()


def test_no_cleanup_starts_in_a_journal_folder_others_could_write(tmp_path: Path) -> None:
    """Its records would not be read back (undo would refuse them): nothing moves."""
    from mlspace.act.journal import journal_dir

    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    journal_dir().mkdir(parents=True, exist_ok=True)
    journal_dir().chmod(0o777)
    plan = mlspace_cli("plan", str(root), "--format", "json")
    assert plan.returncode == 0, plan.stderr
    import json

    ids = [s["id"] for s in json.loads(plan.stdout)["suggestions"]]
    done = mlspace_cli("clean", str(root), "--apply", ids[0], "--yes")
    assert done.returncode == 2 and "the cleanup journal cannot be written" in done.stderr
    assert "chmod" in done.stderr and "nothing was moved" in done.stderr
    assert tree_digest(root) == before


def test_no_policy_run_locks_through_a_lock_folder_others_could_write(tmp_path: Path) -> None:
    """A lock folder open to all could hold another user's link in a lock file's place,
    which taking the lock would truncate: the run stops, saying why, and moves nothing."""
    from mlspace.act.lock import lock_dir

    root = tmp_path / "ws"
    hf_run(root)
    policy = _own_policy()
    before = tree_digest(root)
    lock_dir().mkdir(parents=True, exist_ok=True)
    lock_dir().chmod(0o777)
    done = mlspace_cli("apply-policy", "--yes", "--policy", str(policy), str(root))
    assert_clean_run(done, 1)  # as when another run holds the tree: nothing was done
    assert "cannot lock" in done.stderr and "chmod go-w" in done.stderr
    assert tree_digest(root) == before


def test_a_link_in_a_lock_files_place_is_never_written_through(tmp_path: Path) -> None:
    """Even in the user's own lock folder, a link where a lock file goes is refused: the
    file it leads to keeps its bytes."""
    from mlspace.act import lock

    precious = tmp_path / "notes.txt"
    precious.write_text("a week of results\n")
    lock.lock_dir().mkdir(parents=True, exist_ok=True)
    root = tmp_path / "ws"
    root.mkdir()
    lock._file_for(os.path.realpath(root)).symlink_to(precious)
    with pytest.raises(lock.Busy, match="cannot lock"), lock.hold([str(root)], "test"):
        pass
    assert precious.read_text() == "a week of results\n"
