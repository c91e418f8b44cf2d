"""The archive commands across two real filesystems (a tmpfs tier, mounted when root), and
``apply-policy`` on generated workspaces: what moves, what stays, dry runs, caps, locks,
bad policies, undo, the run record and the timer."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from cleanup_helpers import mount_tmpfs, trash_contents, tree_digest, unmount
from cli_runner import run_mlspace
from layouts import inventory_of, make

from mlspace.act import ARCHIVE, history, lock, run
from mlspace.act import trash as trash_module
from mlspace.act.policy_runs import policy_runs
from mlspace.act.tier import Tier
from mlspace.advise import AdviceSettings, advise
from mlspace.advise.archive import ArchiveAges, with_archive_suggestions
from mlspace.cli import main as run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from workspaces import age, hf_run  # noqa: E402

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


@pytest.fixture
def cold(tmp_path: Path, isolated_user_dirs: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs as the cold tier, named in config.toml."""
    where = tmp_path / "cold"
    mount_tmpfs(where, "16m")
    config = isolated_user_dirs / ".config" / "mlspace"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f'archive_root = "{where}"\n'
                                        "archive_checkpoints_days = 20\n")
    yield where
    unmount(where)


def _archive_plan(root: Path):  # noqa: ANN202 - a Plan
    inv = inventory_of(root)
    return with_archive_suggestions(advise(inv), inv, AdviceSettings(),
                                    ArchiveAges(checkpoints=20))


def _tier_files(cold: Path) -> list[Path]:
    return [p for p in cold.rglob("*") if not p.is_dir() and p.name != "filler"]


