"""Scan speed and memory against ``du`` on the same tree, as ratios (issue 2).

    python benchmarks/bench_scan.py [--files 300000] [--dir /tmp/mlspace-bench] [--runs 5] [--cold]

Prints the median wall time of ``du -s`` and of an mlspace scan (warm cache; with --cold the
page cache is dropped before each run, which needs root), their ratio, and the scan's peak
resident memory per entry (the scanning process's peak RSS growth; worker processes listed
separately, they hold at most one chunk each). With --classify it also times classifying the
scanned tree (issue 3): a scan that classifies while it runs, plus what is left after it,
against a plain scan, per run and as the median with a 95% bootstrap interval.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace import generate  # noqa: E402

_SCAN_CHILD = r"""
import json, resource, sys, time
from mlspace.scan import scan, ScanOptions

def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
classifier = rules_seconds = None
if sys.argv[3] == "1":
    # As the app and the CLI do: the rules are read before the scan starts (once per scan,
    # whatever the tree's size), and entries are classified as the workers' chunks come in.
    t0 = time.perf_counter()
    import numpy as np
    from mlspace.classify import EntryClassifier, classify, load_rules
    rules = load_rules().compile()
    classifier = EntryClassifier(rules)
    rules_seconds = time.perf_counter() - t0
base = rss_kib()
t0 = time.perf_counter()
snap = scan([sys.argv[1]], ScanOptions(workers=int(sys.argv[2])),
            on_listing=classifier.add if classifier else None)
t1 = time.perf_counter()
classify_seconds = same = None
if classifier is not None:
    during = classify(snap, during_scan=classifier)
    classify_seconds = time.perf_counter() - t1
    after = classify(snap, rules)  # untimed: the honest check that both ways agree
    same = bool(np.array_equal(during.categories, after.categories)
                and during.artifacts == after.artifacts and during.series == after.series)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": t1 - t0, "classify_seconds": classify_seconds,
                  "rules_seconds": rules_seconds, "same": same, "entries": len(snap),
                  "disk": snap.grand_totals().disk_usage, "base_kib": base, "peak_kib": peak,
                  "child_peak_kib": kids}))
"""


def drop_caches() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def time_du(root: Path, cold: bool) -> float:
    if cold:
        drop_caches()
    t0 = time.perf_counter()
    subprocess.run(["du", "-s", "-B1", str(root)], check=True, capture_output=True)
    return time.perf_counter() - t0


def run_scan(root: Path, workers: int, cold: bool, with_classify: bool) -> dict:
    if cold:
        drop_caches()
    out = subprocess.run(
        [sys.executable, "-c", _SCAN_CHILD, str(root), str(workers), "1" if with_classify else "0"],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout)


def report_classification(scans: list[dict], classified: list[dict]) -> None:
    """What classification adds to a scan: a scan that classifies the workers' chunks as
    they come in, plus the work left after it, against a plain scan of the same tree, run
    by run (runs alternate, so both see the same machine)."""
    during = [c["seconds"] for c in classified]
    after = [c["classify_seconds"] for c in classified]
    added = sorted((d + a) / s["seconds"] - 1 for d, a, s in zip(during, after, scans,
                                                                strict=True))
    plain = statistics.median(s["seconds"] for s in scans)
    of_medians = (statistics.median(during) + statistics.median(after)) / plain - 1
    print(f"scan while classifying: {statistics.median(during):.3f} s, then "
          f"{statistics.median(after):.3f} s to finish the inventory")
    low, high = _median_interval(added)
    print(f"classification adds:    {100 * statistics.median(added):+.1f}% to the scan, median "
          f"of runs (95% interval {100 * low:+.1f}% to {100 * high:+.1f}%; "
          f"{100 * of_medians:+.1f}% from the medians; per run "
          f"{', '.join(f'{100 * x:+.0f}%' for x in added)})")
    print(f"rules:        {statistics.median(c['rules_seconds'] for c in classified):.3f} s"
          "   (import and rules, read before the scan starts)")
    print(f"classified during the scan = classified after it: "
          f"{all(c['same'] for c in classified)}")


def _median_interval(values: list[float], resamples: int = 4000) -> tuple[float, float]:
    """A 95% bootstrap interval for the median of ``values``: on a noisy machine single
    runs differ by tens of percent, so the median alone says too little."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values)))
                     for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--files", type=int, default=300_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mlspace-bench"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None, help="default: mlspace's default")
    parser.add_argument("--cold", action="store_true", help="drop the page cache before each run")
    parser.add_argument("--classify", action="store_true", help="also time classification")
    args = parser.parse_args()

    from mlspace.scan import ScanOptions

    workers = args.workers or ScanOptions().workers
    root = generate(args.dir / f"tree-{args.files}", args.files)
    du_disk = int(subprocess.run(["du", "-s", "-B1", str(root)], capture_output=True, text=True,
                                 check=True).stdout.split()[0])
    du_times, scans, classified = [], [], []
    for _ in range(args.runs):
        du_times.append(time_du(root, args.cold))
        scans.append(run_scan(root, workers, args.cold, False))
        if args.classify:
            classified.append(run_scan(root, workers, args.cold, True))
    scan_times = [s["seconds"] for s in scans]
    entries = scans[0]["entries"]
    peak = max(s["peak_kib"] - s["base_kib"] for s in scans) * 1024
    child_peak = max(s["child_peak_kib"] for s in scans) * 1024
    du_median, scan_median = statistics.median(du_times), statistics.median(scan_times)
    print(f"tree: {root} ({entries:,} entries), {'cold' if args.cold else 'warm'} cache, "
          f"{workers} worker(s), median of {args.runs}")
    print(f"du -s:        {du_median:.3f} s")
    print(f"mlspace scan: {scan_median:.3f} s   ratio {scan_median / du_median:.2f}x")
    print(f"peak RSS growth: {peak / entries:.1f} B/entry (scanning process); "
          f"largest worker peak {child_peak / 2**20:.0f} MiB")
    if args.classify:
        report_classification(scans, classified)
    same = all(s["disk"] == du_disk for s in scans)
    print(f"totals equal du -s -B1: {same}")


if __name__ == "__main__":
    main()
