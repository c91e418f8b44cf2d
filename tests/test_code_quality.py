"""House rules that keep the code base simple: lint clean, and the core knows no Qt."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
QT_MODULES = ("PySide6", "pyqtgraph", "shiboken6")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_ui_package_imports_qt() -> None:
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "mlspace").rglob("*.py")
        if "ui" not in path.relative_to(REPO / "mlspace").parts[:1]
        and _imported_modules(path) & set(QT_MODULES)
    ]
    assert offenders == []


def test_importing_the_core_does_not_load_qt() -> None:
    code = (
        "import sys, mlspace.cli, mlspace.scan\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")
def test_ruff_is_clean() -> None:
    result = subprocess.run(["ruff", "check", "--quiet", str(REPO)], capture_output=True,
                            text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
