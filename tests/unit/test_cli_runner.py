"""The tests' way of running the command line (tests/cli_runner.py) gives what a fresh
``python -m mlspace`` gives: the same exit codes and output, the test's working directory,
environment and stdin, and a deadline that kills the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_mlspace

from mlspace.demo import generate


def _fresh(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlspace", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, stdin=subprocess.DEVNULL)


def _same(forked: subprocess.CompletedProcess[str],
          fresh: subprocess.CompletedProcess[str]) -> None:
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode, fresh.stdout, fresh.stderr)


@pytest.fixture(autouse=True)
def _forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the forked runs: never let MLSPACE_TEST_EXEC turn them off."""
    monkeypatch.delenv("MLSPACE_TEST_EXEC", raising=False)


def test_a_forked_run_prints_and_exits_as_a_fresh_one(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    forked = run_mlspace("plan", str(root), "--format", "json")
    fresh = _fresh("plan", str(root), "--format", "json")
    assert forked.returncode == 0, forked.stderr
    assert json.loads(forked.stdout)["suggestions"] == json.loads(fresh.stdout)["suggestions"]
    for args in (["plan", str(tmp_path / "nowhere")], ["plan"], ["--version"],
                 ["undo", "no-such-cleanup"]):
        _same(run_mlspace(*args), _fresh(*args))


def test_it_runs_in_the_tests_folder_with_the_tests_environment(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    env = {**os.environ, "MLSPACE_WALKER": "python"}
    walked = run_mlspace("scan", ".", "--verbose", cwd=root, env=env)
    assert "Python walker" in walked.stderr, walked.stderr
    forked = run_mlspace("plan", ".", "--format", "json", cwd=root, env=env)
    assert forked.returncode == 0, forked.stderr
    fresh = _fresh("plan", ".", "--format", "json", cwd=root, env=env)
    assert json.loads(forked.stdout)["suggestions"] == json.loads(fresh.stdout)["suggestions"]
    assert all(path.startswith(str(root)) for s in json.loads(forked.stdout)["suggestions"]
               for path in s["paths"])
    assert "native walker" in run_mlspace("scan", ".", "--verbose", cwd=root).stderr


def test_a_locale_it_did_not_start_with_runs_afresh(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii:backslashreplace"}
    name = str(tmp_path / "café")
    forked = run_mlspace("plan", name, env=env)
    assert "caf\\xe9" in forked.stderr, forked.stderr  # the interpreter's own escaping
    _same(forked, _fresh("plan", name, env=env))


def test_stdin_is_empty_and_no_terminal(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    plan = json.loads(run_mlspace("plan", str(root), "--format", "json").stdout)
    asks = ["clean", str(root), "--apply", plan["suggestions"][0]["id"]]  # no --yes
    forked = run_mlspace(*asks)
    assert forked.returncode == 2 and "not a terminal" in forked.stderr, forked.stderr
    _same(forked, _fresh(*asks))


def test_a_command_past_its_deadline_is_killed(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    with pytest.raises(subprocess.TimeoutExpired):
        run_mlspace("guard", str(root), timeout=1)
    assert run_mlspace("--version").returncode == 0  # the next run is not held up
