"""One real LocalCluster (two worker processes) per test module: starting one takes a second
or two, so a module's tests share it and leave it as they found it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/slow_storage.py makes a walk wait as on network storage; LocalCluster workers
# start with this path too, so they can import it.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

if TYPE_CHECKING:
    from distributed import Client

WORKERS = 2


@pytest.fixture(scope="module")
def cluster_client() -> Iterator[Client]:
    from cluster_helpers import require_dask

    require_dask()
    from mlspace.scan.cluster import connect

    with connect(f"local:{WORKERS}") as client:
        yield client


@pytest.fixture
def client(cluster_client: Client) -> Iterator[Client]:
    """The shared cluster, with all its workers back (a test may have killed one)."""
    cluster_client.wait_for_workers(WORKERS, timeout=60)
    yield cluster_client
