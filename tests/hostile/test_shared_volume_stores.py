"""A shared volume (a lab's scratch: world-writable and sticky), where a neighbour writes
whatever it likes into the workspace and into every store of the user's it can reach.
Nothing it writes changes what happens to the user's files: the nightly policy run moves
what the user's own policy says, undo puts back only what the user's cleanups moved, and
the stores the neighbour could write are refused with the fix until the user closes them.

The user is uid YOU and the neighbour uid NEIGHBOUR, each a forked child of the test (the
user's commands run in-process there, `mlspace.cli.main`). Needs root to mount a tmpfs and
switch uid."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import pkgutil
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from hostile_helpers import NEIGHBOUR, as_user
from workspaces import hf_run

YOU = 65534
RUN = "outputs/run"
OWN_POLICY = ('version = 1\n[[rule]]\nfolders = ["*"]\nkeep_best = 1\nkeep_latest = 2\n'
              'allow = ["safe"]\n')
PLANTED_POLICY = ('version = 1\n[[rule]]\nfolders = ["*"]\nkeep_best = 0\nkeep_latest = 1\n'
                  'allow = ["safe", "review", "risky"]\n')

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: tmpfs, other uids")


def _preload() -> None:
    """Import what the commands import as they run, while still root: the forked users
    cannot read this interpreter's library (it lives in root's home here)."""
    import mlspace

    for module in pkgutil.walk_packages(mlspace.__path__, "mlspace."):
        if not module.name.startswith(("mlspace.ui", "mlspace.__main__")):
            with contextlib.suppress(ImportError):
                importlib.import_module(module.name)
    for name in _LIBRARY:
        importlib.import_module(name)


#: Standard modules mlspace imports inside functions.
_LIBRARY = ("csv", "gzip", "html", "socket", "getpass", "platform", "pwd", "shlex",
            "tarfile", "zipfile", "uuid", "hashlib", "fcntl", "tempfile")


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A world-writable, sticky tmpfs (its own filesystem, like a cluster's scratch) in a
    folder every uid can pass through."""
    _preload()
    base = Path(tempfile.mkdtemp(prefix="mlspace-shared-"))
    base.chmod(0o755)
    where = base / "scratch"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m,mode=1777", "tmpfs",
                           str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)
    shutil.rmtree(base, ignore_errors=True)


class You:
    """The user: a home of their own, and commands run as them."""

    def __init__(self, home: Path, umask: int = 0o022) -> None:
        self.home = home
        self.umask = umask
        self.env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local/share"),
                    "XDG_CACHE_HOME": str(home / ".cache")}

    @property
    def config(self) -> Path:
        return home_path(self.env["XDG_CONFIG_HOME"])

    @property
    def data(self) -> Path:
        return home_path(self.env["XDG_DATA_HOME"])

    def run(self, *args: str) -> dict:
        """``mlspace ARGS`` as the user: exit code, stdout and stderr."""
        env, umask = self.env, self.umask

        def work() -> dict:
            from mlspace.cli import main

            os.environ.update(env)
            os.umask(umask)
            out, err = (io.TextIOWrapper(io.BytesIO(), "utf-8") for _ in range(2))
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as stop:
                    code = int(stop.code or 0)
            out.flush()
            err.flush()
            return {"code": code, "out": out.buffer.getvalue().decode(),  # type: ignore[attr-defined]
                    "err": err.buffer.getvalue().decode()}  # type: ignore[attr-defined]
        result = as_user(YOU, work)
        assert "Traceback" not in result["err"], result["err"]
        return result

    def write(self, path: Path, text: str) -> None:
        def work() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        as_user(YOU, work)


def home_path(value: str) -> Path:
    return Path(value) / "mlspace"


def _tree_of_you(root: Path) -> None:
    os.chown(root, YOU, YOU)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), YOU, YOU, follow_symlinks=False)


@pytest.fixture
def lab(scratch: Path) -> tuple[You, Path]:
    """The user's home (0755, on its own filesystem) and the shared workspace scratch/team
    (1777) holding the user's run, a month old."""
    home = scratch.parent / "home-you"
    home.mkdir()
    os.chown(home, YOU, YOU)
    you = You(home)
    workspace = scratch / "team"
    workspace.mkdir()
    hf_run(workspace)
    _tree_of_you(workspace)
    workspace.chmod(0o1777)
    you.write(you.config / "policy.toml", OWN_POLICY)
    return you, workspace


