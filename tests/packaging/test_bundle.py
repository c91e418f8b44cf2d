"""Smoke test of the packaged app (slow, opt-in: pytest -m slow tests/packaging): build the
one-folder bundle with PyInstaller, then run the built binary as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("PyInstaller")
    work = tmp_path_factory.mktemp("pyinstaller")
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath",
                    str(work / "dist"), "--workpath", str(work / "build"),
                    str(REPO / "packaging" / "mlspace.spec")], check=True, capture_output=True)
    return work / "dist" / "mlspace" / "mlspace"


def test_built_app_takes_a_screenshot_of_the_demo(bundle: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([str(bundle), "--screenshot", str(shot)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 20_000  # a real window, not a blank image


def test_built_app_runs_the_cli_with_its_rules(bundle: Path, tmp_path: Path) -> None:
    (tmp_path / "ws" / "out" / "checkpoint-5").mkdir(parents=True)
    (tmp_path / "ws" / "out" / "checkpoint-5" / "optimizer.pt").write_bytes(b"x" * 100)
    result = subprocess.run([str(bundle), "scan", str(tmp_path / "ws"), "--format", "csv"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "out/checkpoint-5/optimizer.pt" in result.stdout
    assert ",checkpoint," in result.stdout


def test_built_app_scans_with_the_native_walker_where_it_was_built(bundle: Path,
                                                                   tmp_path: Path) -> None:
    from mlspace.scan.native import native_problem

    (tmp_path / "ws").mkdir()
    result = subprocess.run([str(bundle), "scan", str(tmp_path / "ws"), "--verbose"],
                            capture_output=True, text=True, timeout=120,
                            env={k: v for k, v in os.environ.items() if k != "MLSPACE_WALKER"})
    assert result.returncode == 0, result.stderr
    expected = "native walker (C extension" if native_problem() is None else "Python walker"
    assert f"mlspace: walker: {expected}" in result.stderr
