"""A scan on a real LocalCluster equals a local scan entry for entry, and du to the byte, on
the awkward trees of the scan tests (hard links across subtrees, sparse files, non-UTF-8 names,
unreadable folders)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cluster_helpers import assert_same_scan, counted_per_inode, make_linked_tree
from trees import NON_UTF8_NAME, du, has_du, make_awkward_tree, write

from mlspace.scan import ScanOptions, ScanProgress, chunk_file, scan, scanner
from mlspace.scan.chunk_file import read_chunk as real_read_chunk
from mlspace.scan.cluster import ClusterError, DaskSharer
from mlspace.scan.cluster_task import running_walks
from mlspace.scan.walker import WalkChunk

if TYPE_CHECKING:
    from distributed import Client

pytestmark = pytest.mark.skipif(not has_du(), reason="needs du")
NOBODY = 65534


@pytest.mark.usefixtures("tiny_walk_budgets")
def test_totals_equal_du_and_a_local_scan_entry_for_entry(tmp_path: Path, client: Client
                                                          ) -> None:
    root = make_linked_tree(tmp_path / "ws")
    snap = scan([root], sharer=DaskSharer(client))
    assert snap.grand_totals().disk_usage == du(root, "-B1")
    assert snap.grand_totals().apparent_size == du(root, "-b")
    assert snap.errors == ()
    assert_same_scan(scan([root], ScanOptions(workers=1)), snap)
    weights = os.stat(root / "shared" / "weights.bin").st_ino
    assert counted_per_inode(snap)[weights] == 1  # 21 paths, walked by several tasks


@pytest.mark.usefixtures("tiny_walk_budgets")
def test_workers_writing_parts_give_the_same_scan_and_leave_no_part(
        tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parts go through the filesystem instead of the scheduler: each is read, merged
    and removed, and hard links walked by different tasks still count once."""
    root = make_linked_tree(tmp_path / "ws")
    parts = tmp_path / "parts"
    parts.mkdir()
    read: list[str] = []

    def reading(path: str) -> WalkChunk:
        read.append(os.path.dirname(path))
        return real_read_chunk(path)

    monkeypatch.setattr(chunk_file, "read_chunk", reading)
    snap = scan([root], sharer=DaskSharer(client, str(parts)))
    assert len(read) > 5 and set(read) == {str(parts)}
    assert_same_scan(scan([root], ScanOptions(workers=1)), snap)
    weights = os.stat(root / "shared" / "weights.bin").st_ino
    assert counted_per_inode(snap)[weights] == 1
    assert snap.grand_totals().disk_usage == du(root, "-B1")
    assert os.listdir(parts) == []


def test_workers_that_cannot_write_their_parts_say_where(tmp_path: Path, client: Client
                                                         ) -> None:
    """The parts folder must be where every worker sees it (the shared storage)."""
    root = make_linked_tree(tmp_path / "ws")
    with pytest.raises(ClusterError, match="cannot write its part into .*not-shared"):
        scan([root], sharer=DaskSharer(client, str(tmp_path / "not-shared")))
    assert sum(client.run(running_walks).values()) == 0


@pytest.mark.usefixtures("tiny_walk_budgets")
def test_sparse_files_and_non_utf8_names(tmp_path: Path, client: Client) -> None:
    root = make_awkward_tree(tmp_path / "ws")
    snap = scan([root], sharer=DaskSharer(client))
    by_path = {path: entry for entry, _, path in snap.iter_paths()}
    sparse = by_path["sparse.img"]
    assert snap.apparent[sparse] == 1 << 30
    assert snap.disk_usage(sparse) == os.stat(root / "sparse.img").st_blocks * 512
    entry = next(e for e in range(len(snap)) if snap.name_bytes(e) == NON_UTF8_NAME)
    assert os.fsencode(snap.path(entry)) == os.fsencode(root) + b"/" + NON_UTF8_NAME


