"""`mlspace scan` end to end: formats, keys, exit codes (run as a real subprocess)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trees import du, make_awkward_tree, write


def mlspace(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlspace", *args], capture_output=True,
                          text=True, cwd=cwd)


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


def _run_cli_as_nobody(argv: list[str]) -> tuple[int, str]:
    """Run the CLI in a forked child that dropped to 'nobody' (root reads everything, so a
    real permission error needs an unprivileged process). Returns exit code and stdout."""
    from mlspace.cli import main

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            os.dup2(write_end, 1)
            with open(1, "w", closefd=False) as stdout:
                sys.stdout = stdout
                code = main(argv)
                stdout.flush()
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        out = pipe.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to 'nobody'")
def test_unreadable_paths_exit_1_and_still_print_results(tmp_path: Path) -> None:
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="mlspace-cli-perm-"))
    try:
        os.chmod(base, 0o755)
        write(base / "ok.txt", 10)
        (base / "locked").mkdir(mode=0o000)
        os.chmod(base / "ok.txt", 0o644)
        result = _run_cli_as_nobody(["scan", str(base)])
        code, stdout = result
        assert code == 1
        assert f"{base / 'locked'}: permission denied" in stdout
        assert "on disk" in stdout
    finally:
        os.chmod(base / "locked", 0o755)
        subprocess.run(["rm", "-rf", str(base)], check=True)
