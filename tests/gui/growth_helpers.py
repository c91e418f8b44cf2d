"""A workspace with history for the Growth tab's tests: scanned, a run added, scanned again,
and the first scan clicked in the Growth tab."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from gui_helpers import click_in_plot, show_tab
from pytestqt.qtbot import QtBot

from mlspace.demo import MARKER, generate
from mlspace.index import history
from mlspace.ui.main_window import MainWindow

WAIT_MS = 30_000
RUN = "outputs/new-run-lr1e-4"


def kept_workspace(folder: Path) -> Path:
    """The demo's workspace, but not marked as the demo: the app keeps its scans."""
    root = generate(folder)
    (root / MARKER).unlink()
    return root


def new_window(qtbot: QtBot, size: tuple[int, int] = (1280, 820)) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    return window


def scan_in(window: MainWindow, qtbot: QtBot, *paths: Path) -> None:
    with qtbot.waitSignal(window.scan_finished, timeout=WAIT_MS):
        window.open_paths([str(p) for p in paths])


def add_run(root: Path) -> int:
    """A new run with a real (not sparse) checkpoint, written an hour ago (so a cleanup
    does not take it for a running job's); returns its size on disk."""
    checkpoint = root / RUN / "checkpoint-500"
    checkpoint.mkdir(parents=True)
    (checkpoint / "model.safetensors").write_bytes(os.urandom(3 << 20))
    (checkpoint / "trainer_state.json").write_text('{"global_step": 500}')
    hour_ago = time.time() - 3600
    paths = [checkpoint / "model.safetensors", checkpoint / "trainer_state.json", checkpoint,
             root / RUN]
    for path in paths:
        os.utime(path, (hour_ago, hour_ago))
    return sum(os.lstat(p).st_blocks * 512 for p in paths)


@contextlib.contextmanager
def looks_apart() -> Iterator[None]:
    """Scans finished meanwhile count as separate looks at the folders, as if hours apart
    (the app keeps one scan per look: mlspace.index.history)."""
    before = history.SAME_LOOK_SECONDS
    history.SAME_LOOK_SECONDS = 0
    try:
        yield
    finally:
        history.SAME_LOOK_SECONDS = before


def scan_grow_scan(window: MainWindow, qtbot: QtBot, root: Path) -> int:
    """Scan (kept in the history), add a run, scan again (F5) as another look at the folder,
    so both are kept; returns the run's size."""
    scan_in(window, qtbot, root)
    time.sleep(1.1)  # history ids and the chart's time axis count seconds
    run_size = add_run(root)
    with looks_apart(), qtbot.waitSignal(window.scan_finished, timeout=WAIT_MS):
        window.rescan_action.trigger()
    return run_size


def compare_with_first_scan(window: MainWindow, qtbot: QtBot, scans: int) -> None:
    """Open the Growth tab, wait for the saved scans, click the first one."""
    growth = window.growth
    show_tab(window, growth)
    qtbot.waitUntil(lambda: len(growth.points) == scans, timeout=WAIT_MS)
    qtbot.wait(50)  # laid out with the points' ranges
    with qtbot.waitSignal(window.ws.compare_changed, timeout=WAIT_MS):
        click_in_plot(qtbot, growth.plot, *growth.point_at(0))
    assert window.ws.compared is not None and window.ws.compared.id == growth.points[0].id
