"""Every command that takes a PATH takes a saved scan too, and says the same of it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from index_helpers import mlspace, rich_workspace

from mlspace.act import trash as trash_module

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A workspace, its scan saved as Parquet and as an ncdu export."""
    folder = tmp_path_factory.mktemp("saved")
    root = rich_workspace(folder / "ws")
    saved = folder / "ws.parquet"
    assert mlspace("scan", str(root), "-o", str(saved)).returncode == 0
    exported = folder / "ws.json"
    assert mlspace("scan", str(root), "--format", "ncdu", "-o", str(exported)).returncode == 0
    return root, saved, exported


def _json(*args: str) -> dict:
    result = mlspace(*args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_extension_chooses_parquet(workspace: tuple[Path, Path, Path]) -> None:
    _, saved, _ = workspace
    assert saved.read_bytes()[:4] == b"PAR1"
    assert not Path(str(saved) + ".partial").exists()


@pytest.mark.parametrize("command", [["inventory", "--format", "json"],
                                     ["plan", "--format", "json"],
                                     ["scan", "--format", "json"]])
def test_a_saved_scan_says_what_the_folder_says(workspace: tuple[Path, Path, Path],
                                               command: list[str]) -> None:
    root, saved, _ = workspace
    from_folder = _json(command[0], str(root), *command[1:])
    from_file = _json(command[0], str(saved), *command[1:])
    for doc in (from_folder, from_file):
        doc.pop("scan_seconds", None)
    # The disk now is said of a scan made now, never of a saved one (made then, maybe
    # on another machine): all else is the same.
    assert from_folder.pop("disks")[0]["roots"] == [str(root)]
    assert from_file.pop("disks") == []
    assert from_file == from_folder


def test_a_report_of_a_saved_scan(workspace: tuple[Path, Path, Path], tmp_path: Path) -> None:
    root, saved, _ = workspace
    reports = []
    for source in (root, saved):
        out = tmp_path / f"{source.name}.json"
        assert mlspace("report", str(source), "-o", str(out)).returncode == 0
        doc = json.loads(out.read_text())
        for key in ("generated", "scan_seconds", "artifacts", "top_artifacts"):
            doc.pop(key)
        reports.append(doc)
    assert [len(r.pop("disks")) for r in reports] == [1, 0]  # the disk: of a scan made now
    assert reports[0] == reports[1]


def test_an_ncdu_export_is_classified_by_names(workspace: tuple[Path, Path, Path]) -> None:
    root, _, exported = workspace
    from_folder = _json("inventory", str(root), "--format", "json")
    from_export = _json("inventory", str(exported), "--format", "json")
    assert from_export["totals"] == from_folder["totals"]
    paths = {a["path"] for a in from_folder["artifacts"]}
    assert {a["path"] for a in from_export["artifacts"]} == paths
    # best and latest come from records the export does not hold: by names alone here
    assert {s["path"] for s in from_export["series"]} == {s["path"] for s in
                                                         from_folder["series"]}


def test_saved_scans_work_without_the_disk(workspace: tuple[Path, Path, Path],
                                           tmp_path: Path) -> None:
    root, saved, _ = workspace
    before = mlspace("inventory", str(saved)).stdout
    away = tmp_path / "away"
    root.rename(away)  # never a copy: the workspace holds sparse files of many GiB
    try:
        after = mlspace("inventory", str(saved))
        assert after.returncode == 0 and after.stdout == before
        plan = mlspace("plan", str(saved))
        assert plan.returncode == 0 and "Keep best" in plan.stdout
        clean = mlspace("clean", str(saved), "--apply", "x", "--dry-run")
        assert clean.returncode == 2
        assert f"the folder {root} is not on this machine" in clean.stderr
    finally:
        away.rename(root)


@pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")
def test_clean_from_a_saved_scan_scans_again(workspace: tuple[Path, Path, Path]) -> None:
    root, saved, _ = workspace
    plan = _json("plan", str(saved), "--format", "json")
    chosen = next(s["id"] for s in plan["suggestions"]
                  if s["policy"] == "checkpoint-retention")
    dry = mlspace("clean", str(saved), "--apply", chosen, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Dry run: nothing was moved." in dry.stdout


def test_usage_mistakes_are_messages(workspace: tuple[Path, Path, Path]) -> None:
    root, saved, exported = workspace
    checks = [
        (("scan", str(root), "--format", "parquet"), "give -o FILE.parquet"),
        (("plan", str(saved), "--duplicates"), "--duplicates compares the files' contents"),
        (("inventory", str(saved), str(exported)), "a saved scan is opened on its own"),
        (("inventory", str(saved), str(root)), "a saved scan is opened on its own"),
    ]
    for argv, message in checks:
        result = mlspace(*argv)
        assert result.returncode == 2, argv
        assert message in result.stderr and "Traceback" not in result.stderr


def test_a_plain_scan_does_not_import_pyarrow(tmp_path: Path) -> None:
    code = ("import sys; from mlspace.cli import main; main(['scan', sys.argv[1]]); "
            "print('pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip().endswith("False")


def test_the_index_package_imports_no_dask() -> None:
    for path in (REPO / "mlspace" / "index").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] == "dask" for n in names), path


def test_the_app_is_given_one_saved_scan_or_folders(workspace: tuple[Path, Path, Path]
                                                    ) -> None:
    """`mlspace FILE` opens a saved scan in the app; with anything else named, it says why
    before a window opens."""
    from mlspace.cli.app import check_app_paths
    from mlspace.cli.exits import UsageError

    root, saved, exported = workspace
    for alone in (saved, exported):
        check_app_paths([str(alone)])  # no error: the app opens it
    for mixed in ([str(saved), str(root)], [str(saved), str(exported)]):
        with pytest.raises(UsageError, match="a saved scan is opened on its own"):
            check_app_paths(mixed)
    result = run_mlspace(str(saved), str(root), timeout=60)
    assert result.returncode == 2 and "opened on its own" in result.stderr
    assert "Traceback" not in result.stderr
