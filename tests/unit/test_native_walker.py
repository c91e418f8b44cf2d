"""What only the native walker has: threads to stop, a stricter open, a choice of walker.

Both walkers ask the exclude matcher about each name between listing a folder and stat-ing
its entries; these tests put a matcher of their own there to act at a known point of the
walk (cancel, swap a folder), as test_walkers_agree does.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from trees import write

from mlspace.scan import ScanOptions, native, scan
from mlspace.scan import exclude as exclude_module
from mlspace.scan.native import ENV, chosen_walker, native_problem, walker_description

pytestmark = pytest.mark.skipif(native_problem() is not None, reason=native_problem() or "")


@pytest.fixture(autouse=True)
def native_walker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "native")


def _matcher(monkeypatch: pytest.MonkeyPatch, matcher: Callable[[str, str], bool]) -> None:
    monkeypatch.setattr(exclude_module, "compile_excludes", lambda patterns: matcher)


def _tree(root: Path, folders: int = 30, files: int = 20) -> Path:
    for d in range(folders):
        for f in range(files):
            write(root / f"d{d:02d}" / f"f{f:02d}", 10)
    return root


def test_a_cancel_stops_the_threads_and_keeps_what_was_walked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "ws")
    flag = threading.Event()
    met = threading.Event()

    def matcher(prefix: str, name: str) -> bool:
        if prefix.endswith("/d00/") or prefix.endswith("/d01/"):
            flag.set()  # the scanning thread sees it at its next look ...
            met.wait(2)  # ... which this waits for, walking no further meanwhile
        return False

    def is_cancelled() -> bool:
        if flag.is_set():
            met.set()
        return flag.is_set()

    _matcher(monkeypatch, matcher)
    snap = scan([root], ScanOptions(workers=2, threads=2), cancelled=is_cancelled)
    assert snap.cancelled and snap.walker == "native"
    assert len(snap) < 1 + 30 + 30 * 20  # it stopped early
    totals = snap.grand_totals()
    assert totals.files + totals.dirs == len(snap)  # what it holds adds up


def test_a_folder_swapped_for_a_link_is_not_followed(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Between its parent's listing and its own, ``b`` becomes a link to a folder outside
    the scan: the native walker opens it with O_NOFOLLOW and says it was replaced."""
    root = tmp_path / "ws"
    write(root / "a" / "x", 10)
    write(root / "b" / "y", 10)
    write(tmp_path / "elsewhere" / "secret", 10)
    first = os.listdir(root)[0]
    other = "b" if first == "a" else "a"
    swapped = threading.Event()

    def matcher(prefix: str, name: str) -> bool:
        if prefix == f"{root}/{first}/" and not swapped.is_set():
            (root / other).rename(tmp_path / "moved")
            (root / other).symlink_to(tmp_path / "elsewhere")
            swapped.set()
        return False

    _matcher(monkeypatch, matcher)
    snap = scan([root], ScanOptions(workers=1, threads=1))  # listing the first folder first
    assert swapped.is_set()
    assert [(e.path, e.message) for e in snap.errors] == [
        (str(root / other), "replaced during the scan")]
    assert not any(snap.name(e) == "secret" for e in range(len(snap)))


def test_the_walker_is_chosen_by_the_environment(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "f", 1)
    assert chosen_walker() == "native"
    assert scan([tmp_path]).walker == "native"
    assert "native" in walker_description()
    monkeypatch.setenv(ENV, "python")
    assert chosen_walker() == "python"
    assert scan([tmp_path]).walker == "python"
    assert walker_description() == f"Python walker ({ENV}=python)"


def test_without_the_extension_the_python_walker_scans(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "f", 1)
    monkeypatch.delenv(ENV)
    monkeypatch.setattr(native, "native_problem", lambda: "the native walker is not built "
                        "(no module named mlspace.scan._walker)")
    assert scan([tmp_path]).walker == "python"
    assert walker_description().startswith("Python walker (the native walker is not built")
    monkeypatch.setenv(ENV, "native")
    with pytest.raises(RuntimeError, match="MLSPACE_WALKER=native, but"):
        chosen_walker()


def test_columns_are_read_only_and_outlive_the_walk(tmp_path: Path) -> None:
    _tree(tmp_path / "ws", folders=3, files=3)
    snap = scan([tmp_path / "ws"])
    with pytest.raises(ValueError):
        snap.kind[0] = 1
    with pytest.raises(TypeError):
        snap.name_buffer[0] = 0  # type: ignore[index]
    assert sorted(snap.names_of(snap.children(snap.root_entries[0]))) == ["d00", "d01", "d02"]


def test_misuse_of_the_extension_is_an_error_not_a_crash() -> None:
    from mlspace.scan import _walker

    with pytest.raises(ValueError):
        _walker.Walk(0)
    walk = _walker.Walk(1)
    walk.start()
    with pytest.raises(RuntimeError):
        walk.start()
    with pytest.raises(RuntimeError):
        walk.add_root(b"/", 4, 0, 0, 0, 1, 1, 0, True, 1)
    assert walk.wait(5.0)
    assert walk.finish()["entries"] == 0
    with pytest.raises(ValueError):
        walk.since(10, 0, 0)


@pytest.mark.parametrize("behind_window", [False, True])
def test_behind_a_window_the_threads_give_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              behind_window: bool) -> None:
    """The app scans behind its window: the walker's threads run at nice 10 (Linux keeps a
    niceness per thread; the matcher runs in them), and the command line's at the
    process's own."""
    write(tmp_path / "ws" / "f", 10)
    seen: list[int] = []

    def matcher(prefix: str, name: str) -> bool:
        seen.append(os.getpriority(os.PRIO_PROCESS, 0))  # 0: the calling thread
        return False

    _matcher(monkeypatch, matcher)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    scan([tmp_path / "ws"], ScanOptions(behind_window=behind_window))
    assert seen == [min(19, own + 10) if behind_window else own]
    assert os.getpriority(os.PRIO_PROCESS, 0) == own  # the scanning thread is untouched
