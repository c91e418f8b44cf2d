"""`--apparent` on the commands that print sizes, on the demo workspace: its big files are
sparse, so on disk they read as next to nothing and only their apparent sizes tell them
apart; and the note that points to --apparent when sizes on disk hide almost everything."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from layouts import make

from mlspace import fmt
from mlspace.demo import generate

NOTE = "Add --apparent to see them by apparent size."
GIB = 1 << 30


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    result = run_mlspace(*args)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("apparent") / "demo")


def _rows(text: str, ids: set[str]) -> list[tuple[str, str]]:
    """(id, size shown) of each suggestion row of `plan`'s table, in order."""
    found = (re.match(r"(\S+)\s+(.+?)  \[", line) for line in text.splitlines())
    return [(m[1], m[2].strip()) for m in found if m and m[1] in ids]


def test_plan_apparent_sizes_orders_and_totals_by_apparent_size(demo: Path) -> None:
    doc = json.loads(mlspace("plan", str(demo), "--format", "json").stdout)
    suggestions = doc["suggestions"]
    assert doc["total_apparent_bytes"] == sum(s["apparent_bytes"] for s in suggestions)
    assert doc["total_bytes"] == sum(s["bytes"] for s in suggestions)  # kept as it was
    by_apparent = sorted(suggestions, key=lambda s: -s["apparent_bytes"])
    assert [s["id"] for s in by_apparent] != [s["id"] for s in suggestions]  # it reorders

    disk, blank, text = mlspace("plan", str(demo), "--apparent").stdout.partition("\n\n")
    assert " full · " in disk and blank  # the disk line comes first
    assert text.startswith(f"{len(suggestions)} suggestions, "
                           f"{fmt.size(doc['total_apparent_bytes'])} apparent in all")
    ids = {s["id"] for s in suggestions}
    assert _rows(text, ids) == [(s["id"], fmt.size(s["apparent_bytes"])) for s in by_apparent]
    assert NOTE not in text


def test_plan_on_disk_says_the_files_are_sparse_and_points_to_apparent(demo: Path) -> None:
    doc = json.loads(mlspace("plan", str(demo), "--format", "json").stdout)
    text = mlspace("plan", str(demo)).stdout
    assert f"{fmt.size(doc['total_bytes'])} on disk in all" in text
    assert _rows(text, {s["id"] for s in doc["suggestions"]}) == \
        [(s["id"], fmt.size(s["bytes"])) for s in doc["suggestions"]]
    assert (f"These files take {fmt.size(doc['total_bytes'])} on disk but hold "
            f"{fmt.size(doc['total_apparent_bytes'])}") in text
    assert text.rstrip().endswith(NOTE)


def test_inventory_apparent(demo: Path) -> None:
    doc = json.loads(mlspace("inventory", str(demo), "--format", "json").stdout)
    artifacts = {a["id"]: a for a in doc["artifacts"]}
    for s in doc["series"]:  # series carry both sizes, as everything else does
        members = [artifacts[m] for m in s["checkpoints"]]
        assert s["apparent_size"] == sum(a["apparent_size"] for a in members
                                         if a["copy_kind"] != "hard link")
    assert any(s["apparent_size"] > 100 * s["disk_usage"] for s in doc["series"])

    text = mlspace("inventory", str(demo), "--apparent").stdout
    assert re.search(r"By category\s+apparent\s+share", text)
    checkpoints = doc["categories"]["checkpoint"]["apparent_size"]
    share = 100 * checkpoints / doc["totals"]["apparent_size"]
    assert re.search(rf"Checkpoints\s+{re.escape(fmt.size(checkpoints))}\s+{share:.0f}%", text)
    largest = text.split("Largest items:\n")[1].splitlines()
    biggest = sorted((a for a in doc["artifacts"] if a["kind"] != "run"),
                     key=lambda a: -a["apparent_size"])
    assert [line.split()[-1] for line in largest] == [a["path"] for a in biggest[:12]]
    assert largest[0].split()[:2] == fmt.size(biggest[0]["apparent_size"]).split()
    assert NOTE not in text
    on_disk = mlspace("inventory", str(demo)).stdout
    assert re.search(r"By category\s+on disk\s+share", on_disk)
    assert on_disk.rstrip().endswith(NOTE)


def test_scan_says_the_files_are_sparse_unless_apparent(demo: Path) -> None:
    assert mlspace("scan", str(demo)).stdout.rstrip().endswith(NOTE)
    assert NOTE not in mlspace("scan", str(demo), "--apparent").stdout


def test_diff_apparent_sees_a_sparse_file_grow(tmp_path: Path) -> None:
    root = generate(tmp_path / "ws")
    saved = tmp_path / "before.parquet"
    mlspace("scan", str(root), "-o", str(saved))
    grown = root / "outputs" / "bert-base-lr1e-4" / "checkpoint-10000"
    with open(grown / "extra.bin", "wb") as f:
        f.truncate(5 * GIB)  # a hole: 5 GiB more apparent, nothing more on disk
    doc = json.loads(mlspace("diff", str(saved), str(root), "--format", "json").stdout)
    by_apparent = doc["apparent"]
    assert set(by_apparent) == {"totals", "categories", "changes", "runs"}
    assert by_apparent["totals"]["delta"] == 5 * GIB
    assert by_apparent["categories"]["checkpoint"]["delta"] == 5 * GIB
    assert [(c["path"], c["status"], c["delta"]) for c in by_apparent["changes"]] == \
        [(str(grown), "grown", 5 * GIB)]
    assert doc["totals"]["delta"] < 64 * 1024  # on disk: next to nothing
    assert all(abs(c["delta"]) < 64 * 1024 for c in doc["changes"])

    text = mlspace("diff", str(saved), str(root), "--apparent").stdout
    assert re.search(r"apparent\s+.+->\s+.+\+5\.0 GiB", text)
    assert re.search(rf"\+5\.0 GiB\s+grown\s+checkpoint\s+{re.escape(str(grown))}", text)
    assert NOTE not in text
    assert mlspace("diff", str(saved), str(root)).stdout.rstrip().endswith(NOTE)


def test_no_note_where_sizes_on_disk_tell_the_story(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {"data/a.bin": 200_000, "logs/b.log": "x" * 50_000})
    for command in ("scan", "inventory", "plan"):
        assert NOTE not in mlspace(command, str(root)).stdout, command


def test_report_json_carries_apparent_sizes(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    mlspace("report", str(demo), "-o", str(out))
    doc = json.loads(out.read_text())
    assert doc["reclaimable_apparent"] == sum(s["apparent_bytes"] for s in doc["suggestions"])
    assert doc["reclaimable_apparent"] > 100 * doc["reclaimable"]
    assert all(s["apparent_size"] >= s["disk_usage"] for s in doc["series"])
