"""What the command line says to a newcomer: the app in --help, a mistyped command called
that, a wrong flag shown with its own command's usage, and `clean` without `plan`'s hints."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_runner import run_mlspace

from mlspace.demo import generate


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args, timeout=120)


def test_help_tells_about_the_app() -> None:
    out = mlspace("--help").stdout
    assert "opens the app" in out and "--demo" in out and "--install-desktop" in out
    assert "mlspace [PATH...]" in out


def test_a_mistyped_command_is_called_one(tmp_path: Path) -> None:
    result = mlspace("frobnicate", str(tmp_path))
    assert result.returncode == 2
    assert "'frobnicate' is neither a command nor a folder" in result.stderr
    assert "no such file or folder" not in result.stderr


def test_an_unknown_flag_shows_its_commands_usage(tmp_path: Path) -> None:
    result = mlspace("plan", str(tmp_path), "--bogus")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: mlspace plan")
    assert "unrecognized arguments: --bogus" in result.stderr


def test_the_cli_names_what_stays_by_name_as_the_app_does(tmp_path: Path) -> None:
    """`plan` and `clean` say which checkpoint is the best and which the latest, by name;
    they said "nor the latest 2 (highest step (12000))" and never named the best."""
    root = generate(tmp_path / "ws")
    run = root / "outputs" / "bert-large-lr3e-4"
    plan = mlspace("plan", str(root)).stdout
    assert "((" not in plan and "))" not in plan
    assert ("Kept: checkpoint-12000 — the latest: highest step (12000); checkpoint-11000 — "
            "one of the latest 2; checkpoint-7000 — the best eval_loss 1.82: "
            "trainer_state.json best_model_checkpoint.") in plan
    retention = next(line.split()[0] for line in plan.splitlines()
                     if line.endswith("Keep best 1 + latest 2 of bert-large-lr3e-4"))
    clean = mlspace("clean", str(root), "--apply", retention, "--dry-run").stdout
    assert f"stays: {run / 'checkpoint-7000'} — the best eval_loss 1.82" in clean
    assert f"stays: {run / 'checkpoint-12000'} — the latest" in clean


def test_clean_does_not_print_plans_hints(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    plan = mlspace("plan", str(root))
    assert "(nothing is removed by `plan`)" in plan.stdout and "Apply with" in plan.stdout
    some_id = next(line.split()[0] for line in plan.stdout.splitlines()
                   if line.startswith("python-caches-"))
    clean = mlspace("clean", str(root), "--apply", some_id, "--dry-run")
    assert clean.returncode == 0, clean.stderr
    assert "nothing is removed by `plan`" not in clean.stdout
    assert "Apply with" not in clean.stdout and "1 suggestion," in clean.stdout


def test_demo_into_a_file_or_a_full_folder_says_which(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("mine")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "a.txt").write_text("mine")
    into_file = mlspace("demo", str(tmp_path / "notes.md"))
    assert into_file.returncode == 2
    assert "notes.md exists and is not a folder" in into_file.stderr  # was "[Errno 17]"
    into_full = mlspace("demo", str(tmp_path / "full"))
    assert into_full.returncode == 2 and "is not empty" in into_full.stderr
    assert (tmp_path / "notes.md").read_text() == "mine"
