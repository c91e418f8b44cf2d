"""A cluster scan survives a worker dying mid-scan, and cancelling (or Ctrl+C) stops every
task: no worker is left walking."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import slow_storage
from cluster_helpers import assert_same_scan, group_alive, make_wide_tree, wait_for_file

from mlspace.scan import ScanOptions, ScanProgress, scan, scanner
from mlspace.scan.cluster import DaskSharer
from mlspace.scan.cluster_task import running_walks, walks_not_done

if TYPE_CHECKING:
    from distributed import Client


@pytest.fixture
def slow_workers(client: Client) -> Iterator[Client]:
    """Workers whose every stat takes 1 ms, so tasks are still walking when a test acts."""
    client.run(slow_storage.install, 0.0, 0.001)
    yield client
    client.run(slow_storage.uninstall)


@pytest.mark.parametrize("through_parts", [False, True], ids=["in-memory", "parts"])
def test_killing_a_worker_mid_scan_still_gives_the_whole_result(
        tmp_path: Path, slow_workers: Client, monkeypatch: pytest.MonkeyPatch,
        through_parts: bool) -> None:
    """Dask runs the dead worker's tasks again; with parts, a part the dead worker wrote but
    never reported is not merged (a rerun writes its own), so nothing counts twice."""
    root = make_wide_tree(tmp_path / "ws")
    parts = tmp_path / "parts"
    parts.mkdir()
    monkeypatch.setattr(scanner, "WORKER_BUDGET", 60)
    monkeypatch.setattr(scanner, "PROGRESS_INTERVAL", 0.0)
    victim_pid = next(iter(slow_workers.run(os.getpid).values()))
    seen_after_kill: list[int] = []

    def kill_once_a_fifth_is_done(p: ScanProgress) -> None:
        if seen_after_kill:
            seen_after_kill.append(p.files)
        elif p.files >= 400:
            os.kill(victim_pid, signal.SIGKILL)
            seen_after_kill.append(p.files)

    snap = scan([root], progress=kill_once_a_fifth_is_done,
                sharer=DaskSharer(slow_workers, str(parts) if through_parts else ""))
    assert seen_after_kill and seen_after_kill[-1] > seen_after_kill[0]  # it went on after
    assert_same_scan(scan([root], ScanOptions(workers=1)), snap)
    assert snap.errors == ()
    slow_workers.wait_for_workers(2, timeout=60)  # the nanny starts a new one
    assert victim_pid not in slow_workers.run(os.getpid).values()


def test_cancelling_stops_the_tasks_and_leaves_no_worker_busy(
        tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks of about 2.5 s each (500 stats of 5 ms); a cancel 0.5 s in stops them within
    the cancel check: when the scan returns, no worker is walking any more (they would be
    for 2 s longer by themselves), and most of the tree was never counted."""
    root = make_wide_tree(tmp_path / "ws")
    client.run(slow_storage.install, 0.0, 0.005)
    try:
        start = time.monotonic()
        snap = scan([root], cancelled=lambda: time.monotonic() - start > 0.5,
                    sharer=DaskSharer(client))
        busy = client.run(running_walks)  # a task left walking would be counted here
        processing = client.processing()
    finally:
        client.run(slow_storage.uninstall)
    assert snap.cancelled
    assert snap.grand_totals().files < 2000
    assert sum(busy.values()) == 0
    assert not any(processing.values())


def test_a_task_a_worker_holds_counts_until_it_ends(tmp_path: Path, client: Client) -> None:
    """Closing waits for the tasks the workers hold, read from the workers' own task states:
    a walk not yet counted as running (queued, or just starting) is still waited for."""
    go = tmp_path / "go"
    future = client.submit(wait_for_file, str(go), pure=False)

    def held() -> int:
        return sum(client.run(walks_not_done, "no-walk-here", [future.key]).values())

    deadline = time.monotonic() + 30
    while not held() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert held() == 1 and running_walks() == 0
    go.touch()
    assert future.result(timeout=30)
    assert held() == 0


_CTRL_C = r"""
import sys, slow_storage
from mlspace.scan import scan
from mlspace.scan.cluster import DaskSharer, connect

if __name__ == "__main__":
    try:
        with connect("local:2") as client:
            client.run(slow_storage.install, 0.0, 0.005)
            scan([sys.argv[1]], progress=lambda p: print("walking", flush=True),
                 sharer=DaskSharer(client))
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
"""


def test_ctrl_c_cancels_the_tasks_and_exits_130(tmp_path: Path) -> None:
    """As from a terminal: SIGINT goes to the whole process group, the cluster's workers
    included. The scan stops, the LocalCluster closes, and nothing is left running."""
    root = make_wide_tree(tmp_path / "ws")
    here = Path(__file__).resolve()
    path = os.pathsep.join([str(here.parent), str(here.parents[1]),
                            str(here.parents[2] / "benchmarks"), os.environ.get("PYTHONPATH", "")])
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C, str(root)], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": path}, start_new_session=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "walking\n"
        time.sleep(0.5)
        os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130, err
    deadline = time.monotonic() + 10
    while group_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_alive(child.pid)

