"""`mlspace scan` end to end: formats, keys, exit codes (run as a real subprocess)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from terminal import read_all, read_until
from trees import du, make_awkward_tree, write


def mlspace(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args, cwd=cwd)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_awkward_tree(tmp_path / "ws")


def test_table_summary(ws: Path) -> None:
    result = mlspace("scan", str(ws))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"Scanned {ws}" in out
    for label in ("on disk", "apparent", "files", "folders", "errors", "time"):
        assert label in out
    assert "Largest folders (on disk):" in out
    assert str(ws / "deep") in out


def test_json_keys_and_totals_match_du(ws: Path) -> None:
    result = mlspace("scan", str(ws), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["version"] == 1
    assert doc["roots"] == [str(ws)]
    assert doc["totals"]["disk_usage"] == du(ws, "-B1")
    assert doc["totals"]["apparent_size"] == du(ws, "-b")
    assert set(doc["totals"]) >= {"disk_usage", "apparent_size", "files", "dirs"}
    files = {f["path"]: f for f in doc["files"]}
    assert files["data/b.bin"]["apparent_size"] == 5000
    assert files["data/b.bin"]["kind"] == "file"
    assert files["link-to-dir"]["kind"] == "symlink"
    assert files["deep"]["kind"] == "dir"
    for record in doc["files"]:
        assert {"path", "root", "disk_usage", "apparent_size", "mtime", "kind"} <= set(record)
    assert sum(f["disk_usage"] for f in doc["files"]) == doc["totals"]["disk_usage"]
    assert doc["errors"] == []
    # the non-UTF-8 name survives as a surrogate-escaped string that maps back to the bytes
    odd = [p for p in files if p.startswith("caf")]
    assert os.path.exists(os.fsencode(ws) + b"/" + os.fsencode(odd[0]))


def test_csv_has_the_documented_header_and_one_row_per_entry(ws: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "scan.csv"
    result = mlspace("scan", str(ws), "--format", "csv", "-o", str(out_file))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out_file.read_text(errors="surrogateescape"))))
    assert list(rows[0])[:5] == ["path", "root", "disk_usage", "apparent_size", "mtime"]
    assert "kind" in rows[0]
    entries = 1 + sum(len(d) + len(f) for _, d, f in os.walk(ws))  # the root, then the rest
    assert len(rows) == entries
    assert sum(int(r["disk_usage"]) for r in rows) == du(ws, "-B1")


def test_missing_root_exits_2_with_a_message(tmp_path: Path) -> None:
    result = mlspace("scan", str(tmp_path / "absent"))
    assert result.returncode == 2
    assert "no such file or folder" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_usage_exits_2() -> None:
    result = mlspace("scan", "--format", "xml", ".")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def _run_cli_as_nobody(argv: list[str], own_home: bool = True) -> tuple[int, str, str]:
    """Run the CLI in a forked child that dropped to 'nobody' (root reads everything, so a
    real permission error needs an unprivileged process), in a home of its own unless
    ``own_home`` is False (then the test's, which only root may enter). Returns the exit
    code, stdout and stderr."""
    from mlspace.cli import main

    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code, home = 99, ""
        try:
            os.close(out_read)
            os.close(err_read)
            os.setgid(65534)
            os.setuid(65534)
            if own_home:
                home = tempfile.mkdtemp(prefix="mlspace-nobody-home-")
                for var in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                            "XDG_STATE_HOME"):
                    os.environ[var] = os.path.join(home, var.lower())
            os.dup2(out_write, 1)
            os.dup2(err_write, 2)
            with open(1, "w", closefd=False) as stdout, open(2, "w", closefd=False) as stderr:
                sys.stdout, sys.stderr = stdout, stderr
                code = main(argv)
                stdout.flush()
                stderr.flush()
        except BaseException:
            os.write(2, traceback.format_exc().encode())
        finally:
            shutil.rmtree(home, ignore_errors=True)
            os._exit(code)
    os.close(out_write)
    os.close(err_write)
    with os.fdopen(out_read) as out_pipe, os.fdopen(err_read) as err_pipe:
        out, err = out_pipe.read(), err_pipe.read()  # small: neither pipe fills
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


@pytest.fixture
def partly_locked() -> Iterator[Path]:
    """A folder with a file anyone reads and a folder nobody but root may open, outside
    pytest's private temporary folder (which 'nobody' cannot enter)."""
    base = Path(tempfile.mkdtemp(prefix="mlspace-cli-perm-"))
    os.chmod(base, 0o777)
    write(base / "ok.txt", 10)
    os.chmod(base / "ok.txt", 0o644)
    (base / "locked").mkdir(mode=0o000)
    yield base
    os.chmod(base / "locked", 0o755)
    subprocess.run(["rm", "-rf", str(base)], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to 'nobody'")
def test_unreadable_paths_exit_1_and_still_print_results(partly_locked: Path) -> None:
    from mlspace.cli import main

    # The command's modules are imported lazily, and 'nobody' may not read the
    # interpreter's library: run it once here first.
    with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere):
        main(["scan", str(partly_locked)])
    code, stdout, stderr = _run_cli_as_nobody(["scan", str(partly_locked)])
    assert code == 1
    assert f"{partly_locked / 'locked'}: permission denied" in stdout
    assert "on disk" in stdout
    assert f"{partly_locked / 'locked'}: permission denied" in stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to 'nobody'")
@pytest.mark.parametrize("command", [["plan"], ["inventory"], ["report", "-o", "REPORT.md"],
                                     ["report", "-o", "REPORT.html"]])
def test_every_command_says_what_it_could_not_read(partly_locked: Path, tmp_path: Path,
                                                   command: list[str]) -> None:
    """Exit 1 alone told nobody why: stderr names the path and the reason, and a report
    says it before any number."""
    from mlspace.cli import main

    report = partly_locked / command[-1] if command[0] == "report" else None
    argv = [command[0], str(partly_locked), *(["-o", str(report)] if report else [])]
    # The command's modules are imported lazily, and 'nobody' may not read the
    # interpreter's library: run it once here first, writing elsewhere.
    warm_up = [*argv[:2], *(["-o", str(tmp_path / report.name)] if report else [])]
    with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere), \
            contextlib.redirect_stderr(nowhere):
        main(warm_up)
    code, _, stderr = _run_cli_as_nobody(argv)
    assert code == 1, stderr
    assert "1 path could not be read, so the results leave it out" in stderr
    assert f"{partly_locked / 'locked'}: permission denied" in stderr
    if report is not None:
        text = report.read_text()
        assert "1 path could not be read, so the totals leave it out" in text
        assert str(partly_locked / "locked") in text


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to 'nobody'")
def test_a_config_and_data_folder_of_another_user_is_no_traceback(
        isolated_user_dirs: Path, tmp_path: Path) -> None:
    """After a `sudo mlspace`, the config and data folders belong to root: the user's
    commands still run, on the default rules, and say why."""
    from mlspace.cli import main

    config = isolated_user_dirs / ".config" / "mlspace"
    config.mkdir(parents=True)
    (config / "rules.toml").write_text("")
    os.chmod(isolated_user_dirs, 0o700)
    out = Path(tempfile.mkdtemp(prefix="mlspace-cli-out-"))
    try:
        os.chmod(out, 0o777)
        write(out / "ws" / "logs" / "train.log", 100)
        os.chmod(out / "ws", 0o755)
        os.chmod(out / "ws" / "logs", 0o755)
        os.chmod(out / "ws" / "logs" / "train.log", 0o644)
        with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere):
            main(["report", str(out / "ws"), "-o", str(tmp_path / "warm.md")])  # imports
        code, stdout, stderr = _run_cli_as_nobody(
            ["report", str(out / "ws"), "-o", str(out / "r.md")], own_home=False)
        assert code == 0, stderr
        assert "rules.toml: permission denied; using the default rules only" in stderr
        assert "1 file" in (out / "r.md").read_text()
    finally:
        subprocess.run(["rm", "-rf", str(out)], check=True)


