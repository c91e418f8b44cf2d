"""The cluster module's pieces that need no cluster: addresses, device numbers that differ
between machines, and that nothing of Dask is imported unless asked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from trees import write

from mlspace.scan.chunk_file import read_chunk
from mlspace.scan.cluster import ClusterAddress, _DeviceMap, parse_address
from mlspace.scan.cluster_task import ClusterError, running_walks, walk_task
from mlspace.scan.walker import DirTask


@pytest.mark.parametrize(("text", "expected"), [
    ("local:2", ClusterAddress(local_workers=2)),
    (" local:16 ", ClusterAddress(local_workers=16)),
    ("tcp://scheduler:8786", ClusterAddress(scheduler="tcp://scheduler:8786")),
    ("tls://10.0.0.5:8786", ClusterAddress(scheduler="tls://10.0.0.5:8786")),
    ("node17:8786", ClusterAddress(scheduler="node17:8786")),
])
def test_addresses(text: str, expected: ClusterAddress) -> None:
    assert parse_address(text) == expected
    assert str(parse_address(text)) == text.strip()


@pytest.mark.parametrize("text", ["local:0", "local:", "local:two", "scheduler", "tcp://host",
                                  "tcp://:8786", "://host:1", "tc p://host:1"])
def test_bad_addresses_say_what_to_type(text: str) -> None:
    with pytest.raises(ValueError, match="local:"):
        parse_address(text)


def test_a_worker_walks_with_its_own_device_numbers_and_reports_the_clients(
        tmp_path: Path) -> None:
    """The same mount has another device number on another node: the worker must still
    enter the root's subfolders, and the chunk must come back in the client's numbers."""
    for i in range(3):
        write(tmp_path / "root" / f"sub{i}" / "deeper" / "f.bin", 100)
    here = os.stat(tmp_path / "root").st_dev
    client_dev = here + 1000  # what the client's machine calls this filesystem
    group = [DirTask(str(tmp_path / "root"), -1, client_dev)]
    walked = walk_task(group, 5, False, (), {client_dev: str(tmp_path / "root")}, "scan-x")
    assert walked.chunk.other_filesystems == []  # subfolders were entered, not skipped
    assert walked.devices == {here: client_dev}
    assert walked.chunk.pending  # the budget cut it short
    chunk = _DeviceMap().to_client(walked.chunk, walked.devices)
    rows = np.frombuffer(chunk.dirs, dtype=np.int64).reshape(-1, 4)
    assert set(rows[:, 3].tolist()) == {client_dev}
    assert {t.root_dev for t in chunk.pending} == {client_dev}


def test_a_device_unknown_to_the_task_is_asked_here(tmp_path: Path) -> None:
    """A mount crossed with cross_filesystems: the client stats a folder the task listed."""
    write(tmp_path / "root" / "f.bin", 10)
    walked = walk_task([DirTask(str(tmp_path / "root"), -1, 1)], 100, True, (),
                       {1: str(tmp_path / "root")}, "scan-y")
    chunk = _DeviceMap().to_client(walked.chunk, {})  # as if on another mount
    rows = np.frombuffer(chunk.dirs, dtype=np.int64).reshape(-1, 4)
    assert rows[:, 3].tolist() == [os.stat(tmp_path / "root").st_dev]


def test_a_task_with_a_parts_folder_writes_its_walk_there_and_returns_only_the_path(
        tmp_path: Path) -> None:
    for i in range(3):
        write(tmp_path / "root" / f"sub{i}" / "f.bin", 100 + i)
    root_dev = os.stat(tmp_path / "root").st_dev
    group = [DirTask(str(tmp_path / "root"), -1, root_dev)]
    roots = {root_dev: str(tmp_path / "root")}
    in_memory = walk_task(group, 100, False, (), roots, "scan-p")
    (tmp_path / "parts").mkdir()
    walked = walk_task(group, 100, False, (), roots, "scan-p", str(tmp_path / "parts"))
    assert len(walked.chunk) == 0 and walked.entries == len(in_memory.chunk) == 6
    assert os.path.dirname(walked.part) == str(tmp_path / "parts")
    back = read_chunk(walked.part)
    assert b"\0".join(back.names) == b"\0".join(in_memory.chunk.names)
    assert back.dirs == in_memory.chunk.dirs and back.size == in_memory.chunk.size


def test_a_worker_that_cannot_write_its_part_says_where_and_why(tmp_path: Path) -> None:
    write(tmp_path / "root" / "f.bin", 10)
    dev = os.stat(tmp_path / "root").st_dev
    with pytest.raises(ClusterError, match="cannot write its part into .*missing"):
        walk_task([DirTask(str(tmp_path / "root"), -1, dev)], 10, False, (),
                  {dev: str(tmp_path / "root")}, "scan-q", str(tmp_path / "missing"))
    assert running_walks("scan-q") == 0


def test_a_worker_without_the_mount_says_so(tmp_path: Path) -> None:
    missing = str(tmp_path / "not-mounted-here")
    with pytest.raises(ClusterError, match="mounted at the same paths"):
        walk_task([DirTask(missing, -1, 7)], 10, False, (), {7: missing}, "scan-z")


def test_importing_the_scanner_and_the_cli_loads_no_dask() -> None:
    code = ("import sys, mlspace.scan, mlspace.cli\n"
            "import mlspace.scan.cluster, mlspace.scan.cluster_task\n"
            "print([m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_without_dask_connect_says_how_to_install_it() -> None:
    code = ("import sys\n"
            "sys.modules['distributed'] = None  # as if not installed\n"
            "from mlspace.scan.cluster import ClusterError, connect\n"
            "try:\n"
            "    with connect('local:2'):\n"
            "        pass\n"
            "except ClusterError as err:\n"
            "    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert "pip install 'mlspace[cluster]'" in out.stdout
