"""mlspace's own stores (the cleanup journal, the saved scans' history, the policy-run log)
read through the one bounded reader, from folders that pass the ownership rule, and checked
field by field: a FIFO or a /dev/zero link there never hangs a command or takes its memory,
a damaged or foreign file is skipped with a message naming it, and one bad file never stops
the undo of the others. Through the CLI, as the user meets it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from hostile_helpers import NEIGHBOUR, assert_clean_run, mlspace_cli
from workspaces import hf_run

from mlspace.act.journal import journal_dir
from mlspace.act.policy_runs import policy_runs_file
from mlspace.index.history import history_dir

#: Far longer than any of these commands takes; a FIFO opened would block it for ever.
QUICK = 30.0


def _cleanup(root: Path) -> str:
    """Clean up the run's old checkpoints through the CLI; returns the cleanup id."""
    plan = json.loads(mlspace_cli("plan", str(root), "--format", "json").stdout)
    retention = next(s["id"] for s in plan["suggestions"]
                     if s["policy"] == "checkpoint-retention")
    done = mlspace_cli("clean", str(root), "--apply", retention, "--yes")
    assert_clean_run(done)
    return next(line.split()[2] for line in done.stdout.splitlines()
                if line.startswith("Cleanup id:"))


@pytest.fixture
def cleaned(tmp_path: Path) -> tuple[Path, str, dict[str, str]]:
    """A workspace, its digest before, and the cleanup made of it."""
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    return root, _cleanup(root), before


