"""Saved scans: what writing one adds to a scan, how large it is, how fast it opens, and how
fast two compare (issue 15). Every figure is a ratio measured in this one run, runs
alternating so both sides see the same machine.

    python benchmarks/bench_index.py [--files 300000] [--large 1000000] [--runs 5]

- write: a scan that classifies as it goes (what `mlspace scan -o FILE.parquet` does), then
  writing the index, in one process; the write's time over the scan's (target <= 10%);
- size: the file's bytes per entry for the large tree (target <= 16);
- open: opening the large saved scan ready to use (snapshot and inventory) in a fresh
  process, over scanning the tree in a fresh process, plain and classifying (target <= 25%);
- inventory: `mlspace inventory FILE` over `mlspace inventory PATH`, whole commands
  (interpreter start included), and over `mlspace scan PATH`;
- diff: `mlspace diff OLD.parquet NEW.parquet --format json` of two large scans, one run
  added between them (target <= 2 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import _median_interval  # noqa: E402
from workspace import generate  # noqa: E402

_WRITE_CHILD = r"""
import json, os, sys, time
from mlspace.classify import EntryClassifier, classify, load_rules
from mlspace.index.info import ScanInfo
from mlspace.index.parquet_write import write_parquet
from mlspace.scan import scan
classifier = EntryClassifier(load_rules().compile())
t0 = time.perf_counter()
snapshot = scan([sys.argv[1]], on_listing=classifier.add)
inventory = classify(snapshot, during_scan=classifier)
t1 = time.perf_counter()
write_parquet(sys.argv[2], inventory, ScanInfo.here(time.time() - (t1 - t0)))
t2 = time.perf_counter()
print(json.dumps({"scan": t1 - t0, "write": t2 - t1, "entries": len(snapshot)}))
"""

_SCAN_CHILD = r"""
import json, sys, time
from mlspace.scan import scan
t0 = time.perf_counter()
scanned = scan([sys.argv[1]])
if sys.argv[2] == "1":
    from mlspace.classify import classify
    classify(scanned)
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""

_OPEN_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from mlspace.index.saved import open_saved
saved = open_saved(sys.argv[1])
inventory = saved.inventory()
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "entries": len(saved.snapshot),
                  "artifacts": len(inventory.artifacts)}))
"""


def _child(code: str, *argv: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *argv], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def _wall(*argv: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mlspace", *argv], check=True,
                   capture_output=True)
    return time.perf_counter() - t0


def _summary(name: str, ratios: list[float], target: str) -> None:
    low, high = _median_interval(ratios)
    print(f"{name:<34} {100 * statistics.median(ratios):6.1f}%  (95% interval "
          f"{100 * low:.1f}% to {100 * high:.1f}%; per run "
          f"{', '.join(f'{100 * r:.1f}%' for r in sorted(ratios))})  target {target}")


def bench_write(root: Path, runs: int, scratch: Path) -> None:
    results = [_child(_WRITE_CHILD, str(root), str(scratch / "w.parquet")) for _ in range(runs)]
    print(f"[write] {root} ({results[0]['entries']:,} entries): scan + classify "
          f"{statistics.median(r['scan'] for r in results):.3f} s, write "
          f"{statistics.median(r['write'] for r in results) * 1000:.0f} ms (medians)")
    _summary("writing adds", [r["write"] / r["scan"] for r in results], "<= 10%")


def bench_large(root: Path, runs: int, scratch: Path) -> None:
    saved = scratch / "large.parquet"
    made = _child(_WRITE_CHILD, str(root), str(saved))
    entries = made["entries"]
    size = saved.stat().st_size
    import pyarrow.parquet as pq

    document = len(pq.ParquetFile(saved).schema_arrow.metadata[b"mlspace"])
    print(f"[size] {entries:,} entries: {size / 2**20:.1f} MiB, {size / entries:.2f} B/entry "
          f"(of which the metadata document {document / entries:.2f} B/entry)  target <= 16")
    opens, plain, classified = [], [], []
    for _ in range(runs):
        opens.append(_child(_OPEN_CHILD, str(saved))["seconds"])
        plain.append(_child(_SCAN_CHILD, str(root), "0")["seconds"])
        classified.append(_child(_SCAN_CHILD, str(root), "1")["seconds"])
    print(f"[open] open {statistics.median(opens):.3f} s; scan {statistics.median(plain):.3f} s, "
          f"scan + classify {statistics.median(classified):.3f} s (medians)")
    _summary("open / plain scan", [o / p for o, p in zip(opens, plain, strict=True)],
             "<= 25%")
    _summary("open / scan + classify",
             [o / c for o, c in zip(opens, classified, strict=True)], "<= 25%")
    from_file, from_folder, scan_only = [], [], []
    for _ in range(runs):
        from_file.append(_wall("inventory", str(saved)))
        from_folder.append(_wall("inventory", str(root)))
        scan_only.append(_wall("scan", str(root)))
    print(f"[inventory] FILE {statistics.median(from_file):.3f} s, PATH "
          f"{statistics.median(from_folder):.3f} s, `scan PATH` "
          f"{statistics.median(scan_only):.3f} s (medians, whole commands)")
    _summary("inventory FILE / inventory PATH",
             [f / p for f, p in zip(from_file, from_folder, strict=True)], "<= 25%")
    _summary("inventory FILE / scan PATH",
             [f / p for f, p in zip(from_file, scan_only, strict=True)], "<= 25%")
    bench_diff(root, saved, runs, scratch)


def bench_diff(root: Path, old: Path, runs: int, scratch: Path) -> None:
    added = root / "outputs" / "bench-added-run"
    shutil.rmtree(added, ignore_errors=True)
    try:
        for step in range(100, 1100, 100):
            folder = added / f"checkpoint-{step}"
            folder.mkdir(parents=True)
            for name in ("model.safetensors", "optimizer.pt", "trainer_state.json"):
                (folder / name).write_bytes(b"x" * 1000)
        new = scratch / "large-new.parquet"
        _child(_WRITE_CHILD, str(root), str(new))
    finally:
        shutil.rmtree(added, ignore_errors=True)
    times = [_wall("diff", str(old), str(new), "--format", "json", "-o", os.devnull)
             for _ in range(runs)]
    out = subprocess.run([sys.executable, "-m", "mlspace", "diff", str(old), str(new),
                          "--format", "json"], check=True, capture_output=True, text=True)
    changes = [(c["path"], c["status"]) for c in json.loads(out.stdout)["changes"]]
    print(f"[diff] {statistics.median(times):.3f} s median (runs "
          f"{', '.join(f'{t:.2f}' for t in sorted(times))}), whole command  target <= 2 s; "
          f"names {changes[:3]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--files", type=int, default=300_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mlspace-bench"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="mlspace-bench-index-"))
    try:
        bench_write(generate(args.dir / f"tree-{args.files}", args.files), args.runs, scratch)
        if not args.skip_large:
            bench_large(generate(args.dir / f"tree-{args.large}", args.large), args.runs,
                        scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