def test_several_roots_exclude_and_progress(tmp_path: Path, client: Client) -> None:
    for name in ("a", "b"):
        for i in range(30):
            write(tmp_path / name / f"d{i}" / "x.bin", 1000 + i)
            write(tmp_path / name / f"d{i}" / "skip.tmp", 10)
    roots = [tmp_path / "a", tmp_path / "b", tmp_path / "a" / "d3"]
    options = ScanOptions(workers=1, exclude=("*.tmp",))
    reports = []
    snap = scan(roots, options, progress=reports.append, sharer=DaskSharer(client))
    assert_same_scan(scan(roots, options), snap)
    assert reports[-1].files == len(snap) - len(snap.roots)
    assert reports[-1].bytes == snap.grand_totals().disk_usage - sum(
        snap.disk_usage(e) for e in snap.root_entries)
    assert reports[-1].busy == 0


def test_a_root_that_is_a_file_or_missing(tmp_path: Path, client: Client) -> None:
    f = write(tmp_path / "model.safetensors", 12345)
    snap = scan([f, tmp_path / "nope"], sharer=DaskSharer(client))
    assert snap.grand_totals().apparent_size == 12345
    assert [e.message for e in snap.errors] == ["vanished during the scan"]


@contextlib.contextmanager
def as_nobody(client: Client) -> Iterator[None]:
    """Root reads everything, so meet a real permission error as 'nobody': this process and
    every worker take nobody's effective ids for the scan and get theirs back after it."""
    if os.geteuid() != 0:
        yield
        return
    client.run(_become, NOBODY)
    _become(NOBODY)
    try:
        yield
    finally:
        _become(0)
        client.run(_become, 0)


def _become(uid: int) -> None:
    """Effective ids only (the real ones stay root's), so the change can be undone."""
    if uid:
        os.setegid(uid)
        os.seteuid(uid)
    else:
        os.seteuid(0)
        os.setegid(0)


def test_unreadable_folders_are_errors_and_the_rest_is_scanned(client: Client) -> None:
    base = Path(tempfile.mkdtemp(prefix="mlspace-cluster-perm-"))
    try:
        for i in range(5):
            write(base / f"ok{i}" / "a.txt", 1000)
        write(base / "ok0" / "locked" / "secret.txt", 1000)
        write(base / "locked-top" / "secret.txt", 1000)
        subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
        for locked in (base / "ok0" / "locked", base / "locked-top"):
            os.chmod(locked, 0o000)
        with as_nobody(client):
            local = scan([base], ScanOptions(workers=1))
            remote = scan([base], sharer=DaskSharer(client))
        assert_same_scan(local, remote)
        assert sorted((e.path, e.message) for e in remote.errors) == [
            (str(base / "locked-top"), "permission denied"),
            (str(base / "ok0" / "locked"), "permission denied")]
        assert remote.grand_totals().files == 5
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(base)], check=True)
        subprocess.run(["rm", "-rf", str(base)], check=True)



@pytest.mark.usefixtures("tiny_walk_budgets")
def test_the_scan_walks_here_until_the_first_workers_join(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a batch cluster whose jobs are still queued: no worker at first, then two."""
    import dask
    from distributed import Client, LocalCluster

    root = make_linked_tree(tmp_path / "ws")
    monkeypatch.setattr(scanner, "PROGRESS_INTERVAL", 0.0)
    reports: list[ScanProgress] = []
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}), \
            LocalCluster(n_workers=0, threads_per_worker=1, dashboard_address="127.0.0.1:0"
                         ) as cluster, Client(cluster.scheduler_address) as client:

        def workers_join_after_a_while(p: ScanProgress) -> None:
            reports.append(p)
            if len(reports) == 5:
                cluster.scale(2)
                client.wait_for_workers(2, timeout=60)

        snap = scan([root], progress=workers_join_after_a_while, sharer=DaskSharer(client))
    assert_same_scan(scan([root], ScanOptions(workers=1)), snap)
    assert all(p.busy == 0 for p in reports[:5])  # walked here, alone
    assert any(p.busy > 0 for p in reports[5:])  # then on the workers
