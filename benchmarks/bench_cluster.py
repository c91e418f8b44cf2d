"""A scan on a Dask cluster against a local scan (issue 17): parity, then scaling.

    python benchmarks/bench_cluster.py [--files 300000] [--runs 5] [--dir /tmp/mlspace-bench]
        [--scaling-files 100000] [--list-latency 0.0005] [--stat-latency 0.0001]
        [--scaling-workers 1 2 4 8] [--threads] [--skip-parity] [--skip-scaling]

Parity: on the benchmark tree, a local scan (two processes, the default here) and a scan on
``--cluster local:2``, each classified while it runs as the CLI does, run by run in fresh
interpreters, alternating. Times are the median of the runs and their ratio; the cluster is
timed three times, in runs of their own: the scan alone on a cluster already running (as on
a real cluster), the same with the workers writing their walks as Parquet parts (as with
``-o FOLDER/``), and end to end (importing Dask, starting the LocalCluster, the scan, which
walks here until the workers are up, closing it, finishing the classification). Then one run
of each way checks that it gives the same totals, categories (every entry's) and artifacts.

Scaling: network storage simulated by waiting ``--list-latency`` per directory listing and
``--stat-latency`` per stat (benchmarks/slow_storage.py, in the client and every worker;
mlspace itself is untouched), scanned by LocalClusters of 1, 2, 4 and 8 worker processes (or,
with --threads, one process with that many threads). Prints the speed-up against one worker
and what the model ``latency x requests / workers`` predicts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import slow_storage  # noqa: E402
from workspace import generate  # noqa: E402

_TIMED_CHILD = r"""
import json, sys, time
from mlspace.classify import EntryClassifier, classify, load_rules
from mlspace.scan import ScanOptions, scan

