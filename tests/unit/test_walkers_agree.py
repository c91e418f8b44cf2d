"""The native walker and the Python walker give the same snapshot of the same tree.

Trees are generated (hypothesis) with what real disks and hostile users hold: hard links
within and across folders, sparse files (one of 5 GiB apparent), names that are not UTF-8 or
hold newlines, spaces and backslashes, 255-byte names, nests deeper than PATH_MAX and one
deeper than the walkers' bound, symlinks (dangling, to folders), FIFOs, other owners, times
before 1970 and after 2106 (so the seconds column widens), folders that cannot be listed or
entered, and files and folders that vanish while the walk is under way.

Each tree is scanned by a child process running as nobody (as root every permission check
passes), once with each walker, and their snapshots are compared in full (``canonical``:
every entry's columns, every folder's totals and children in order, errors, widths).

Vanishing is made exact, not left to timing: both walkers ask the exclude matcher about each
name between listing a folder and stat-ing its entries, so a matcher that moves other entries
out of the tree when it meets a chosen name makes them vanish at the same point of both walks
(one worker each, so both walk depth first in the same order); they are put back, with
their folder's times, before the other walker runs. Only entries the two walks reach in the
same order are chosen: in other folders, or later in the same folder's listing, and no
folder whose parent the trigger's folder lists (its move changes that parent's link count,
which the walkers stat at different points around the matcher).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from walkers import differences

from mlspace.scan.native import native_problem

pytestmark = pytest.mark.skipif(native_problem() is not None,
                                reason=native_problem() or "")

NOBODY = 65534
EXAMPLES = int(os.environ.get("MLSPACE_WALKER_EXAMPLES", "20"))
TESTS = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, os, pickle, sys
from mlspace.scan import ScanOptions, scan, scanner
from mlspace.scan import exclude as exclude_module
from walkers import canonical

spec = json.loads(sys.argv[1])
root, away, workers = spec["root"], spec["away"], spec["workers"]
trigger = os.fsdecode(bytes.fromhex(spec["trigger"])) if spec["trigger"] else None
victims = [bytes.fromhex(v) for v in spec["victims"]]
os.setegid(65534)
os.seteuid(65534)


def as_root(action):
    os.seteuid(0)
    try:
        action()
    finally:
        os.seteuid(65534)


def scan_with(walker):
    moved = []

    def move_victims():
        for i, victim in enumerate(victims):
            parent = os.path.dirname(victim)
            before = os.stat(parent)
            target = os.path.join(os.fsencode(away), b"%d" % i)
            os.rename(victim, target)
            os.utime(parent, ns=(before.st_atime_ns, before.st_mtime_ns))
            moved.append((victim, target, parent, before))

    def matcher(prefix, name):
        if trigger is not None and not moved and prefix + name == trigger:
            as_root(move_victims)
        return False

    exclude_module.compile_excludes = lambda patterns: matcher
    scanner.compile_excludes = exclude_module.compile_excludes
    os.environ["MLSPACE_WALKER"] = walker
    try:
        # one worker: one thread, so both walk depth first in the same order
        snap = scan([root], ScanOptions(workers=workers, threads=workers))
    finally:
        def put_back():
            for victim, target, parent, before in reversed(moved):
                os.rename(target, victim)
                os.utime(parent, ns=(before.st_atime_ns, before.st_mtime_ns))
        as_root(put_back)
    assert snap.walker == walker, snap.walker
    return canonical(snap), bool(moved)


native, native_moved = scan_with("native")
python, python_moved = scan_with("python")
sys.stdout.buffer.write(pickle.dumps({"native": native, "python": python,
                                      "moved": (native_moved, python_moved)}))
"""

# ------------------------------------------------------------------------ tree generation

_NAME_BYTES = st.sampled_from([b"a", b"b", b"z", b"0", b"-", b"_", b" ", b"\n", b"\t", b"\\",
                               b"\xff", b"\xe9", b"\xc3\xa9", b"\x80", b"*", b"?", b"[", b"~"])
_NAMES = st.one_of(
    st.lists(_NAME_BYTES, min_size=1, max_size=12).map(b"".join),
    st.sampled_from([b"x" * 255, b"\xff" * 255, b"checkpoint-1", b".hidden", b"..."]),
).filter(lambda n: n not in (b".", b".."))


