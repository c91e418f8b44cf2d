"""Something named like a core dump that is not a file: a FIFO called ``core`` (opening it
blocks until a writer comes) or a link to one. Every command answers promptly, and the thing
is not taken for a core dump."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hostile_helpers import answers_quickly, assert_clean_run, mlspace_cli

from mlspace.classify.readers.headers import is_core_dump

#: The first bytes of a little-endian ELF core file (e_type 4 at offset 16).
ELF_CORE = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x04\x00" + b"\0" * 46


def _workspace(root: Path, name: str, kind: str) -> Path:
    """logs/ with a training log and, under ``name``, a FIFO or a symlink to one; a real
    core dump beside them shows detection still works."""
    logs = root / "logs"
    logs.mkdir(parents=True)
    (logs / "train.log").write_text("step 1 loss 2.0\n")
    (root / "job").mkdir()
    (root / "job" / "core.999").write_bytes(ELF_CORE)
    if kind == "fifo":
        os.mkfifo(logs / name)
    else:
        os.mkfifo(logs / "pipe")
        os.symlink("pipe", logs / name)
    return root


CASES = [("core", "fifo"), ("core.1234", "fifo"), ("core", "link to a fifo")]


@pytest.mark.parametrize(("name", "kind"), CASES)
def test_the_header_check_refuses_at_once(tmp_path: Path, name: str, kind: str) -> None:
    """is_core_dump on a FIFO core / core.1234 / core -> fifo returns False without blocking."""
    root = _workspace(tmp_path / "ws", name, kind)
    assert answers_quickly(is_core_dump, str(root / "logs" / name), seconds=5) is False
    assert is_core_dump(str(root / "job" / "core.999")) is True


@pytest.mark.parametrize(("name", "kind"), CASES)
def test_inventory_plan_and_report_return_promptly(tmp_path: Path, name: str, kind: str
                                                   ) -> None:
    """A FIFO core / core.1234 / core -> fifo under logs/: inventory, plan, report and scan
    return at once; it is a log entry, not a core dump, and no cleanup names it."""
    root = _workspace(tmp_path / "ws", name, kind)
    assert_clean_run(mlspace_cli("inventory", str(root)))
    plan = mlspace_cli("plan", str(root), "--format", "json")
    assert_clean_run(plan)
    paths = {p for s in json.loads(plan.stdout)["suggestions"] for p in s["paths"]}
    assert str(root / "logs" / name) not in paths
    report = tmp_path / "report.html"
    assert_clean_run(mlspace_cli("report", str(root), "-o", str(report)))
    assert report.stat().st_size > 0
    listing = mlspace_cli("scan", str(root), "--format", "json")
    assert_clean_run(listing)
    files = {f["path"]: f for f in json.loads(listing.stdout)["files"]}
    assert files[f"logs/{name}"]["category"] == "log"
    assert files["job/core.999"]["category"] == "debug"  # a real dump is still one