if __name__ == "__main__":
    root, mode = sys.argv[1], sys.argv[2]
    parts = sys.argv[3] if len(sys.argv) > 3 else ""  # the workers' walks as Parquet parts
    classifier = EntryClassifier(load_rules().compile())  # read before the scan, as the CLI
    result = {}
    t0 = time.perf_counter()
    if mode == "local":
        snap = scan([root], ScanOptions(workers=2), on_listing=classifier.add)
        result["scan"] = time.perf_counter() - t0
    else:
        from mlspace.scan.cluster import DaskSharer, connect

        with connect("local:2") as client:
            if mode == "running":  # time the scan alone, as on a cluster already up
                client.wait_for_workers(2)
                t0 = time.perf_counter()
            t1 = time.perf_counter()
            snap = scan([root], on_listing=classifier.add, sharer=DaskSharer(client, parts))
            result["scan"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    classify(snap, during_scan=classifier)
    result["end_to_end"] = time.perf_counter() - t0
    result["classify_after"] = time.perf_counter() - t2
    result["entries"] = len(snap)
    print(json.dumps(result))
"""

_COMPARE_CHILD = r"""
import dataclasses, json, sys
import numpy as np
from mlspace.classify import classify, load_rules
from mlspace.scan import ScanOptions, scan
from mlspace.scan.cluster import DaskSharer, connect

def facts(snap):
    inventory = classify(snap, rules)
    paths = {entry: (root, path) for entry, root, path in snap.iter_paths()}
    categories = {paths[e]: int(c) for e, c in enumerate(inventory.categories)}
    def plain(value):
        fields = dataclasses.asdict(value)
        if "entry" in fields:
            fields["entry"] = paths[fields["entry"]]
        if "entries" in fields:
            fields["entries"] = sorted(paths[e] for e in fields["entries"])
        return repr(sorted(fields.items()))
    return {"totals": snap.grand_totals(), "errors": sorted(map(str, snap.errors)),
            "categories": categories,
            "artifacts": sorted(map(plain, inventory.artifacts)),
            "series": sorted(map(plain, inventory.series)),
            "runs": sorted(map(plain, inventory.runs))}

if __name__ == "__main__":
    root, parts = sys.argv[1], sys.argv[2]
    rules = load_rules().compile()
    local = facts(scan([root], ScanOptions(workers=2)))
    with connect("local:2") as client:
        remote = facts(scan([root], sharer=DaskSharer(client, parts)))
    print(json.dumps({key: local[key] == remote[key] for key in local}
                     | {"artifacts_count": len(local["artifacts"]),
                        "disk": local["totals"].disk_usage}))
"""


def run_child(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def parity(root: Path, runs: int) -> None:
    du = int(subprocess.run(["du", "-s", "-B1", str(root)], capture_output=True, text=True,
                            check=True).stdout.split()[0])
    parts = tempfile.mkdtemp(prefix="mlspace-bench-parts-", dir=root.parent)
    local, running, through_parts, cold = [], [], [], []
    for _ in range(runs):
        local.append(run_child(_TIMED_CHILD, str(root), "local"))
        running.append(run_child(_TIMED_CHILD, str(root), "running"))
        through_parts.append(run_child(_TIMED_CHILD, str(root), "running", parts))
        cold.append(run_child(_TIMED_CHILD, str(root), "start"))
    print(f"tree: {root} ({local[0]['entries']:,} entries), warm cache, median of {runs}")
    for key, label, cluster in (
            ("scan", "scan, on a cluster already running", running),
            ("scan", "the same, the walks handed over as parts", through_parts),
            ("end_to_end", "end to end: start, scan, close, classify", cold)):
        ours = statistics.median(r[key] for r in cluster)
        base = statistics.median(r[key] for r in local)
        per_run = ", ".join(f"{c[key] / s[key]:.2f}" for c, s in zip(cluster, local,
                                                                      strict=True))
        print(f"{label:45s} local {base:6.2f} s   local:2 {ours:6.2f} s   "
              f"ratio {ours / base:.2f}x   (per run {per_run})")
    for label, folder in (("results through Dask", ""), ("results as parts", parts)):
        _print_same(label, run_child(_COMPARE_CHILD, str(root), folder), du)
    os.rmdir(parts)  # every part was merged and removed


def _print_same(label: str, same: dict, du: int) -> None:
    print(f"{label}, same as a local scan: totals {same['totals']}, errors {same['errors']}, "
          f"categories of every entry {same['categories']}, "
          f"artifacts {same['artifacts']} ({same['artifacts_count']:,}), "
          f"series {same['series']}, runs {same['runs']}; totals equal du -s -B1: "
          f"{same['disk'] == du}")


def scaling(root: Path, workers: list[int], list_latency: float, stat_latency: float,
            threads: bool, runs: int) -> None:
    from distributed import Client, LocalCluster

    from mlspace.scan import ScanOptions, scan
    from mlspace.scan.cluster import DaskSharer

    plain = scan([root], ScanOptions(workers=1))
    dirs, entries = len(plain.dir_paths), len(plain)
    real_list, real_stat = (slow_storage.measured_sleep(list_latency),
                            slow_storage.measured_sleep(stat_latency))
    serial = dirs * real_list + entries * real_stat
    print(f"\nscaling: {root} ({entries:,} entries, {dirs:,} folders), simulated latency "
          f"{list_latency * 1e3:.2f} ms per listing and {stat_latency * 1e3:.2f} ms per stat "
          f"(sleeps take {real_list * 1e3:.3f} and {real_stat * 1e3:.3f} ms here), "
          f"{'threads in one process' if threads else 'one process per worker'}, "
          f"median of {runs}")
    print("  workers   seconds   speed-up   model (latency x requests / workers)")
    slow_storage.install(list_latency, stat_latency)  # the client lists the first levels
    first = None
    try:
        for n in workers:
            shape = {"n_workers": 1, "threads_per_worker": n} if threads else \
                {"n_workers": n, "threads_per_worker": 1}
            with LocalCluster(processes=True, dashboard_address="127.0.0.1:0",
                              **shape) as cluster, Client(cluster) as client:
                client.run(slow_storage.install, list_latency, stat_latency)
                times = []
                for _ in range(runs):
                    t0 = time.perf_counter()
                    snap = scan([root], sharer=DaskSharer(client))
                    times.append(time.perf_counter() - t0)
                    assert snap.grand_totals() == plain.grand_totals()
            seconds = statistics.median(times)
            first = first or seconds
            print(f"  {n:7d}   {seconds:7.2f}   {first / seconds:7.2f}x   "
                  f"{serial / n:6.2f} s ({n:.0f}x)")
    finally:
        slow_storage.uninstall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--files", type=int, default=300_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mlspace-bench"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scaling-files", type=int, default=100_000)
    parser.add_argument("--scaling-runs", type=int, default=1)
    parser.add_argument("--scaling-workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--list-latency", type=float, default=0.0005, help="seconds")
    parser.add_argument("--stat-latency", type=float, default=0.0001, help="seconds")
    parser.add_argument("--threads", action="store_true",
                        help="scale threads in one worker process, not processes")
    parser.add_argument("--skip-parity", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    if not args.skip_parity:
        parity(generate(args.dir / f"tree-{args.files}", args.files), args.runs)
    if not args.skip_scaling:
        scaling(generate(args.dir / f"tree-{args.scaling_files}", args.scaling_files),
                args.scaling_workers, args.list_latency, args.stat_latency, args.threads,
                args.scaling_runs)


if __name__ == "__main__":
    main()