def _make(base: bytes, draw: Any) -> dict[str, Any]:
    """Build a tree under ``base`` from hypothesis draws; returns what the vanishing step
    may choose from."""
    dirs = [base]
    files: list[bytes] = []
    restricted: list[bytes] = []  # not listable or not enterable as nobody
    for _ in range(draw(st.integers(1, 14))):
        op = draw(st.sampled_from(["dir", "dir", "file", "file", "file", "link", "symlink",
                                   "fifo", "perm", "sparse", "times", "owner", "deep"]))
        parent = draw(st.sampled_from(dirs))
        path = parent + b"/" + draw(_NAMES)
        if os.path.lexists(path):
            continue
        if op == "dir":
            os.mkdir(path)
            dirs.append(path)
        elif op == "file":
            with open(path, "wb") as f:
                f.write(b"x" * draw(st.sampled_from([0, 1, 100, 4096, 10_000])))
            files.append(path)
        elif op == "link" and files:
            os.link(draw(st.sampled_from(files)), path)
        elif op == "symlink":
            os.symlink(draw(st.sampled_from([b"nowhere", b"..", b"/", b"."])), path)
        elif op == "fifo":
            os.mkfifo(path)
        elif op == "sparse":
            with open(path, "wb") as f:
                f.truncate(draw(st.sampled_from([1 << 20, 5 << 30])))
                f.write(b"y")
            files.append(path)
        elif op == "times" and files:
            target = draw(st.sampled_from(files))
            seconds = draw(st.sampled_from([-1_000_000_000, 0, 5_000_000_000]))
            os.utime(target, ns=(0, seconds * 1_000_000_000 + 999_999_999))
        elif op == "owner" and files:
            os.lchown(draw(st.sampled_from(files)), 1234, 1234)
        elif op == "perm" and parent != base:
            os.chmod(parent, draw(st.sampled_from([0o000, 0o444, 0o111])))
            restricted.append(parent)
        elif op == "deep":
            _nest(path, draw(st.sampled_from([(40, 1), (25, 200), (135, 250)])))
    return {"dirs": dirs, "restricted": restricted}


def _nest(path: bytes, shape: tuple[int, int]) -> None:
    """A chain of ``depth`` folders of ``width``-byte names (made through folder
    descriptors: past PATH_MAX a path cannot be)."""
    depth, width = shape
    os.mkdir(path)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(b"n" * width, dir_fd=fd)
            nxt = os.open(b"n" * width, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        os.close(os.open(b"bottom", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def _reachable(base: bytes, restricted: list[bytes]) -> list[bytes]:
    """Every path below ``base`` that both walks reach (not inside a restricted folder, not
    in a nest past PATH_MAX: os.walk below would need longer paths than the kernel takes)."""
    out = []
    for folder, dirnames, filenames in os.walk(base):
        if any(folder == r or folder.startswith(r + b"/") for r in restricted):
            dirnames[:] = []
            continue
        if len(folder) > 3000:
            dirnames[:] = []
        out += [folder + b"/" + n for n in dirnames + filenames]
    return out


def _vanishing(draw: Any, base: bytes, restricted: list[bytes]) -> tuple[bytes, list[bytes]]:
    """A trigger name and the entries that vanish when the walk meets it."""
    paths = [p for p in _reachable(base, restricted)
             if not any(p == r for r in restricted)]
    if len(paths) < 2:
        return b"", []
    trigger = draw(st.sampled_from(paths))
    folder = os.path.dirname(trigger)
    listing = os.listdir(folder)
    later_here = {folder + b"/" + n for n in listing[listing.index(os.path.basename(trigger))
                                                     + 1:]}
    # Moving a folder changes its parent's link count, which the trigger's folder listing
    # stats: the walkers stat a listing's entries at different points around the matcher
    # (both right), so such a folder is no victim.
    candidates = [p for p in paths if p != trigger and not trigger.startswith(p + b"/")
                  and (os.path.dirname(p) != folder or p in later_here)
                  and not (os.path.isdir(p) and not os.path.islink(p)
                           and os.path.dirname(os.path.dirname(p)) == folder)]
    victims = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True)) \
        if candidates else []
    # one victim inside another would be moved with it
    victims = [v for v in victims if not any(v != o and v.startswith(o + b"/")
                                             for o in victims)]
    return trigger, victims


def _scan_both(root: bytes, away: bytes, workers: int, trigger: bytes,
               victims: list[bytes]) -> dict[str, Any]:
    spec = {"root": os.fsdecode(root), "away": os.fsdecode(away), "workers": workers,
            "trigger": trigger.hex(), "victims": [v.hex() for v in victims]}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS),
                                                        os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(spec)], env=env,
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    return pickle.loads(out.stdout)  # noqa: S301 (our own child's output)


