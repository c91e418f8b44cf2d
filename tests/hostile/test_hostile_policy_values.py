"""Policies are what runs with nobody watching: a bad value is a message with its line, a
crash is a failure the timer counts as one, and a folder name cannot write lines of its own
into the unit or the cron entry."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from workspaces import hf_run

from mlspace.act import schedule


def mlspace(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args, env=env)


@pytest.mark.parametrize(("line", "says"), [
    ('max_bytes = "1.2.3 GB"', ':2: max_bytes must be bytes or a size like "50 GB"'),
    ('max_bytes = "0 GB"', ":2: max_bytes must be more than 0"),
    ("purge_after_days = nan", ":2: purge_after_days must be a number of days, 0 or more"),
])
def test_a_bad_top_value_is_a_message_with_its_line(tmp_path: Path, line: str,
                                                    says: str) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(f'version = 1\n{line}\n[[rule]]\nfolders = ["*"]\n')
    done = mlspace("policy", "check", str(policy))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{policy}{says}" in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_a_minimum_age_that_would_turn_the_age_gate_off_is_refused(tmp_path: Path,
                                                                   value: str) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(f'version = 1\n[[rule]]\nfolders = ["*"]\nmin_age_days = {value}\n')
    done = mlspace("policy", "check", str(policy))
    assert done.returncode == 2
    assert f"{policy}:4: min_age_days must be a number of days, 0 or more" in done.stderr


def test_an_internal_error_is_a_failure_the_timer_sees(tmp_path: Path) -> None:
    """A crash exited 1, which the unit counts as success (SuccessExitStatus=1: some items
    skipped). It is now one line, its details kept for a report, and exit 70."""
    root = tmp_path / "ws"
    hf_run(root)
    crash = ("import sys, mlspace.cli.cmd_plan as p\n"
             "def boom(*a, **k): raise RuntimeError('simulated bug')\n"
             "p.plan_from_args = boom\n"
             "import mlspace.cli.parser as parser\n"
             "from mlspace.cli.dispatch import main\n"
             f"sys.exit(main(['plan', {str(root)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", crash], capture_output=True, text=True)
    assert done.returncode == 70
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "internal error: RuntimeError: simulated bug" in done.stderr
    report = Path(done.stderr.split("the details are in ")[1].split(")")[0])
    assert "simulated bug" in report.read_text() and "Traceback" in report.read_text()
    assert "70" not in schedule.units([str(root)], None, "daily")[
        f"{schedule.unit_name([str(root)])}.service"].split("SuccessExitStatus=")[1].split()[0]


def test_a_folder_name_with_a_newline_cannot_inject_a_unit_line(
        tmp_path: Path, isolated_user_dirs: Path) -> None:
    root = tmp_path / "ws\nExecStartPost=/bin/sh -c 'rm -rf ~'"
    hf_run(root)
    policy = tmp_path / "policy.toml"
    policy.write_text('version = 1\n[[rule]]\nfolders = ["*"]\n')
    done = mlspace("apply-policy", str(root), "--policy", str(policy),
                   "--install-timer", "daily")
    assert done.returncode == 2 and "control character" in done.stderr
    units = isolated_user_dirs / ".config" / "systemd" / "user"
    assert not units.exists() or os.listdir(units) == []
    with pytest.raises(schedule.CannotSchedule):
        schedule.cron_line([str(root)], str(policy), "daily")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (the systemd package)")
def test_units_that_do_not_verify_are_never_left_behind(
        tmp_path: Path, isolated_user_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit systemd-analyze refuses (here: a program path that is not absolute, as a
    broken template would write) is not installed at all, and the command says why."""
    from mlspace.cli import main as run_cli

    root = tmp_path / "ws"
    hf_run(root)
    policy = tmp_path / "policy.toml"
    policy.write_text('version = 1\n[[rule]]\nfolders = ["*"]\n')
    real = schedule.units

    def broken(*args: object) -> dict[str, str]:
        return {k: v.replace('ExecStart="/', 'ExecStart="') for k, v in real(*args).items()}

    monkeypatch.setattr(schedule, "units", broken)
    assert run_cli(["apply-policy", str(root), "--policy", str(policy), "--install-timer",
                    "daily"]) == 2
    units = isolated_user_dirs / ".config" / "systemd" / "user"
    assert os.listdir(units) == []


def test_the_template_s_minimum_age_holds_under_every_rule(tmp_path: Path) -> None:
    """A run outside outputs/, runs/ and checkpoints/ fell to the catch-all rule, which had
    no minimum age: a six-day-old checkpoint of a run written two days ago went."""
    import time

    from workspaces import age

    root = tmp_path / "ws"
    run = hf_run(root / "experiments")
    age(root, time.time() - 6 * 86400)
    assert mlspace("policy", "init", str(root)).returncode == 0
    dry = mlspace("apply-policy", str(root), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would trash" not in dry.stdout
    assert "0 items" in dry.stdout and (run / "checkpoint-20").is_dir()


def test_a_policy_archive_folder_inside_the_workspace_is_refused(tmp_path: Path) -> None:
    """A policy's archive_root passes the checks the Settings dialog makes."""
    root = tmp_path / "ws"
    hf_run(root)
    (root / "cold").mkdir()
    policy = tmp_path / "policy.toml"
    policy.write_text(f'version = 1\naction = "archive"\narchive_root = "{root / "cold"}"\n'
                      '[[rule]]\nfolders = ["*"]\n')
    done = mlspace("apply-policy", str(root), "--policy", str(policy), "--yes")
    assert done.returncode == 2
    assert f"is inside the scanned folder {root}" in done.stderr
    assert (root / "outputs" / "run" / "checkpoint-20").is_dir()