def _neighbour(*writes: Callable[[], object]) -> list[str]:
    """The neighbour tries each write; returns what was refused (by the system)."""
    def work() -> list[str]:
        refused = []
        for write in writes:
            try:
                write()
            except OSError as err:
                refused.append(f"{getattr(write, '__name__', write)}: {err.strerror}")
        return refused
    return as_user(NEIGHBOUR, work)


def _in_place(path: Path, make: Callable[[Path], object]) -> Callable[[], None]:
    """A write of the neighbour's: ``make`` it beside ``path``, then rename it over
    whatever is there (as a folder that others can write lets anyone do, even over the
    user's own file)."""
    def write() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.with_name(f".{path.name}.{NEIGHBOUR}")
        make(staged)
        os.replace(staged, path)
    write.__name__ = str(path)
    return write


def _put(path: Path, text: str) -> Callable[[], None]:
    return _in_place(path, lambda staged: staged.write_text(text))


def _fifo(path: Path) -> Callable[[], None]:
    return _in_place(path, os.mkfifo)


def _planted_journal(you: You, workspace: Path, decoy: Path) -> str:
    """A cleanup the neighbour makes up: it "moved" the user's latest checkpoint to a
    trash file that is the neighbour's own (undo would put the decoy in its place)."""
    target = str(workspace / RUN / "checkpoint-60")
    header = {"id": "20990101-000000-bad000", "created": 4.0e9, "title": "made up",
              "roots": [str(workspace)], "kind": "clean", "meta": {},
              "items": [{"path": target, "is_dir": True, "disk_usage": 1, "inode": 0}]}
    event = {"event": "trashed", "path": target, "trash_file": str(decoy), "info_file": ""}
    return json.dumps(header) + "\n" + json.dumps(event) + "\n"


def _neighbours_writes(you: You, workspace: Path) -> list[Callable[[], None]]:
    """Everything the neighbour tries: the workspace, and each of the user's stores."""
    decoy = workspace / "decoy" / "checkpoint-60"
    journal = you.data / "journal"
    return [
        _put(workspace / "mlspace-policy.toml", PLANTED_POLICY),
        _put(decoy / "model.safetensors", "not your weights"),
        _fifo(workspace / "their-run" / "trainer_state.json"),
        _put(you.config / "config.toml", f'archive_root = "{workspace / "decoy"}"\n'),
        _put(you.config / "rules.toml", '[[dir]]\nid = "x"\nnames = ["checkpoint-*"]\n'
                                        'category = "cache"\n'),
        _put(you.config / "policy.toml", PLANTED_POLICY),
        _put(journal / "20990101-000000-bad000.jsonl", _planted_journal(you, workspace,
                                                                        decoy)),
        _fifo(journal / "20990101-000000-fifo00.jsonl"),
        _put(you.data / "policy-runs.jsonl", json.dumps({"time": 4.0e9, "freed": 10**15,
                                                         "roots": ["/"]}) + "\n"),
        _fifo(you.data / "scans" / "index.json"),
    ]


def _chmod_folders(you: You, mode: int) -> None:
    """``chmod`` every folder of the user's home (``-R 777`` by mistake, and back)."""
    def work() -> None:
        for folder in [you.home, *(p for p in you.home.rglob("*") if p.is_dir()
                                   and not p.is_symlink())]:
            folder.chmod(mode)
    as_user(YOU, work)


def _your_files(workspace: Path) -> dict[str, str]:
    return tree_digest(workspace / "outputs")