@pytest.fixture
def playground() -> Any:
    """A folder nobody can reach (the pytest temp folders are root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="mlspace-walkers-"))
    base.chmod(0o755)
    yield base
    subprocess.run(["chmod", "-R", "u+rwx", str(base)], check=False)
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="scans as another user: needs root")
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), vanish=st.booleans(), workers=st.sampled_from([1, 2]))
def test_both_walkers_give_the_same_snapshot(playground: Path, data: st.DataObject,
                                             vanish: bool, workers: int) -> None:
    case = Path(tempfile.mkdtemp(dir=playground))
    case.chmod(0o755)
    root, away = os.fsencode(case / "root"), os.fsencode(case / "away")
    os.mkdir(root)
    os.mkdir(away, 0o755)
    made = _make(root, data.draw)
    trigger, victims = _vanishing(data.draw, root, made["restricted"]) if vanish else (b"", [])
    result = _scan_both(root, away, 1 if victims else workers, trigger, victims)
    assert result["moved"][0] == result["moved"][1], "the vanishing hit one walk only"
    diff = differences(result["native"], result["python"])
    assert not diff, "\n".join(diff)
    _note_what_was_met(result["native"])
    if victims:
        assert result["moved"] == (True, True)
        event("entries vanished mid-walk")


def _note_what_was_met(snap: dict[str, Any]) -> None:
    """Hypothesis events (pytest --hypothesis-show-statistics): what the trees held."""
    for _, message in snap["errors"]:
        event(f"error: {message}")
    if snap["widths"][1] != "uint32":
        event("seconds widened")
    if any(not e[7] for e in snap["entries"].values()):
        event("a hard link counted once")
    if any(b"\n" in p or b"\xff" in p for p in snap["entries"]):
        event("newline or non-UTF-8 name")


def test_a_folder_that_vanishes_is_an_error_in_both(playground: Path) -> None:
    """The plainest vanishing, spelled out: a folder listed, then gone before it is opened."""
    root = os.fsencode(playground / "root")
    for name in (b"a", b"b"):
        os.makedirs(root + b"/" + name + b"/inner")
        Path(os.fsdecode(root + b"/" + name + b"/inner/f")).write_bytes(b"1" * 10)
    os.mkdir(os.fsencode(playground / "away"))
    order = os.listdir(root)
    first, second = order[0], order[1]
    # met while listing the first folder: the second is recorded by then, not yet opened
    result = _scan_both(root, os.fsencode(playground / "away"), 1,
                        root + b"/" + first + b"/inner", [root + b"/" + second])
    assert result["moved"] == (True, True)
    for walker in ("native", "python"):
        assert result[walker]["errors"] == [
            (os.fsdecode(root + b"/" + second), "vanished during the scan")]
        assert os.fsencode(root + b"/" + second) in result[walker]["entries"]
    assert not differences(result["native"], result["python"])


def test_the_seconds_column_widens_the_same_way(playground: Path) -> None:
    root = playground / "root"
    root.mkdir()
    (root / "old").write_bytes(b"1")
    os.utime(root / "old", (0, -86_400))
    result = _scan_both(os.fsencode(root), os.fsencode(playground), 2, b"", [])
    # widths of blocks, mtime, apparent, ino, uid: only the seconds needed 64 bits
    assert result["native"]["widths"] == ("uint32", "int64", "uint32", "uint32", "uint16")
    assert result["native"]["entries"][os.fsencode(root / "old")][3] == -86_400
    assert not differences(result["native"], result["python"])


def test_the_sizes_column_widens_the_same_way(playground: Path) -> None:
    """A sparse file of 5 GiB needs 64-bit apparent sizes, in both walkers alike."""
    root = playground / "root"
    root.mkdir()
    with open(root / "sparse", "wb") as f:
        f.truncate(5 << 30)
    (root / "small").write_bytes(b"1")
    result = _scan_both(os.fsencode(root), os.fsencode(playground), 2, b"", [])
    assert result["native"]["widths"][2] == "int64"
    assert result["native"]["entries"][os.fsencode(root / "sparse")][1] == 5 << 30
    assert not differences(result["native"], result["python"])


def test_the_mode_bits_of_what_is_made_are_as_meant(playground: Path) -> None:
    """Guards the generator: a restricted folder really refuses nobody (else the property
    test would not test permission errors at all)."""
    folder = playground / "closed"
    folder.mkdir()
    folder.chmod(0o000)
    out = subprocess.run([sys.executable, "-c", f"import os; os.seteuid({NOBODY}); "
                          f"os.listdir({str(folder)!r})"], capture_output=True, text=True)
    assert "PermissionError" in out.stderr
    assert stat.S_IMODE(folder.stat().st_mode) == 0
