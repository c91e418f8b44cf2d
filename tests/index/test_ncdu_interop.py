"""Interop with the real programs: what ``ncdu -o`` and ``gdu -o`` write opens in mlspace with
du's totals, and what mlspace writes opens in ``ncdu -f`` (and comes back the same)."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from index_helpers import mlspace
from trees import NON_UTF8_NAME, du, has_du, make_awkward_tree

from mlspace.index.ncdu_write import write_ncdu
from mlspace.index.saved import open_saved
from mlspace.scan import ScanOptions, scan

WHY = " is not installed (.ci/run installs it with apt-get where it can)"
needs_ncdu = pytest.mark.skipif(shutil.which("ncdu") is None, reason="ncdu" + WHY)
needs_gdu = pytest.mark.skipif(shutil.which("gdu") is None, reason="gdu" + WHY)
needs_du = pytest.mark.skipif(not has_du(), reason="du is not installed")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_awkward_tree(tmp_path / "ws")


def _run(*argv: str) -> subprocess.CompletedProcess[bytes]:
    result = subprocess.run(list(argv), capture_output=True, timeout=120,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    return result


def _assert_du_totals(path: Path, tree: Path) -> None:
    snapshot = open_saved(str(path)).snapshot
    totals = snapshot.grand_totals()
    assert totals.disk_usage == du(tree, "-B1")
    assert totals.apparent_size == du(tree, "-b")
    ours = scan([tree], ScanOptions(workers=1)).grand_totals()
    assert (totals.files, totals.dirs) == (ours.files, ours.dirs)
    assert any(snapshot.name_bytes(e) == NON_UTF8_NAME for e in range(len(snapshot)))


@needs_ncdu
@needs_du
@pytest.mark.parametrize("extended", [False, True])
def test_an_ncdu_export_opens_with_du_totals(tree: Path, tmp_path: Path,
                                             extended: bool) -> None:
    out = tmp_path / "ncdu.json"
    _run("ncdu", *(["-e"] if extended else []), "-o", str(out), str(tree))
    _assert_du_totals(out, tree)


@needs_ncdu
@needs_du
def test_a_gzipped_ncdu_export_opens_too(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "ncdu.json.gz"
    out.write_bytes(gzip.compress(_run("ncdu", "-o-", str(tree)).stdout))
    _assert_du_totals(out, tree)


@needs_gdu
@needs_du
def test_a_gdu_export_opens_with_du_totals(tree: Path, tmp_path: Path) -> None:
    """gdu leaves folders' own sizes out of its exports and counts 4096 bytes for each: on a
    filesystem where a folder takes another size, gdu's own numbers differ from du's."""
    folders = [Path(d) for d, _, _ in os.walk(tree)]
    if any(os.lstat(f).st_blocks * 512 != 4096 or os.lstat(f).st_size != 4096 for f in folders):
        pytest.skip("folders here are not 4096 bytes, which gdu assumes for each")
    out = tmp_path / "gdu.json"
    _run("gdu", "--no-progress", "--non-interactive", "-o", str(out), str(tree))
    snapshot = open_saved(str(out)).snapshot
    assert snapshot.grand_totals().disk_usage == du(tree, "-B1")
    assert snapshot.grand_totals().apparent_size == du(tree, "-b")


@needs_ncdu
@needs_du
def test_mlspace_s_export_loads_in_ncdu_and_comes_back_the_same(tree: Path,
                                                                tmp_path: Path) -> None:
    ours = tmp_path / "mlspace.json"
    with open(ours, "wb") as out:
        write_ncdu(scan([tree], ScanOptions(workers=1)), out)
    again = tmp_path / "again.json"
    _run("ncdu", "-f", str(ours), "-o", str(again))
    _assert_du_totals(ours, tree)
    _assert_du_totals(again, tree)


def _sizes(path: Path) -> tuple[int, int, int, int]:
    t = open_saved(str(path)).snapshot.grand_totals()
    return t.disk_usage, t.apparent_size, t.files, t.dirs


@needs_ncdu
def test_the_cli_writes_ncdu_s_format(tree: Path, tmp_path: Path) -> None:
    """`mlspace scan --format ncdu -o FILE.gz`: gzip-compressed, and ncdu reads it."""
    out = tmp_path / "scan.json.gz"
    result = mlspace("scan", str(tree), "--format", "ncdu", "-o", str(out))
    assert result.returncode == 0, result.stderr
    plain = tmp_path / "scan.json"
    plain.write_bytes(gzip.decompress(out.read_bytes()))
    _run("ncdu", "-f", str(plain), "-o", str(tmp_path / "back.json"))
    assert _sizes(out) == _sizes(tmp_path / "back.json") == _sizes(plain)


def test_ncdu_s_format_holds_one_folder(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    result = mlspace("scan", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "ncdu")
    assert result.returncode == 2
    assert "ncdu's format holds one scanned folder" in result.stderr