def _write_journal(name: str, header: object, *events: object) -> Path:
    path = journal_dir() / name
    lines = [json.dumps(header), *(json.dumps(e) for e in events)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _listed(result: object) -> list[str]:
    return [line.split()[0] for line in result.stdout.splitlines() if line.strip()]  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------ journal
def test_a_fifo_in_the_journal_folder_hangs_nothing(
        cleaned: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    root, cleanup_id, before = cleaned
    fifo = journal_dir() / "20990101-000000-ffffff.jsonl"
    os.mkfifo(fifo)
    listing = mlspace_cli("undo", "--list", timeout=QUICK)
    assert_clean_run(listing)
    assert _listed(listing) == [cleanup_id]
    assert f"mlspace: skipped the journal file {fifo}: is a FIFO" in listing.stderr
    report = mlspace_cli("report", str(root), "-o", str(tmp_path / "r.json"), timeout=QUICK)
    assert_clean_run(report)
    assert f"{fifo}: is a FIFO" in report.stderr
    cleanups = json.loads((tmp_path / "r.json").read_text())["cleanups"]
    assert [c["id"] for c in cleanups] == [cleanup_id]
    assert_clean_run(mlspace_cli("undo", timeout=QUICK))
    assert tree_digest(root) == before


#: Damages of a journal file's first line: a field missing, or one of the wrong type.
DAMAGES = {
    "no-created": lambda h: h.pop("created"),
    "no-items": lambda h: h.pop("items"),
    "created-text": lambda h: h.update(created="yesterday"),
    "items-object": lambda h: h.update(items={"path": "/x"}),
    "item-without-size": lambda h: h["items"][0].pop("disk_usage"),
    "item-path-number": lambda h: h["items"][0].update(path=7),
    "roots-text": lambda h: h.update(roots="/"),
    "meta-list": lambda h: h.update(meta=[1]),
}


def test_damaged_journal_files_are_skipped_and_the_others_stay_undoable(
        cleaned: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    """A first line lacking a field or with one of the wrong type crashed `undo --list`,
    `undo` and `report`, and so turned off undo for every cleanup. Every damage lies in
    one journal folder at once, each in a file of its own, beside the real cleanup: each is
    skipped with a message naming it (one command run for all, not one a damage)."""
    root, cleanup_id, before = cleaned
    good = (journal_dir() / f"{cleanup_id}.jsonl").read_text().splitlines()
    bad: dict[str, Path] = {}
    for number, damage in enumerate(DAMAGES.values()):
        header = json.loads(good[0])
        bad_id = f"20990101-000000-dddd{number:02d}"
        header["id"] = bad_id
        damage(header)
        bad[bad_id] = _write_journal(f"{bad_id}.jsonl", header, *map(json.loads, good[1:]))
    for command in (["undo", "--list"], ["report", str(root), "-o", str(tmp_path / "r.md")]):
        result = mlspace_cli(*command)
        assert_clean_run(result)
        for name, path in zip(DAMAGES, bad.values(), strict=True):
            assert f"mlspace: skipped the journal file {path}: its " in result.stderr, name
    for name, (bad_id, path) in zip(DAMAGES, bad.items(), strict=True):
        named = mlspace_cli("undo", bad_id)
        assert_clean_run(named, 2)
        assert f"cleanup {bad_id} cannot be used: {path}: its " in named.stderr, name
    last = mlspace_cli("undo")  # the newest readable cleanup: the real one
    assert_clean_run(last)
    assert f"of {cleanup_id}" in last.stdout
    assert tree_digest(root) == before


def test_a_journal_event_of_the_wrong_type_is_left_out(
        cleaned: tuple[Path, str, dict[str, str]]) -> None:
    """An event line that is not an event (a number for a path) is passed over like a line
    cut short; the cleanup's other events still undo it."""
    root, cleanup_id, before = cleaned
    path = journal_dir() / f"{cleanup_id}.jsonl"
    with path.open("a") as f:
        f.write(json.dumps({"event": "trashed", "path": 42}) + "\n[1, 2]\n{\"event\": \n")
    assert_clean_run(mlspace_cli("undo", "--list"))
    assert_clean_run(mlspace_cli("undo", cleanup_id))
    assert tree_digest(root) == before


def test_a_journal_file_of_another_user_is_not_undone(
        cleaned: tuple[Path, str, dict[str, str]]) -> None:
    root, cleanup_id, _ = cleaned
    path = journal_dir() / f"{cleanup_id}.jsonl"
    os.chown(path, NEIGHBOUR, NEIGHBOUR)
    listing = mlspace_cli("undo", "--list")
    assert_clean_run(listing)
    assert _listed(listing) == []
    assert f"{path} belongs to uid {NEIGHBOUR}, not to you" in listing.stderr
    named = mlspace_cli("undo", cleanup_id)
    assert_clean_run(named, 2)
    assert f"{path} belongs to uid {NEIGHBOUR}" in named.stderr


def test_a_journal_folder_others_can_write_is_not_read(
        cleaned: tuple[Path, str, dict[str, str]]) -> None:
    root, cleanup_id, before = cleaned
    journal_dir().chmod(0o777)
    listing = mlspace_cli("undo", "--list")
    assert_clean_run(listing)
    assert f"mlspace: the cleanup journal is not read: {journal_dir()} can be written by " \
           f"others (mode 0777)" in listing.stderr
    assert f"`chmod go-w {journal_dir()}`" in listing.stderr
    journal_dir().chmod(0o755)  # the fix it names
    assert_clean_run(mlspace_cli("undo", cleanup_id))
    assert tree_digest(root) == before


def test_a_cleanup_id_naming_a_file_elsewhere_is_no_cleanup(tmp_path: Path) -> None:
    elsewhere = tmp_path / "x.jsonl"
    elsewhere.write_text(json.dumps({"id": "x", "created": 1.0, "items": []}) + "\n")
    journal_dir().mkdir(parents=True)
    result = mlspace_cli("undo", os.path.relpath(tmp_path / "x", journal_dir()))
    assert_clean_run(result, 2)
    assert "no cleanup" in result.stderr


# ------------------------------------------------------------------------------ history
def test_a_fifo_as_the_history_index_hangs_neither_history_nor_diff(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    assert_clean_run(mlspace_cli("scan", str(root), "--save"))
    index = history_dir() / "index.json"
    index.unlink()
    os.mkfifo(index)
    os.mkfifo(history_dir() / "20990101-000000-ffff.parquet")
    listing = mlspace_cli("history", timeout=QUICK)
    assert_clean_run(listing)
    assert len(listing.stdout.splitlines()) == 2  # the header and the scan saved
    assert f"{history_dir()}/20990101-000000-ffff.parquet: is a FIFO" in listing.stderr
    assert_clean_run(mlspace_cli("diff", str(root), str(root), timeout=QUICK))
    assert index.is_file()  # rebuilt from the scans' footers


def test_a_history_folder_others_can_write_is_neither_read_nor_written(tmp_path: Path
                                                                      ) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    assert_clean_run(mlspace_cli("scan", str(root), "--save"))
    history_dir().chmod(0o777)
    listing = mlspace_cli("history")
    assert_clean_run(listing)
    assert "No saved scans" in listing.stdout
    assert f"the saved scans' history is not read: {history_dir()} can be written by" in \
        listing.stderr
    saved = mlspace_cli("scan", str(root), "--save")
    assert_clean_run(saved, 1)
    assert "the scan was not saved: the saved scans' history is not used" in saved.stderr
    assert len(list(history_dir().glob("*.parquet"))) == 1


# -------------------------------------------------------------------------- policy runs
def _policy_run(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    hf_run(root)
    policy = tmp_path / "policy.toml"
    policy.write_text('version = 1\n[[rule]]\nfolders = ["*"]\n')
    assert_clean_run(mlspace_cli("apply-policy", str(root), "--policy", str(policy), "--yes"))


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link"])
def test_a_fifo_or_dev_zero_as_the_policy_run_log(tmp_path: Path, kind: str) -> None:
    """`policy runs` hung on a FIFO and died of a MemoryError on a link to /dev/zero."""
    log = policy_runs_file()
    log.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(log)
    else:
        log.symlink_to("/dev/zero")
    result = mlspace_cli("policy", "runs", timeout=QUICK)
    assert_clean_run(result)
    assert result.stdout == ""
    assert f"mlspace: the policy-run log is not read: {log}: is " in result.stderr


def test_damaged_lines_of_the_policy_run_log_are_counted(tmp_path: Path) -> None:
    _policy_run(tmp_path)
    with policy_runs_file().open("a") as f:
        f.write('{"time": "soon"}\n["a list"]\n{"time": 1, "roots": "/"}\n{"time": 2, \n')
    result = mlspace_cli("policy", "runs")
    assert_clean_run(result)
    assert len(result.stdout.splitlines()) == 1
    assert f"skipped 3 lines of {policy_runs_file()} that are no policy run" in result.stderr