def test_archive_and_undo_across_filesystems(tmp_path: Path, cold: Path,
                                             isolated_user_dirs: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    suggestion = next(s for s in _archive_plan(root).suggestions
                      if s.policy == "archive-checkpoints")
    assert run_cli(["archive", str(root), "--apply", suggestion.id, "--yes"]) == 0
    for path in suggestion.paths:
        assert os.path.islink(path) and os.readlink(path).startswith(str(cold))
        prefix = os.path.relpath(path, root) + "/"
        assert tree_digest(Path(path)) == {k[len(prefix):]: v for k, v in before.items()
                                           if k.startswith(prefix)}  # byte for byte, via link
    assert trash_contents(isolated_user_dirs)[0] == []  # off the fast disk, not in its trash
    undo = run_mlspace("undo", history()[0].id)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert tree_digest(root) == before
    assert _tier_files(cold) == []


def test_any_suggestion_archived_instead_of_trashed_and_brought_back(
        tmp_path: Path, cold: Path, isolated_user_dirs: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    retention = next(s for s in _archive_plan(root).suggestions
                     if s.policy == "checkpoint-retention")
    assert run_cli(["archive", str(root), "--apply", retention.id, "--yes", "--link",
                    "stub"]) == 0
    stubs = [p + ".mlspace-archived.json" for p in retention.paths]
    assert all(os.path.isfile(s) and not os.path.lexists(p)
               for s, p in zip(stubs, retention.paths, strict=True))
    assert run_cli(["bring-back", *stubs]) == 0
    assert tree_digest(root) == before
    assert _tier_files(cold) == []


def test_a_tier_that_fills_up_mid_copy_leaves_the_original(tmp_path: Path, cold: Path
                                                           ) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    make(root, {"outputs/run/checkpoint-20/big.bin": 3 << 20})
    age(root)
    before = tree_digest(root)
    retention = next(s for s in _archive_plan(root).suggestions
                     if s.policy == "checkpoint-retention")
    suggestion = replace(retention, items=retention.items[:1])  # checkpoint-20, with big.bin

    def fill_once(done: int, total: int, path: str) -> None:
        if done and not (cold / "filler").exists():
            with open(cold / "filler", "wb") as f:
                while True:
                    try:
                        f.write(b"\0" * 65536)
                        f.flush()
                    except OSError:
                        break

    result = run([(suggestion, ARCHIVE)], [str(root)], Tier(str(cold)), recent_seconds=0,
                 progress=fill_once)
    assert len(result.outcomes) == 1 and not result.outcomes[0].done
    assert "No space left" in result.outcomes[0].reason
    assert "original is untouched" in result.outcomes[0].reason
    assert tree_digest(root) == before
    assert _tier_files(cold) == []


# ------------------------------------------------------------------------- apply-policy
def _workspace(root: Path) -> Path:
    """A finished HF run (retention: safe) and a half-written download (review)."""
    hf_run(root)
    make(root, {"outputs/run/model.safetensors.incomplete": 5000})
    age(root)
    return root


def _policy(tmp_path: Path, body: str = "") -> str:
    path = tmp_path / "policy.toml"
    path.write_text(f'version = 1\n{body}\n[[rule]]\nfolders = ["*"]\n'
                    + ('allow = ["safe", "crash-leftovers"]\n' if "NAMED" in body else ""))
    return str(path)


def test_only_safe_items_move_and_undo_brings_them_back(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    before = tree_digest(root)
    report = tmp_path / "run.html"
    code = run_cli(["apply-policy", str(root), "--policy", _policy(tmp_path), "--yes",
                    "--report", str(report)])
    assert code == 0
    assert not (root / "outputs/run/checkpoint-20").exists()
    assert (root / "outputs/run/model.safetensors.incomplete").exists()  # review: stays
    html = report.read_text()
    assert "review (crash-leftovers): the rule at line 3 does not allow it" in html
    runs = policy_runs()
    assert runs[0]["moved_items"] == 3 and runs[0]["exit_code"] == 0
    record = history()[0]
    assert record.meta["policy"] == str(tmp_path / "policy.toml")
    assert run_cli(["policy", "runs"]) == 0
    undo = run_mlspace("undo")
    assert undo.returncode == 0, undo.stderr
    assert tree_digest(root) == before


def test_a_policy_naming_a_review_policy_moves_it(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    assert run_cli(["apply-policy", str(root), "--policy", _policy(tmp_path, "# NAMED"),
                    "--yes"]) == 0
    assert not (root / "outputs/run/model.safetensors.incomplete").exists()


def test_a_dry_run_moves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    before = tree_digest(root)
    assert run_cli(["apply-policy", str(root), "--policy", _policy(tmp_path),
                    "--dry-run"]) == 0
    assert "would trash" in capsys.readouterr().out
    assert tree_digest(root) == before
    assert policy_runs() == [] and history() == []


def test_the_cap_stops_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    code = run_cli(["apply-policy", str(root), "--policy", _policy(tmp_path, "max_items = 1"),
                    "--yes"])
    assert code == 1
    gone = [n for n in ("checkpoint-20", "checkpoint-30", "checkpoint-40")
            if not (root / "outputs/run" / n).exists()]
    assert len(gone) == 1
    assert capsys.readouterr().out.count("cap (1 item per run) was reached") == 2


def test_the_lock_stops_a_second_run(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    before = tree_digest(root)
    with lock.hold([str(root)], "mlspace apply-policy (the timer's run)"):
        code = run_cli(["apply-policy", str(root), "--policy", _policy(tmp_path), "--yes"])
    assert code == 1
    assert "the timer's run" in capsys.readouterr().err
    assert tree_digest(root) == before


def test_a_bad_policy_exits_2_with_its_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    bad = tmp_path / "bad.toml"
    bad.write_text('version = 1\n[[rule]]\nfolders = ["*"]\nallow = ["everything"]\n')
    assert run_cli(["apply-policy", str(root), "--policy", str(bad), "--yes"]) == 2
    assert f"{bad}:4: unknown risk or policy 'everything'" in capsys.readouterr().err


def test_policy_init_writes_a_usable_policy_beside_the_workspace(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    assert run_cli(["policy", "init", str(root)]) == 0
    hint = capsys.readouterr().out.split("Check what it would do: mlspace ")[1].split()
    assert run_cli(hint) == 0  # the command it suggests runs as printed
    assert run_cli(["policy", "check", str(root / "mlspace-policy.toml")]) == 0
    assert run_cli(["policy", "init", str(root)]) == 2  # never overwrites
    assert run_cli(["apply-policy", str(root), "--dry-run"]) == 0  # found beside it


def test_policy_init_to_a_file_names_the_folder_to_fill_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It once suggested `apply-policy FILE --policy FILE`, which scans the policy file."""
    target = tmp_path / "nightly.toml"
    assert run_cli(["policy", "init", str(target)]) == 0
    out = capsys.readouterr().out
    assert f"mlspace apply-policy FOLDER --policy {target} --dry-run" in out


def test_a_policy_can_archive(tmp_path: Path, cold: Path) -> None:
    root = _workspace(tmp_path / "ws")
    policy = _policy(tmp_path, 'action = "archive"')
    assert run_cli(["apply-policy", str(root), "--policy", policy, "--yes"]) == 0
    for name in ("checkpoint-20", "checkpoint-30", "checkpoint-40", "checkpoint-10"):
        assert (root / "outputs/run" / name).is_symlink()  # retention's and the kept ones


def test_install_timer_writes_units_that_verify(tmp_path: Path,
                                                isolated_user_dirs: Path) -> None:
    root = _workspace(tmp_path / "ws")
    code = run_cli(["apply-policy", str(root), "--policy", _policy(tmp_path),
                    "--install-timer", "daily"])
    assert code in (0, 1)  # 1: no user systemd here to start it (the cron line is shown)
    units = sorted(os.listdir(isolated_user_dirs / ".config/systemd/user"))
    assert [u.rsplit(".", 1)[1] for u in units] == ["service", "timer"]