def test_nothing_the_neighbour_writes_changes_what_happens_to_your_files(
        lab: tuple[You, Path]) -> None:
    you, workspace = lab
    # The user has cleaned up before (so the journal and history exist), then undone it.
    assert you.run("scan", str(workspace), "--save", "-o", os.devnull)["code"] == 0
    before = _your_files(workspace)
    first = you.run("apply-policy", str(workspace), "--policy", str(you.config / "policy.toml"),
                    "--yes")
    assert first["code"] == 0, first["err"]
    assert you.run("undo")["code"] == 0
    assert _your_files(workspace) == before

    # 1. The stores are as mlspace made them: the neighbour gets into none of them.
    refused = _neighbours_writes(you, workspace)
    assert _neighbour(*refused) == [f"{w.__name__}: Permission denied" for w in refused[3:]]
    nightly = you.run("apply-policy", str(workspace), "--yes")  # docs/policies.md's cron line
    assert nightly["code"] == 0, nightly["err"]
    assert sorted(p.name for p in (workspace / RUN).iterdir()) == [
        "checkpoint-10", "checkpoint-50", "checkpoint-60"]  # what the user's policy keeps
    assert (workspace / RUN / "checkpoint-10" / "optimizer.pt").exists()
    assert f"passed over a policy: {workspace}/mlspace-policy.toml belongs to uid " \
           f"{NEIGHBOUR}" in nightly["err"]
    assert you.run("undo")["code"] == 0
    assert _your_files(workspace) == before

    # 2. The user opened their home's folders to everyone (a `chmod -R 777` by mistake):
    # the neighbour writes into all the stores; each is refused, with the fix, and nothing
    # moves.
    _chmod_folders(you, 0o777)
    assert _neighbour(*_neighbours_writes(you, workspace)[3:]) == []
    for args, words in ((["undo", "--list"], "the cleanup journal is not read"),
                        (["policy", "runs"], "the policy-run log is not read"),
                        (["history"], "the saved scans' history is not read"),
                        (["apply-policy", str(workspace), "--yes"], "not using the policy"),
                        (["plan", str(workspace)], "not using the settings file")):
        result = you.run(*args)
        assert words in result["err"] and "chmod go-w" in result["err"], (args, result)
        assert "made up" not in result["out"] and "1000.0 TiB" not in result["out"]
    assert you.run("undo", "20990101-000000-bad000")["code"] == 2
    assert _your_files(workspace) == before

    # 3. Closed again (what the messages said): the neighbour's files stay in them but are
    # left out as theirs; the user's own policy and cleanups work as before.
    _chmod_folders(you, 0o755)
    listing = you.run("undo", "--list")
    assert "20990101-000000-bad000.jsonl belongs to uid" in listing["err"]
    assert "made up" not in listing["out"]
    assert you.run("undo", "20990101-000000-bad000")["code"] == 2
    planted_policy = you.run("apply-policy", str(workspace), "--yes")
    assert planted_policy["code"] == 2  # their policy.toml in the user's config folder
    assert f"{you.config}/policy.toml belongs to uid {NEIGHBOUR}" in planted_policy["err"]
    assert _your_files(workspace) == before


def test_with_umask_002_mlspace_keeps_its_own_files_the_users_alone(
        lab: tuple[You, Path]) -> None:
    """umask 002 (to share project folders) and a primary group other users are in
    (nogroup here): the files mlspace makes for itself (journal, run log, history, a
    policy from `policy init`, settings) would be group-writable, and then refused by the
    ownership rule. They are made the user's alone, so everything keeps working."""
    you, workspace = lab
    you.umask = 0o002
    shutil.rmtree(you.config)  # `policy init` writes the policy below
    assert you.run("policy", "init")["code"] == 0
    before = _your_files(workspace)
    assert you.run("scan", str(workspace), "--save", "-o", os.devnull)["code"] == 0
    applied = you.run("apply-policy", str(workspace), "--yes")
    assert applied["code"] == 0, applied
    assert sorted(p.name for p in (workspace / RUN).iterdir()) == [
        "checkpoint-10", "checkpoint-50", "checkpoint-60"]
    for args in (["undo", "--list"], ["policy", "runs"], ["history"]):
        result = you.run(*args)
        assert result["code"] == 0 and result["err"] == "", (args, result)
        assert result["out"].strip(), args
    assert you.run("undo")["code"] == 0
    assert _your_files(workspace) == before
    made = [p for p in [*you.config.parent.rglob("*"), *you.data.parent.rglob("*")]
            if not p.is_symlink()]
    assert made and all(not p.stat().st_mode & 0o022 for p in made), [
        (str(p), oct(p.stat().st_mode)) for p in made if p.stat().st_mode & 0o022]
