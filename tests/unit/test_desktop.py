"""Desktop integration: the entry validates, installs and uninstalls for the user, resources
load from an installed wheel, and a missing system library is explained."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mlspace import desktop
from mlspace.assets import ICON_SIZES, icon_png, icon_svg, resource
from mlspace.discover import likely_ml_folders
from mlspace.ui import platform_check

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-utils not installed")
def test_desktop_file_validates(tmp_path: Path) -> None:
    for path in (REPO / "resources" / "mlspace.desktop",):
        result = subprocess.run(["desktop-file-validate", str(path)], capture_output=True,
                                text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    installed = desktop.install(tmp_path)
    entry = next(p for p in installed if p.suffix == ".desktop")
    result = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_install_and_uninstall_for_the_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "mlspace", "--install-desktop"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    entry = (tmp_path / "applications" / "mlspace.desktop").read_text()
    assert "MimeType=inode/directory;" in entry and "Icon=mlspace" in entry
    assert "Exec=" in entry and "%F" in entry
    for size in ICON_SIZES:
        png = tmp_path / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "mlspace.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "icons/hicolor/scalable/apps/mlspace.svg").exists()
    subprocess.run([sys.executable, "-m", "mlspace", "--uninstall-desktop"], check=True,
                   capture_output=True)
    assert not any(p.exists() for p in desktop.installed_files(tmp_path))


def test_resources_are_found_through_importlib() -> None:
    assert icon_svg().read_text().startswith("<?xml")
    assert icon_png(16).read_bytes()[:4] == b"\x89PNG"
    assert "[Desktop Entry]" in resource("mlspace.desktop").read_text()


@pytest.mark.slow
def test_resources_load_from_an_installed_wheel(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-q", "-w", str(wheels), str(REPO)], check=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / "bin" / "python"
    wheel = next(wheels.glob("mlspace-*.whl"))
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    code = ("import mlspace, mlspace.assets as a, mlspace.classify.rules as r;"
            "print(mlspace.__file__);print(len(a.icon_png(512).read_bytes()));"
            "print(len(r.load_rules().dir_rules))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout.split()
    assert out[0].startswith(str(venv))
    assert int(out[1]) > 1000 and int(out[2]) > 40
    listing = subprocess.run([python, "-m", "zipfile", "-l", str(wheel)], capture_output=True,
                             text=True).stdout
    assert "screenshots" not in listing


def test_missing_xcb_library_message_names_the_packages(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(platform_check, "missing_xcb_libraries", lambda: ["xcb-cursor"])
    message = platform_check.display_problem()
    assert message is not None
    assert "libxcb-cursor" in message
    assert "sudo apt install libxcb-cursor0" in message
    assert "sudo dnf install xcb-util-cursor" in message
    monkeypatch.setattr(platform_check, "missing_xcb_libraries", lambda: [])
    assert platform_check.display_problem() is None


def test_no_display_points_to_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    message = platform_check.display_problem()
    assert message is not None and "mlspace scan" in message


def test_first_run_finds_likely_ml_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.delenv("HF_HOME", raising=False)
    (tmp_path / ".cache" / "huggingface" / "hub").mkdir(parents=True)
    (tmp_path / "projects" / "lightning_logs").mkdir(parents=True)
    (tmp_path / "bert" / "checkpoint-500").mkdir(parents=True)
    (tmp_path / "Documents" / "letters").mkdir(parents=True)
    found = likely_ml_folders(tmp_path)
    assert found == [str(tmp_path / ".cache" / "huggingface"), str(tmp_path / "bert"),
                     str(tmp_path / "projects")]


def test_every_package_is_listed_for_the_wheel() -> None:
    """The wheel lists packages explicitly (resources/ is mapped into mlspace.resources);
    a package left out installs fine in editable mode and breaks a normal install."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    present = {".".join(p.parent.relative_to(REPO).parts)
               for p in (REPO / "mlspace").rglob("__init__.py")}
    assert present - listed == set()
