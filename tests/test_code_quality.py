"""House rules that keep the code base simple: lint clean, the core loads no Qt, and only
the safe modules touch files (the import layers: tests/unit/test_layers.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QT_MODULES = ("PySide6", "pyqtgraph", "shiboken6")


def test_importing_the_core_does_not_load_qt() -> None:
    code = (
        "import sys, mlspace.cli, mlspace.scan\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_ruff_is_clean() -> None:
    """ruff from the test extra, in this interpreter's environment (not whatever is on PATH)."""
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", str(REPO)],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr


#: The only core modules that open, move or remove files by themselves, and why. Every
#: other module reads a user's file through mlspace.safe_read and moves one through
#: mlspace.act (moves, trash): a new direct open() or rename elsewhere fails this test.
FILE_TOUCHING_MODULES = {
    "safe_read.py": "the one bounded reader of users' files",
    "act/moves.py": "descends to an item's folder through directory descriptors",
    "act/trash.py": "moves items into and out of the trash through checked descriptors",
    "act/archive.py": "writes a log archive beside a folder, through its descriptor",
    "act/journal.py": "mlspace's own cleanup journal",
    "act/policy_runs.py": "mlspace's own log of unattended policy runs",
    "act/treecopy.py": "copies an item to the cold tier and back through checked descriptors",
    "act/pointer.py": "leaves and removes the link or stub at an archived item's path",
    "disks.py": "opens a folder to ask its filesystem to commit (syncfs) before free space is "
                "measured",
    "act/purge.py": "deletes for good what mlspace itself moved to the trash, through the "
                    "trash's checked descriptors",
    "act/lock.py": "mlspace's own lock files, one per tree an unattended run works on",
    "index/history.py": "mlspace's own saved scans, kept and thinned in its data folder",
    "scan/walker.py": "opens folders to list them (the scan)",
    "cli/output.py": "writes the output file the user named",
    "written.py": "writes a file the user named beside it, moved in place once whole",
    "index/parquet_dataset_write.py": "writes a dataset into the folder the user named, "
                                      "removing only the parts its earlier _metadata listed",
    "scan/chunk_file.py": "a cluster worker's walk, written into the output's staging folder",
    "scan/cluster.py": "removes each worker's part from the staging folder once merged",
    "cli/walk_staging.py": "makes a cluster scan's staging folder and removes it, with the "
                           "parts left in it, through checked descriptors",
    "demo.py": "writes the sample workspace",
    "classify/rule_files.py": "reads its own default rules, shipped in the package",
    "desktop.py": "installs the menu entry and icons",
    "config.py": "writes the user's own settings file (the app's Settings dialog)",
    "trust.py": "creates mlspace's own record files with a private mode (private_opener)",
    "guard/state.py": "the guard's own state file and reports, written whole and renamed "
                      "into place",
    "guard/setup.py": "puts the user's policy back as it was when the [guard] section it "
                      "added does not read",
}
_OS_CALLS = {"open", "rename", "replace", "unlink", "remove", "rmdir", "removedirs", "link",
             "symlink", "truncate", "renames"}
_SHUTIL_CALLS = {"move", "rmtree", "copy", "copy2", "copyfile", "copytree"}
_PATH_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "unlink", "rmdir"}


def _touches_files(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append("open()")
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if (owner == "os" and func.attr in _OS_CALLS) or \
                    (owner == "shutil" and func.attr in _SHUTIL_CALLS):
                found.append(f"{owner}.{func.attr}()")
            elif owner not in ("os", "shutil") and func.attr in _PATH_METHODS:
                found.append(f".{func.attr}()")
    return found


def test_only_the_safe_modules_open_or_move_files() -> None:
    core = REPO / "mlspace"
    offenders = {}
    for path in core.rglob("*.py"):
        rel = path.relative_to(core).as_posix()
        if rel.startswith("ui/") or rel in FILE_TOUCHING_MODULES:
            continue
        if calls := _touches_files(path):
            offenders[rel] = sorted(set(calls))
    assert offenders == {}


def test_the_guard_sits_below_report_cli_and_ui() -> None:
    """guard uses advise and act; report, cli and the app show what it found, so it may
    import none of them (a circle would make the service load the window's code)."""
    guard = REPO / "mlspace" / "guard"
    above = ("mlspace.report", "mlspace.cli", "mlspace.ui")
    offenders = {}
    for path in guard.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        if bad := sorted(m for m in names if m.startswith(above)):
            offenders[path.name] = bad
    assert offenders == {}