_CTRL_C_LOCAL = r"""
import sys, slow_storage
from mlspace.cli import main
from mlspace.scan import scanner

slow_storage.install(0.0, 0.005)  # the forked workers inherit the slow (Python) walker
# A few entries here, then the workers walk, in chunks that come back (and show) one by one
scanner.IN_PROCESS_BUDGET, scanner.WORKER_BUDGET = 20, 50
sys.exit(main(["scan", sys.argv[1], "--workers", "2"]))
"""


def test_ctrl_c_during_a_scan_with_workers_is_one_line_and_130(tmp_path: Path) -> None:
    """As from a terminal: SIGINT reaches the whole process group, the scan's worker
    processes too. They leave it to the command, which says so in one line: no worker's
    KeyboardInterrupt traceback."""
    for folder in range(40):
        for name in range(25):
            write(tmp_path / "ws" / f"d{folder}" / f"f{name}", 10)
    benchmarks = Path(__file__).resolve().parents[2] / "benchmarks"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(benchmarks),
                                                        os.environ.get("PYTHONPATH", "")])}
    primary, secondary = pty.openpty()  # a terminal: the command shows its progress there
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_LOCAL, str(tmp_path / "ws")],
                             stdout=subprocess.DEVNULL, stderr=secondary, env=env,
                             start_new_session=True)
    os.close(secondary)
    try:
        # a progress line with the workers walking (1,000 stats of 5 ms take 2.5 s on two)
        read_until(primary, b"busy)")
        assert child.poll() is None
        os.killpg(child.pid, signal.SIGINT)
        child.wait(timeout=60)
        err = read_all(primary).decode(errors="replace")
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        os.close(primary)
    assert child.returncode == 130, err
    said = [line for line in err.replace("\r", "\n").splitlines()
            if line.strip() and "\x1b[K" not in line]  # not the progress line
    assert said == ["mlspace: interrupted"], err  # no worker's traceback, not even its start
